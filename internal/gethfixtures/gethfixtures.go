// Package gethfixtures reads go-ethereum's own tracer test fixtures for AFR's
// conformance tests (evm/conformance_test.go, tracesim/conformance_test.go).
//
// The fixtures are the JSON files of eth/tracers/internal/tracetest/testdata
// in the go-ethereum module that go.mod requires: real mainnet and testnet
// transactions, each with its pre-state (a genesis whose alloc is the state
// before the transaction and whose header is the parent block), the block it
// was included in, the signed transaction, a tracer configuration and the
// trace go-ethereum's native tracer gives. They are read from the module
// cache, never copied into this repository, so the suite always checks
// against the fixtures of the go-ethereum version AFR is built with.
//
// Only test code imports this package.
package gethfixtures

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/agentflightrecorder/afr/evm"
)

// Module is the module the fixtures come from.
const Module = "github.com/ethereum/go-ethereum"

// Folders are the fixture folders the conformance suite runs: the
// callTracer without and with logs, and the prestateTracer in diff mode.
var Folders = []string{"call_tracer", "call_tracer_withLog", "prestate_tracer_with_diff_mode"}

// Dir returns the fixtures' directory in the module cache, found with
// `go list -m` from the current directory (any directory of this module).
func Dir() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", Module).Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
		}
		return "", fmt.Errorf("go-ethereum's tracer fixtures: the module %s is not in the module cache (go list -m: %v); "+
			"get it with `go mod download %s` (any `go build` of this module also does)", Module, err, Module)
	}
	dir = filepath.Join(dir, "eth", "tracers", "internal", "tracetest", "testdata")
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("go-ethereum's tracer fixtures: %w (the module cache copy of %s is incomplete: "+
			"remove it with `go clean -modcache` and run `go mod download %s`)", err, Module, Module)
	}
	return dir, nil
}

// Context is the block the fixture's transaction was included in, as the
// fixtures give it.
type Context struct {
	Number     math.HexOrDecimal64   `json:"number"`
	Difficulty *math.HexOrDecimal256 `json:"difficulty"`
	Time       math.HexOrDecimal64   `json:"timestamp"`
	GasLimit   math.HexOrDecimal64   `json:"gasLimit"`
	Miner      common.Address        `json:"miner"`
	BaseFee    *math.HexOrDecimal256 `json:"baseFeePerGas"`
}

// Fixture is one fixture file.
type Fixture struct {
	// Folder and File name it: "call_tracer", "create.json".
	Folder, File string
	// Genesis holds the chain config, the pre-state (Alloc) and the parent
	// block's header fields.
	Genesis *core.Genesis `json:"genesis"`
	Context Context       `json:"context"`
	// Input is the signed transaction (eth_sendRawTransaction encoding).
	Input hexutil.Bytes `json:"input"`
	// TracerConfig is the tracer's options, absent for the defaults.
	TracerConfig json.RawMessage `json:"tracerConfig"`
	// Result is the trace go-ethereum's tracer gives.
	Result json.RawMessage `json:"result"`

	genesisHash common.Hash // the genesis's "hash", which core.Genesis drops
}

// Name is folder/file without the extension, the name of its subtest.
func (f *Fixture) Name() string { return f.Folder + "/" + strings.TrimSuffix(f.File, ".json") }

// CallTrace reports whether the fixture holds a callTracer result (else a
// prestateTracer one).
func (f *Fixture) CallTrace() bool { return strings.HasPrefix(f.Folder, "call_tracer") }

// Load reads every fixture of the folders, in folder and file name order.
func Load(folders ...string) ([]*Fixture, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	var out []*Fixture
	for _, folder := range folders {
		files, err := filepath.Glob(filepath.Join(dir, folder, "*.json"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("go-ethereum's tracer fixtures: no JSON files in %s", filepath.Join(dir, folder))
		}
		sort.Strings(files)
		for _, path := range files {
			raw, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			f := &Fixture{Folder: folder, File: filepath.Base(path)}
			var hash struct {
				Genesis struct {
					Hash common.Hash `json:"hash"`
				} `json:"genesis"`
			}
			if err := json.Unmarshal(raw, f); err != nil {
				return nil, fmt.Errorf("fixture %s: %w", path, err)
			}
			if err := json.Unmarshal(raw, &hash); err != nil {
				return nil, fmt.Errorf("fixture %s: %w", path, err)
			}
			f.genesisHash = hash.Genesis.Hash
			if f.Genesis == nil || f.Genesis.Config == nil || len(f.Input) == 0 || len(f.Result) == 0 || f.Context.Number == 0 {
				return nil, fmt.Errorf("fixture %s: genesis config, input, result or a block number above 0 missing", path)
			}
			out = append(out, f)
		}
	}
	return out, nil
}

// Tx decodes the fixture's transaction.
func (f *Fixture) Tx() (*types.Transaction, error) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(f.Input); err != nil {
		return nil, fmt.Errorf("fixture %s: transaction: %w", f.Name(), err)
	}
	return tx, nil
}

// TraceConfig decodes the fixture's tracer options; an option AFR's
// TraceConfig does not know is an error.
func (f *Fixture) TraceConfig() (*evm.TraceConfig, error) {
	cfg := new(evm.TraceConfig)
	if len(f.TracerConfig) == 0 {
		return cfg, nil
	}
	dec := json.NewDecoder(bytes.NewReader(f.TracerConfig))
	dec.DisallowUnknownFields()
	if err := dec.Decode(cfg); err != nil {
		return nil, fmt.Errorf("fixture %s: tracerConfig: %w", f.Name(), err)
	}
	return cfg, nil
}

// ParentHeader is the header of the block before the fixture's block, as
// far as the genesis describes it. Its number is the block's minus one: the
// genesis's own number is not always that (call_tracer/revert_reason).
func (f *Fixture) ParentHeader() *types.Header {
	g := f.Genesis
	return &types.Header{
		Number:        new(big.Int).SetUint64(uint64(f.Context.Number) - 1),
		Time:          g.Timestamp,
		GasLimit:      g.GasLimit,
		Difficulty:    g.Difficulty,
		MixDigest:     g.Mixhash,
		Coinbase:      g.Coinbase,
		BaseFee:       g.BaseFee,
		ExcessBlobGas: g.ExcessBlobGas,
		BlobGasUsed:   g.BlobGasUsed,
	}
}

// ParentHash is the hash of the block before the fixture's block: the
// genesis's "hash", or where the fixture gives none (zero) the hash of
// ParentHeader.
func (f *Fixture) ParentHash() common.Hash {
	if f.genesisHash != (common.Hash{}) {
		return f.genesisHash
	}
	return f.ParentHeader().Hash()
}

// Block is the block context of the fixture's transaction, as go-ethereum's
// block processing builds it for that block: difficulty as given (zero after
// the merge), PREVRANDAO the genesis mixHash, a base fee only when London is
// active, and the blob base fee from the excess blob gas the block derives
// from its parent's (when Cancun is active and the parent has blob fields).
func (f *Fixture) Block() evm.Block {
	c := f.Context
	cfg := f.Genesis.Config
	b := evm.Block{
		Number:     uint64(c.Number),
		Time:       uint64(c.Time),
		GasLimit:   uint64(c.GasLimit),
		Coinbase:   c.Miner,
		Difficulty: (*big.Int)(c.Difficulty),
		PrevRandao: f.Genesis.Mixhash,
	}
	num := new(big.Int).SetUint64(b.Number)
	if cfg.IsLondon(num) && c.BaseFee != nil {
		b.BaseFee = (*big.Int)(c.BaseFee)
	}
	if excess := f.ExcessBlobGas(); excess != nil {
		b.BlobBaseFee = eip4844.CalcBlobFee(cfg, &types.Header{Number: num, Time: b.Time, ExcessBlobGas: excess})
	}
	return b
}

// ExcessBlobGas is the block's excess blob gas (eip4844.CalcExcessBlobGas
// of its parent), nil when the block has none: before Cancun, without a
// blob schedule, or when the genesis has no blob fields.
func (f *Fixture) ExcessBlobGas() *uint64 {
	cfg, g := f.Genesis.Config, f.Genesis
	num := new(big.Int).SetUint64(uint64(f.Context.Number))
	if !cfg.IsCancun(num, uint64(f.Context.Time)) || cfg.BlobScheduleConfig == nil || g.ExcessBlobGas == nil || g.BlobGasUsed == nil {
		return nil
	}
	excess := eip4844.CalcExcessBlobGas(cfg, f.ParentHeader(), uint64(f.Context.Time))
	return &excess
}

// Merged reports whether the block is a proof-of-stake one (zero
// difficulty), as Block hands it to the EVM.
func (f *Fixture) Merged() bool {
	return f.Context.Difficulty == nil || (*big.Int)(f.Context.Difficulty).Sign() == 0
}

// Rules are the fork rules active at the fixture's block.
func (f *Fixture) Rules() params.Rules {
	return f.Genesis.Config.Rules(new(big.Int).SetUint64(uint64(f.Context.Number)), f.Merged(), uint64(f.Context.Time))
}

// Fork names the latest fork active at the fixture's block.
func (f *Fixture) Fork() string {
	r := f.Rules()
	for _, fk := range []struct {
		on   bool
		name string
	}{
		{r.IsAmsterdam, "Amsterdam"}, {r.IsOsaka, "Osaka"}, {r.IsPrague, "Prague"}, {r.IsCancun, "Cancun"},
		{r.IsShanghai, "Shanghai"}, {r.IsMerge, "Paris"}, {r.IsLondon, "London"}, {r.IsBerlin, "Berlin"},
		{r.IsIstanbul, "Istanbul"}, {r.IsPetersburg, "Petersburg"}, {r.IsConstantinople, "Constantinople"},
		{r.IsByzantium, "Byzantium"}, {r.IsEIP158, "Spurious Dragon"}, {r.IsEIP150, "Tangerine Whistle"},
		{r.IsHomestead, "Homestead"},
	} {
		if fk.on {
			return fk.name
		}
	}
	return "Frontier"
}

// TxType names the kind of the fixture's transaction.
func (f *Fixture) TxType() (string, error) {
	tx, err := f.Tx()
	if err != nil {
		return "", err
	}
	var kind string
	switch tx.Type() {
	case types.LegacyTxType:
		kind = "legacy"
		if tx.Protected() {
			kind += " (EIP-155)"
		}
	case types.AccessListTxType:
		kind = "access list (EIP-2930)"
	case types.DynamicFeeTxType:
		kind = "dynamic fee (EIP-1559)"
	case types.BlobTxType:
		kind = "blob (EIP-4844, " + Count(len(tx.BlobHashes()), "blob") + ")"
	case types.SetCodeTxType:
		kind = "set code (EIP-7702, " + Count(len(tx.SetCodeAuthorizations()), "authorization") + ")"
	default:
		kind = fmt.Sprintf("type %d", tx.Type())
	}
	if tx.To() == nil {
		kind += ", creation"
	}
	return kind, nil
}

// Exercises summarises what the fixture's expected trace contains: the
// frame types, errors, revert reasons and logs of a call trace, or the
// accounts, slots, creations and removals of a state diff, and the tracer
// options.
func (f *Fixture) Exercises() (string, error) {
	var parts []string
	if f.CallTrace() {
		var top frame
		if err := json.Unmarshal(f.Result, &top); err != nil {
			return "", fmt.Errorf("fixture %s: result: %w", f.Name(), err)
		}
		s := new(callStats)
		s.walk(&top)
		parts = append(parts, s.summary()...)
	} else {
		var diff struct {
			Pre, Post map[common.Address]struct {
				Code    *hexutil.Bytes         `json:"code"`
				Storage map[common.Hash]string `json:"storage"`
			}
		}
		if err := json.Unmarshal(f.Result, &diff); err != nil {
			return "", fmt.Errorf("fixture %s: result: %w", f.Name(), err)
		}
		slots, created, removed := 0, 0, 0
		for a, post := range diff.Post {
			slots += len(post.Storage)
			if pre, ok := diff.Pre[a]; post.Code != nil && (!ok || pre.Code == nil || len(*pre.Code) == 0) {
				created++
			}
		}
		for a := range diff.Pre {
			if _, ok := diff.Post[a]; !ok {
				removed++
			}
		}
		parts = append(parts, fmt.Sprintf("%d accounts before, %d after", len(diff.Pre), len(diff.Post)))
		if slots > 0 {
			parts = append(parts, Count(slots, "slot")+" written")
		}
		if created > 0 {
			parts = append(parts, Count(created, "code")+" set")
		}
		if removed > 0 {
			parts = append(parts, Count(removed, "account")+" removed")
		}
	}
	cfg, err := f.TraceConfig()
	if err != nil {
		return "", err
	}
	for _, o := range []struct {
		on   bool
		name string
	}{{cfg.OnlyTopCall, "onlyTopCall"}, {cfg.WithLog, "withLog"}, {cfg.DisableCode, "disableCode"}, {cfg.DisableStorage, "disableStorage"}} {
		if o.on {
			parts = append(parts, o.name)
		}
	}
	return strings.Join(parts, "; "), nil
}

// frame is the part of a callTracer frame Exercises reads.
type frame struct {
	Type         string            `json:"type"`
	Error        string            `json:"error"`
	RevertReason string            `json:"revertReason"`
	Logs         []json.RawMessage `json:"logs"`
	Calls        []frame           `json:"calls"`
}

type callStats struct {
	types   map[string]int
	errors  map[string]int
	reasons int
	logs    int
}

func (s *callStats) walk(fr *frame) {
	if s.types == nil {
		s.types, s.errors = map[string]int{}, map[string]int{}
	}
	s.types[fr.Type]++
	if fr.Error != "" {
		s.errors[fr.Error]++
	}
	if fr.RevertReason != "" {
		s.reasons++
	}
	s.logs += len(fr.Logs)
	for i := range fr.Calls {
		s.walk(&fr.Calls[i])
	}
}

func (s *callStats) summary() []string {
	counted := func(m map[string]int) string {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			if m[k] > 1 {
				keys[i] = fmt.Sprintf("%s ×%d", k, m[k])
			}
		}
		return strings.Join(keys, ", ")
	}
	out := []string{counted(s.types)}
	if len(s.errors) > 0 {
		out = append(out, "errors: "+counted(s.errors))
	}
	if s.reasons > 0 {
		out = append(out, Count(s.reasons, "revert reason"))
	}
	if s.logs > 0 {
		out = append(out, Count(s.logs, "log"))
	}
	return out
}

// Count is n and noun, with an s when n is not 1: "1 log", "2 logs".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
