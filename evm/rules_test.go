package evm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/agentflightrecorder/afr/chain/backend/anvil"
)

// genesisRules are c's rules at block 0, time 0, merged when c says so.
func genesisRules(c *params.ChainConfig) params.Rules {
	merged := c.TerminalTotalDifficulty != nil && c.TerminalTotalDifficulty.Sign() == 0
	return c.Rules(new(big.Int), merged, 0)
}

// TestHardforkConfig: each name switches on exactly the forks up to it.
func TestHardforkConfig(t *testing.T) {
	zero := new(big.Int)
	// feature is one observable switch and the fork (index into Hardforks)
	// that turns it on.
	type feature struct {
		fork string
		name string
		on   func(c *params.ChainConfig, r params.Rules) bool
	}
	features := []feature{
		{"homestead", "IsHomestead", func(_ *params.ChainConfig, r params.Rules) bool { return r.IsHomestead }},
		{"tangerine", "IsEIP150", func(_ *params.ChainConfig, r params.Rules) bool { return r.IsEIP150 }},
		{"spurious", "IsEIP155", func(_ *params.ChainConfig, r params.Rules) bool { return r.IsEIP155 }},
		{"spurious", "IsEIP158", func(_ *params.ChainConfig, r params.Rules) bool { return r.IsEIP158 }},
		{"byzantium", "IsByzantium", func(_ *params.ChainConfig, r params.Rules) bool { return r.IsByzantium }},
		{"constantinople", "IsConstantinople", func(_ *params.ChainConfig, r params.Rules) bool { return r.IsConstantinople }},
		{"petersburg", "IsPetersburg", func(_ *params.ChainConfig, r params.Rules) bool { return r.IsPetersburg }},
		{"istanbul", "IsIstanbul", func(_ *params.ChainConfig, r params.Rules) bool { return r.IsIstanbul }},
		{"muirglacier", "IsMuirGlacier", func(c *params.ChainConfig, _ params.Rules) bool { return c.IsMuirGlacier(zero) }},
		{"berlin", "IsBerlin", func(_ *params.ChainConfig, r params.Rules) bool { return r.IsBerlin && r.IsEIP2929 }},
		{"london", "IsLondon", func(_ *params.ChainConfig, r params.Rules) bool { return r.IsLondon }},
		{"arrowglacier", "IsArrowGlacier", func(c *params.ChainConfig, _ params.Rules) bool { return c.IsArrowGlacier(zero) }},
		{"grayglacier", "IsGrayGlacier", func(c *params.ChainConfig, _ params.Rules) bool { return c.IsGrayGlacier(zero) }},
		{"paris", "IsMerge", func(_ *params.ChainConfig, r params.Rules) bool { return r.IsMerge }},
		{"shanghai", "IsShanghai", func(_ *params.ChainConfig, r params.Rules) bool { return r.IsShanghai }},
		{"cancun", "IsCancun", func(_ *params.ChainConfig, r params.Rules) bool { return r.IsCancun }},
		{"prague", "IsPrague", func(_ *params.ChainConfig, r params.Rules) bool { return r.IsPrague }},
		{"osaka", "IsOsaka", func(_ *params.ChainConfig, r params.Rules) bool { return r.IsOsaka }},
		{"bpo1", "IsBPO1", func(c *params.ChainConfig, _ params.Rules) bool { return c.IsBPO1(zero, 0) }},
		{"bpo2", "IsBPO2", func(c *params.ChainConfig, _ params.Rules) bool { return c.IsBPO2(zero, 0) }},
		{"bpo3", "IsBPO3", func(c *params.ChainConfig, _ params.Rules) bool { return c.IsBPO3(zero, 0) }},
		{"bpo4", "IsBPO4", func(c *params.ChainConfig, _ params.Rules) bool { return c.IsBPO4(zero, 0) }},
	}
	// The blob parameters each blob fork brings.
	blobs := map[string]*params.BlobConfig{
		"cancun": params.DefaultCancunBlobConfig, "prague": params.DefaultPragueBlobConfig,
		"bpo1": params.DefaultBPO1BlobConfig, "bpo2": params.DefaultBPO2BlobConfig,
		"bpo3": params.DefaultBPO3BlobConfig, "bpo4": params.DefaultBPO4BlobConfig,
	}
	names := Hardforks()
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	seen := map[string]string{}
	var blob *params.BlobConfig // the latest blob parameters so far
	for i, name := range names {
		if b := blobs[name]; b != nil {
			blob = b
		}
		c, err := HardforkConfig(strings.ToUpper(name), 777)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := c.CheckConfigForkOrder(); err != nil {
			t.Errorf("%s: go-ethereum refuses the config: %v", name, err)
		}
		if c.ChainID.Uint64() != 777 {
			t.Errorf("%s: chain id %v", name, c.ChainID)
		}
		r := genesisRules(c)
		var on []string
		for _, f := range features {
			want := index[f.fork] <= i
			if got := f.on(c, r); got != want {
				t.Errorf("%s: %s is %v, want %v", name, f.name, got, want)
			}
			if f.on(c, r) {
				on = append(on, f.name)
			}
		}
		key := strings.Join(on, ",")
		if other, dup := seen[key]; dup {
			t.Errorf("%s and %s give the same rules", name, other)
		}
		seen[key] = name
		if merged := c.TerminalTotalDifficulty != nil && c.TerminalTotalDifficulty.Sign() == 0; merged != (i >= index["paris"]) {
			t.Errorf("%s: terminal total difficulty %v", name, c.TerminalTotalDifficulty)
		}
		wantMax := 0
		if blob != nil {
			wantMax = blob.Max
		}
		if got := eip4844.MaxBlobsPerBlock(c, 0); got != wantMax {
			t.Errorf("%s: %d blobs per block, want %d", name, got, wantMax)
		}
	}
	for alias, canonical := range map[string]string{
		"TangerineWhistle": "tangerine", "EIP150": "tangerine", "SpuriousDragon": "spurious", "eip158": "spurious",
		"Merge": "paris", "Paris": "paris", "Shanghai": "shanghai", "muir-glacier": "muirglacier", "Bpo1": "bpo1",
	} {
		a, err := HardforkConfig(alias, 1)
		if err != nil {
			t.Fatalf("%s: %v", alias, err)
		}
		b, _ := HardforkConfig(canonical, 1)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s is not %s", alias, canonical)
		}
	}
	_, err := HardforkConfig("isthmus", 1)
	if err == nil || !strings.Contains(err.Error(), `"isthmus"`) || !strings.Contains(err.Error(), "frontier") || !strings.Contains(err.Error(), "osaka") {
		t.Errorf("unknown hardfork: %v", err)
	}
}

func TestChainConfigFor(t *testing.T) {
	for _, want := range []*params.ChainConfig{params.MainnetChainConfig, params.SepoliaChainConfig, params.HoodiChainConfig} {
		got, err := ChainConfigFor(want.ChainID.Uint64())
		if err != nil || got != want {
			t.Errorf("chain %v: %v, %v", want.ChainID, got, err)
		}
	}
	for _, id := range []uint64{31337, 1337, 17000, 999} {
		_, err := ChainConfigFor(id)
		var ue *UnknownChainError
		if !errors.As(err, &ue) || ue.ChainID != id || !errors.Is(err, ErrUnknownChain) {
			t.Fatalf("chain %d: %v, want an UnknownChainError", id, err)
		}
		for _, hint := range []string{"ForkConfig.ChainConfig", "evm.Config.ChainConfig", "evm.HardforkConfig", "ForkConfig.Hardfork"} {
			if !strings.Contains(err.Error(), hint) {
				t.Errorf("chain %d: message does not say %q: %v", id, hint, err)
			}
		}
		if strings.Contains(err.Error(), "--") {
			t.Errorf("chain %d: a library error names a command-line flag: %v", id, err)
		}
	}
}

func TestLoadChainConfig(t *testing.T) {
	want, _ := HardforkConfig("cancun", 4242)
	bare, _ := json.Marshal(want)
	genesis := []byte(`{"config":` + string(bare) + `,"alloc":{},"gasLimit":"0x1c9c380","difficulty":"0x0"}`)
	for name, data := range map[string][]byte{"bare": bare, "genesis": genesis} {
		got, err := LoadChainConfig(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
	for name, data := range map[string]string{
		"no chain id":         `{"homesteadBlock":0}`,
		"genesis no chain id": `{"config":{"homesteadBlock":0},"alloc":{}}`,
		"not json":            `chainId: 1`,
		"cancun without blob": `{"chainId":5,"homesteadBlock":0,"eip150Block":0,"eip155Block":0,"eip158Block":0,"byzantiumBlock":0,"constantinopleBlock":0,"petersburgBlock":0,"istanbulBlock":0,"berlinBlock":0,"londonBlock":0,"terminalTotalDifficulty":0,"shanghaiTime":0,"cancunTime":0}`,
	} {
		if _, err := LoadChainConfig([]byte(data)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestForkRulesFromAnvil: anvil names its hardfork in anvil_nodeInfo, asked
// in the open batches (no extra request).
func TestForkRulesFromAnvil(t *testing.T) {
	c := startChain(t, anvil.Options{Hardfork: "shanghai"})
	ctx := context.Background()
	blk, err := PinLatest(ctx, c.node.URL())
	if err != nil {
		t.Fatal(err)
	}
	f, err := OpenFork(ctx, ForkConfig{URL: c.node.URL(), Block: blk, Mode: Live})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := f.ChainConfig().Rules(new(big.Int).SetUint64(f.Block().Number), true, f.Block().Time)
	if !r.IsShanghai || r.IsCancun {
		t.Errorf("rules: shanghai %v, cancun %v; want shanghai only", r.IsShanghai, r.IsCancun)
	}
	if got := f.RulesSource(); got != "anvil_nodeInfo hardfork Shanghai" {
		t.Errorf("rules source %q", got)
	}
	if n := f.Stats().Requests; n != 2 {
		t.Errorf("open sent %d requests, want 2 (block batch and state probe)", n)
	}
	env, err := New(Config{Fork: f})
	if err != nil {
		t.Fatal(err)
	}
	if env.ChainConfig() != f.ChainConfig() {
		t.Error("evm.New did not take the fork's rules")
	}
}

// rpcStub is a loopback JSON-RPC endpoint of chain 999 that knows only the
// block, chain id and account methods; it records the methods asked.
func rpcStub(t *testing.T) (string, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var asked []string
	answer := func(method string) (any, map[string]any) {
		switch method {
		case "eth_chainId":
			return "0x3e7", nil
		case "eth_getBlockByNumber":
			return map[string]any{
				"number": "0x5", "hash": common.HexToHash("0xb5").Hex(), "parentHash": common.HexToHash("0xb4").Hex(),
				"stateRoot": common.HexToHash("0x5e").Hex(), "timestamp": "0x64", "gasLimit": "0x1c9c380",
				"baseFeePerGas": "0x7", "miner": common.HexToAddress("0xc0").Hex(), "mixHash": common.HexToHash("0x77").Hex(),
				"difficulty": "0x0",
			}, nil
		case "eth_getBalance":
			return "0x64", nil
		case "eth_getTransactionCount":
			return "0x1", nil
		case "eth_getCode":
			return "0x", nil
		}
		return nil, map[string]any{"code": -32601, "message": "the method " + method + " does not exist/is not available"}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var reqs []struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		batch := len(body) > 0 && body[0] == '['
		if !batch {
			body = append(append([]byte{'['}, body...), ']')
		}
		if err := json.Unmarshal(body, &reqs); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var out []map[string]any
		for _, q := range reqs {
			mu.Lock()
			asked = append(asked, q.Method)
			mu.Unlock()
			res, rerr := answer(q.Method)
			m := map[string]any{"jsonrpc": "2.0", "id": q.ID}
			if rerr != nil {
				m["error"] = rerr
			} else {
				m["result"] = res
			}
			out = append(out, m)
		}
		w.Header().Set("Content-Type", "application/json")
		if batch {
			json.NewEncoder(w).Encode(out)
		} else {
			json.NewEncoder(w).Encode(out[0])
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), asked...) }
}

// TestForkRulesUnknown: an endpoint that answers neither question gets no
// rules unless they are given.
func TestForkRulesUnknown(t *testing.T) {
	url, asked := rpcStub(t)
	ctx := context.Background()
	_, err := OpenFork(ctx, ForkConfig{URL: url, Block: "5", Mode: Live, Retries: -1})
	var ue *UnknownChainError
	if !errors.As(err, &ue) || ue.ChainID != 999 {
		t.Fatalf("open: %v, want an UnknownChainError for chain 999", err)
	}
	if got := strings.Join(asked(), " "); !strings.Contains(got, "debug_chainConfig") || !strings.Contains(got, "anvil_nodeInfo") {
		t.Errorf("asked %s", got)
	}

	given, _ := HardforkConfig("london", 999)
	f, err := OpenFork(ctx, ForkConfig{URL: url, Block: "5", Mode: Live, ChainConfig: given})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.ChainConfig() != given || f.RulesSource() != "given" {
		t.Errorf("rules %v from %q", f.ChainConfig(), f.RulesSource())
	}
	env, err := New(Config{Fork: f})
	if err != nil {
		t.Fatal(err)
	}
	if bal, err := env.Balance(common.HexToAddress("0xabc")); err != nil || bal.Int64() != 100 {
		t.Errorf("balance %v, %v", bal, err)
	}

	other, _ := HardforkConfig("london", 1)
	if _, err := OpenFork(ctx, ForkConfig{URL: url, Block: "5", Mode: Live, ChainConfig: other}); err == nil || !strings.Contains(err.Error(), "the fork is chain 999") {
		t.Errorf("rules of another chain: %v", err)
	}
}

// TestReplayRulesFromCache: a version 1 cache has no rules of its own.
func TestReplayRulesFromCache(t *testing.T) {
	ctx := context.Background()
	write := func(chainID uint64, version int, chain *params.ChainConfig) string {
		c := sampleCache()
		c.ChainID, c.Version, c.chain, c.Block.Difficulty, c.Block.ExcessBlobGas = chainID, version, chain, nil, nil
		p := filepath.Join(t.TempDir(), "c.json")
		if err := writeCache(p, c); err != nil {
			t.Fatal(err)
		}
		return p
	}
	_, err := OpenFork(ctx, ForkConfig{Mode: ReplayOnly, CachePath: write(999, 1, nil)})
	if !errors.Is(err, ErrUnknownChain) || !strings.Contains(err.Error(), "version 1") {
		t.Fatalf("version 1 cache of chain 999: %v, want an UnknownChainError", err)
	}
	given, _ := HardforkConfig("berlin", 999)
	f, err := OpenFork(ctx, ForkConfig{Mode: ReplayOnly, CachePath: write(999, 1, nil), ChainConfig: given})
	if err != nil || f.ChainConfig() != given || f.RulesSource() != "given" {
		t.Fatalf("given rules: %v", err)
	}
	f, err = OpenFork(ctx, ForkConfig{Mode: ReplayOnly, CachePath: write(1, 1, nil)})
	if err != nil || f.ChainConfig() != params.MainnetChainConfig || f.RulesSource() != "go-ethereum config for chain 1" {
		t.Fatalf("version 1 mainnet cache: %v", err)
	}
	recorded, _ := HardforkConfig("istanbul", 999)
	f, err = OpenFork(ctx, ForkConfig{Mode: ReplayOnly, CachePath: write(999, 2, recorded)})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.ChainConfig(), recorded) || f.RulesSource() != "fork cache chain_config" {
		t.Errorf("rules %v from %q", f.ChainConfig(), f.RulesSource())
	}
	f, err = OpenFork(ctx, ForkConfig{Mode: ReplayOnly, CachePath: write(999, 2, recorded), ChainConfig: given})
	if err != nil || f.ChainConfig() != given {
		t.Errorf("given rules do not win over the cache's: %v", err)
	}
}

// TestRecordWritesRules: a recorded cache carries the rules and the header's
// difficulty and excess blob gas, and replays with them.
func TestRecordWritesRules(t *testing.T) {
	c := startChain(t, anvil.Options{Hardfork: "cancun"})
	ctx := context.Background()
	blk, err := PinLatest(ctx, c.node.URL())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "fork.json")
	rec, err := OpenFork(ctx, ForkConfig{URL: c.node.URL(), Block: blk, Mode: Record, CachePath: path})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Account(c.node.Accounts()[0]); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := OpenFork(ctx, ForkConfig{Mode: ReplayOnly, CachePath: path})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(rep.ChainConfig())
	want, _ := json.Marshal(rec.ChainConfig())
	if !bytes.Equal(got, want) || rep.RulesSource() != "fork cache chain_config" {
		t.Fatalf("replayed rules (%s)\n%s\nrecorded\n%s", rep.RulesSource(), got, want)
	}
	var head struct {
		ExcessBlobGas hexutil.Uint64 `json:"excessBlobGas"`
	}
	c.call(&head, "eth_getBlockByNumber", hexutil.Uint64(rec.Block().Number), false)
	wantFee := eip4844.CalcBlobFee(rec.ChainConfig(), &types.Header{Number: new(big.Int), Time: rec.Block().Time, ExcessBlobGas: (*uint64)(&head.ExcessBlobGas)})
	if rep.Block().BlobBaseFee == nil || rep.Block().BlobBaseFee.Cmp(wantFee) != 0 || rec.Block().BlobBaseFee.Cmp(wantFee) != 0 {
		t.Errorf("blob base fee: replay %v, record %v, want %v", rep.Block().BlobBaseFee, rec.Block().BlobBaseFee, wantFee)
	}
}
