package tracesim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/evm"
	"github.com/agentflightrecorder/afr/internal/rpcdial"
)

// ReplayOptions configure Replay and NewReplayer. The zero value replays live
// from the endpoint with an empty registry and keeps nothing on disk.
type ReplayOptions struct {
	// Registry decodes calldata, logs and reverts; nil decodes only the
	// standard Error/Panic reverts and ERC-20/721 events.
	Registry *calldata.Registry
	// Mode is evm.Live (fetch, keep nothing), evm.Record (fetch what the
	// cache lacks and write block and state to CacheDir) or evm.ReplayOnly
	// (read CacheDir only; no network request is ever made).
	Mode evm.Mode
	// CacheDir holds blocks (BlockPath) and fork state (dir/forks, the evm
	// fork cache at each block's parent). Record and ReplayOnly need it.
	CacheDir string
	// ChainID, when non-zero, is the chain the transaction must be on.
	ChainID uint64
	// ChainConfig gives the fork rules; nil means the fork's rules:
	// go-ethereum's config for a known chain, else what the endpoint answers
	// (debug_chainConfig, anvil_nodeInfo), or in ReplayOnly mode the rules
	// recorded in the fork cache; with none of these the replay fails with an
	// *evm.UnknownChainError (see "Fork rules" in package evm). They must be
	// the rules the chain ran the block with, or gas and outcome may differ
	// (the fidelity check then says so).
	ChainConfig *params.ChainConfig
	// Hardfork names the rules instead (evm.ForkConfig.Hardfork): every
	// fork up to it active from genesis, for the transaction's chain id.
	Hardfork string
	// AbsentIsEmpty (ReplayOnly only) reads accounts and slots a fork cache
	// lacks as empty: for fork caches written from a pre-state
	// (evm.WritePrestate) rather than recorded.
	AbsentIsEmpty bool
	// Timeout bounds each request (default 10s); HTTPClient is used for
	// http(s) endpoints.
	Timeout    time.Duration
	HTTPClient *http.Client
	// Client, when set, answers the JSON-RPC instead of a client dialed to
	// the endpoint URL, which may then be empty: an in-process chain's
	// client (chain/backend's Attacher), with no HTTP. The Replayer neither
	// dials nor closes it; Stats.Requests counts no HTTP requests for it.
	Client *rpc.Client
}

// ReplayResult is a mined transaction re-executed with tracing and decoded.
type ReplayResult struct {
	ChainID   uint64      `json:"chain_id"`
	TxHash    common.Hash `json:"tx_hash"`
	Block     uint64      `json:"block"`
	BlockHash common.Hash `json:"block_hash"`
	// Index is the transaction's position in the block; the Index
	// transactions before it were executed first, untraced.
	Index    int             `json:"index"`
	Intent   calldata.Intent `json:"intent"`
	Effects  *Effects        `json:"effects"`
	Receipt  Receipt         `json:"receipt"`
	Fidelity Fidelity        `json:"fidelity"`
	Stats    Stats           `json:"stats"`
	// Trace is the raw trace of the re-execution (go-ethereum's call
	// tracer, with logs, and the state diff), which Effects decodes; it is
	// not in the JSON. FormatTrace renders its call tree.
	Trace *evm.Trace `json:"-"`
}

// Receipt is what the chain recorded for the transaction.
type Receipt struct {
	// Status is 1 for success, 0 for failure; absent before Byzantium,
	// whose receipts have none.
	Status  *uint64 `json:"status,omitempty"`
	GasUsed uint64  `json:"gas_used"`
	Logs    int     `json:"logs"`
}

// Fidelity is the comparison of the replay with the chain's receipts.
type Fidelity struct {
	// OK is true when status, gas used, logs (address, topics, data, order)
	// and created address equal the receipt's, and every transaction before
	// it in the block replayed with its receipt's status and gas.
	OK         bool       `json:"ok"`
	Mismatches []Mismatch `json:"mismatches,omitempty"`
}

// Mismatch is one disagreement between the chain and the replay.
type Mismatch struct {
	Field   string `json:"field"`   // e.g. "gas_used", "logs[2].data", "preceding[0].status"
	Receipt string `json:"receipt"` // what the chain recorded
	Replay  string `json:"replay"`  // what the replay produced
}

// Stats counts the work of one replay.
type Stats struct {
	// Requests are HTTP requests sent to the endpoint (block, receipts and
	// state), retries included; 0 in replay-only mode.
	Requests int64 `json:"requests"`
	// Executed is the number of transactions executed (preceding + 1).
	Executed int `json:"executed"`
}

// FidelityError is returned, with the result, when the replay disagrees with
// the chain: the result is still complete, and its Fidelity lists why.
type FidelityError struct {
	TxHash     common.Hash
	Mismatches []Mismatch
}

func (e *FidelityError) Error() string {
	parts := make([]string, 0, len(e.Mismatches))
	for _, m := range e.Mismatches {
		parts = append(parts, fmt.Sprintf("%s: receipt %s, replay %s", m.Field, m.Receipt, m.Replay))
	}
	return fmt.Sprintf("tracesim: replay of %s does not match the chain: %s", e.TxHash.Hex(), strings.Join(parts, "; "))
}

// ErrFidelity is matched (errors.Is) by every *FidelityError.
var ErrFidelity = errors.New("tracesim: replay does not match the chain")

func (e *FidelityError) Is(target error) bool { return target == ErrFidelity }

// Replay re-executes the mined transaction txHash: it fetches the
// transaction, its block (with every transaction) and the receipts from
// rpcURL, forks the state at the parent block, executes the transactions
// before it in the block, then executes it with tracing and decodes intent
// and effects. Status, gas used and logs are compared with the receipt; any
// difference is returned as a *FidelityError together with the full result.
//
// With opts.Mode evm.ReplayOnly, rpcURL is ignored and everything comes from
// opts.CacheDir; a missing block, account, slot or code is an error naming it
// (*TxNotFoundError, *evm.MissError).
func Replay(ctx context.Context, rpcURL string, txHash common.Hash, opts *ReplayOptions) (*ReplayResult, error) {
	r, err := NewReplayer(rpcURL, opts)
	if err != nil {
		return nil, err
	}
	res, err := r.Replay(ctx, txHash)
	if cerr := r.Close(); cerr != nil && err == nil {
		err = cerr
	}
	return res, err
}

// Replayer replays many transactions from one endpoint or cache, keeping
// blocks and fork state in memory between them. It is safe for concurrent
// use. Close it to release connections and (Record mode) write the caches.
type Replayer struct {
	url  string
	opts ReplayOptions

	requests atomic.Int64
	client   *rpc.Client
	mu       sync.Mutex
	blocks   map[common.Hash]*minedBlock // by tx hash
	forks    map[uint64]*evm.Fork        // by parent block number
	closed   bool
}

// NewReplayer checks the options and returns a Replayer.
func NewReplayer(rpcURL string, opts *ReplayOptions) (*Replayer, error) {
	r := &Replayer{url: rpcURL, blocks: map[common.Hash]*minedBlock{}, forks: map[uint64]*evm.Fork{}}
	if opts != nil {
		r.opts = *opts
	}
	if r.opts.Timeout <= 0 {
		r.opts.Timeout = 10 * time.Second
	}
	switch r.opts.Mode {
	case evm.Live:
	case evm.Record, evm.ReplayOnly:
		if r.opts.CacheDir == "" {
			return nil, fmt.Errorf("tracesim: %s mode needs a CacheDir", r.opts.Mode)
		}
	default:
		return nil, fmt.Errorf("tracesim: unknown mode %d", int(r.opts.Mode))
	}
	if r.opts.Mode != evm.ReplayOnly && rpcURL == "" && r.opts.Client == nil {
		return nil, errors.New("tracesim: no endpoint URL (give one, or a Client, or use replay-only mode with a cache)")
	}
	if r.opts.Client != nil && rpcURL == "" {
		r.url = "in-process client"
	}
	return r, nil
}

// Close releases the endpoint connection and closes the forks, writing the
// fork caches in Record mode.
func (r *Replayer) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	var first error
	for _, f := range r.forks {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	if r.client != nil && r.client != r.opts.Client {
		r.client.Close()
	}
	return first
}

// Requests returns the HTTP requests sent so far (blocks, receipts, state).
func (r *Replayer) Requests() int64 {
	n := r.requests.Load()
	r.mu.Lock()
	for _, f := range r.forks {
		n += f.Stats().Requests
	}
	r.mu.Unlock()
	return n
}

func (r *Replayer) dial(ctx context.Context) (*rpc.Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.client != nil {
		return r.client, nil
	}
	if r.opts.Client != nil {
		r.client = r.opts.Client
		return r.client, nil
	}
	c, err := rpcdial.Dial(ctx, r.url, r.opts.HTTPClient, &r.requests)
	if err != nil {
		return nil, fmt.Errorf("tracesim: dial %s: %w", r.url, err)
	}
	r.client = c
	return c, nil
}

// block returns the mined block holding tx, from memory, the cache or the
// endpoint.
func (r *Replayer) block(ctx context.Context, tx common.Hash) (*minedBlock, error) {
	r.mu.Lock()
	b := r.blocks[tx]
	r.mu.Unlock()
	if b != nil {
		return b, nil
	}
	var err error
	if r.opts.Mode == evm.ReplayOnly {
		b, _, err = findBlockFile(r.opts.CacheDir, r.opts.ChainID, tx)
	} else {
		b, err = r.fetchBlock(ctx, tx)
	}
	if err != nil {
		return nil, err
	}
	if r.opts.ChainID != 0 && b.ChainID != r.opts.ChainID {
		return nil, fmt.Errorf("tracesim: transaction %s is on chain %d, want %d", tx.Hex(), b.ChainID, r.opts.ChainID)
	}
	r.mu.Lock()
	for _, t := range b.Txs {
		r.blocks[t.Hash] = b
	}
	r.mu.Unlock()
	return b, nil
}

func (r *Replayer) call(ctx context.Context, elems []rpc.BatchElem, what string) error {
	c, err := r.dial(ctx)
	if err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	if err := c.BatchCallContext(rctx, elems); err != nil {
		return &evm.RPCError{URL: r.url, Method: elems[0].Method, What: what, Attempts: 1, Err: err}
	}
	return nil
}

func (r *Replayer) fetchBlock(ctx context.Context, tx common.Hash) (*minedBlock, error) {
	var chainID hexutil.Uint64
	var txRaw json.RawMessage
	elems := []rpc.BatchElem{
		{Method: "eth_chainId", Result: &chainID},
		{Method: "eth_getTransactionByHash", Args: []any{tx}, Result: &txRaw},
	}
	if err := r.call(ctx, elems, "transaction "+tx.Hex()); err != nil {
		return nil, err
	}
	for _, el := range elems {
		if el.Error != nil {
			return nil, &evm.RPCError{URL: r.url, Method: el.Method, What: "transaction " + tx.Hex(), Attempts: 1, Err: el.Error}
		}
	}
	if len(txRaw) == 0 || string(txRaw) == "null" {
		return nil, &TxNotFoundError{Hash: tx, Where: r.url}
	}
	var meta struct {
		BlockNumber *hexutil.Uint64 `json:"blockNumber"`
	}
	if err := json.Unmarshal(txRaw, &meta); err != nil {
		return nil, &BlockFileError{Err: fmt.Errorf("transaction %s: %w", tx.Hex(), err)}
	}
	if meta.BlockNumber == nil {
		// anvil can still answer a transaction it has just mined from its
		// pool, with no block; its receipt is what says it was included.
		var rcpt struct {
			BlockNumber *hexutil.Uint64 `json:"blockNumber"`
		}
		el := []rpc.BatchElem{{Method: "eth_getTransactionReceipt", Args: []any{tx}, Result: &rcpt}}
		if err := r.call(ctx, el, "receipt of "+tx.Hex()); err == nil && el[0].Error == nil {
			meta.BlockNumber = rcpt.BlockNumber
		}
	}
	if meta.BlockNumber == nil {
		return nil, fmt.Errorf("tracesim: transaction %s is pending (not in a block yet)", tx.Hex())
	}
	num := *meta.BlockNumber
	var blockRaw json.RawMessage
	var receipts []json.RawMessage
	elems = []rpc.BatchElem{
		{Method: "eth_getBlockByNumber", Args: []any{num, true}, Result: &blockRaw},
		{Method: "eth_getBlockReceipts", Args: []any{num}, Result: &receipts},
	}
	what := "block " + strconv.FormatUint(uint64(num), 10)
	if err := r.call(ctx, elems, what); err != nil {
		return nil, err
	}
	if elems[0].Error != nil {
		return nil, &evm.RPCError{URL: r.url, Method: elems[0].Method, What: what, Attempts: 1, Err: elems[0].Error}
	}
	if len(blockRaw) == 0 || string(blockRaw) == "null" {
		return nil, fmt.Errorf("%w: block %d at %s", evm.ErrUnknownBlock, uint64(num), r.url)
	}
	if elems[1].Error != nil {
		// No eth_getBlockReceipts: one eth_getTransactionReceipt per transaction.
		var hdr struct {
			Transactions []struct {
				Hash common.Hash `json:"hash"`
			} `json:"transactions"`
		}
		if err := json.Unmarshal(blockRaw, &hdr); err != nil {
			return nil, &BlockFileError{Err: err}
		}
		receipts = make([]json.RawMessage, len(hdr.Transactions))
		var rel []rpc.BatchElem
		for i, t := range hdr.Transactions {
			rel = append(rel, rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{t.Hash}, Result: &receipts[i]})
		}
		if len(rel) > 0 {
			if err := r.call(ctx, rel, "receipts of "+what); err != nil {
				return nil, err
			}
			for _, el := range rel {
				if el.Error != nil {
					return nil, &evm.RPCError{URL: r.url, Method: el.Method, What: "receipts of " + what, Attempts: 1, Err: el.Error}
				}
			}
		}
	}
	f := &blockFile{Format: blockFormat, Version: blockVersion, ChainID: uint64(chainID), Block: compact(blockRaw), Receipts: make([]json.RawMessage, len(receipts))}
	for i, rc := range receipts {
		f.Receipts[i] = compact(rc)
	}
	b, err := parseBlock(uint64(chainID), f)
	if err != nil {
		return nil, &BlockFileError{Err: err}
	}
	if r.opts.Mode == evm.Record {
		p := BlockPath(r.opts.CacheDir, b.ChainID, b.number())
		if err := writeBlockFile(p, f); err != nil {
			return nil, &BlockFileError{Path: p, Err: err}
		}
	}
	return b, nil
}

func compact(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}

// fork returns the (shared) fork at block number parent.
func (r *Replayer) fork(ctx context.Context, chainID, parent uint64) (*evm.Fork, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f := r.forks[parent]; f != nil {
		return f, nil
	}
	if r.closed {
		return nil, errors.New("tracesim: replayer is closed")
	}
	cfg := evm.ForkConfig{URL: r.url, Block: strconv.FormatUint(parent, 10), Mode: r.opts.Mode, ChainID: chainID,
		Timeout: r.opts.Timeout, HTTPClient: r.opts.HTTPClient, Client: r.opts.Client, ChainConfig: r.opts.ChainConfig,
		Hardfork: r.opts.Hardfork, AbsentIsEmpty: r.opts.AbsentIsEmpty && r.opts.Mode == evm.ReplayOnly}
	if r.opts.CacheDir != "" && r.opts.Mode != evm.Live {
		cfg.CacheDir = filepath.Join(r.opts.CacheDir, "forks")
	}
	if r.opts.Mode == evm.ReplayOnly {
		cfg.URL = ""
	}
	f, err := evm.OpenFork(ctx, cfg)
	if err != nil {
		return nil, err
	}
	r.forks[parent] = f
	return f, nil
}

// Replay replays one transaction (see the package-level Replay).
func (r *Replayer) Replay(ctx context.Context, txHash common.Hash) (*ReplayResult, error) {
	before := r.Requests()
	b, err := r.block(ctx, txHash)
	if err != nil {
		return nil, err
	}
	f, err := r.fork(ctx, b.ChainID, b.number()-1)
	if err != nil {
		return nil, err
	}
	if f.Block().Hash != b.Header.ParentHash {
		return nil, fmt.Errorf("tracesim: fork at block %d has hash %s, block %d's parent is %s (a reorg?)",
			b.number()-1, f.Block().Hash.Hex(), b.number(), b.Header.ParentHash.Hex())
	}
	chain := f.ChainConfig() // ReplayOptions.ChainConfig when given
	blk, err := blockContext(chain, &b.Header)
	if err != nil {
		return nil, err
	}
	env, err := evm.New(evm.Config{Fork: f, ChainConfig: chain, Block: &blk})
	if err != nil {
		return nil, err
	}
	out, err := replayIn(ctx, env, b, txHash, r.opts.Registry)
	if out != nil {
		out.Stats.Requests = r.Requests() - before
	}
	return out, err
}

// replayIn executes the transactions of b before txHash on env (the state
// b's transactions ran on, in b's context), then txHash with tracing, and
// compares each with its receipt.
func replayIn(ctx context.Context, env *evm.Env, b *minedBlock, txHash common.Hash, reg *calldata.Registry) (*ReplayResult, error) {
	idx := b.index(txHash)
	var mism []Mismatch
	for i := 0; i < idx; i++ {
		t, rc := b.Txs[i], b.Receipts[i]
		if m := checkNonce(env, t, fmt.Sprintf("preceding[%d].", i)); m != nil {
			mism = append(mism, *m)
		}
		res, err := env.ApplyTransaction(ctx, t.Tx, nil)
		if err != nil {
			if errors.Is(err, evm.ErrStateUnusable) || errors.Is(err, evm.ErrStateRead) {
				return nil, fmt.Errorf("tracesim: preceding transaction %d (%s): %w", i, t.Hash.Hex(), err)
			}
			mism = append(mism, Mismatch{Field: fmt.Sprintf("preceding[%d].executable", i), Receipt: "included", Replay: err.Error()})
			continue
		}
		mism = append(mism, compareReceipt(fmt.Sprintf("preceding[%d].", i), t, rc, res, false)...)
	}
	t, rc := b.Txs[idx], b.Receipts[idx]
	if m := checkNonce(env, t, ""); m != nil {
		mism = append(mism, *m)
	}
	res, err := env.ApplyTransaction(ctx, t.Tx, &evm.CallOptions{Trace: evm.FullTrace()})
	if err != nil {
		if len(mism) > 0 {
			return nil, fmt.Errorf("tracesim: execute %s: %w (%w)", t.Hash.Hex(), err, &FidelityError{TxHash: txHash, Mismatches: mism})
		}
		return nil, fmt.Errorf("tracesim: execute %s: %w", t.Hash.Hex(), err)
	}
	mism = append(mism, compareReceipt("", t, rc, res, true)...)

	out := &ReplayResult{
		ChainID: b.ChainID, TxHash: txHash, Block: b.number(), BlockHash: *b.Header.Hash, Index: idx,
		Intent:   calldata.IntentOf(reg, b.ChainID, t.From, t.Tx.To(), t.Tx.Value(), t.Tx.Data()),
		Effects:  EffectsOf(reg, res),
		Receipt:  Receipt{Status: (*uint64)(rc.Status), GasUsed: uint64(rc.GasUsed), Logs: len(rc.Logs)},
		Fidelity: Fidelity{OK: len(mism) == 0, Mismatches: mism},
		Stats:    Stats{Executed: idx + 1},
		Trace:    res.Trace,
	}
	if len(mism) > 0 {
		return out, &FidelityError{TxHash: txHash, Mismatches: mism}
	}
	return out, nil
}

func checkNonce(env *evm.Env, t *minedTx, prefix string) *Mismatch {
	n, err := env.Nonce(t.From)
	if err != nil || n == t.Tx.Nonce() {
		return nil
	}
	return &Mismatch{Field: prefix + "nonce", Receipt: strconv.FormatUint(t.Tx.Nonce(), 10), Replay: strconv.FormatUint(n, 10)}
}

// blockContext is the mined block's execution context.
func blockContext(chain *params.ChainConfig, h *rpcBlock) (evm.Block, error) {
	b := evm.Block{
		Number: uint64(*h.Number), Time: uint64(h.Timestamp), GasLimit: uint64(h.GasLimit),
		Coinbase: h.Miner, PrevRandao: h.MixHash, Hash: *h.Hash,
	}
	if h.BaseFee != nil {
		b.BaseFee = new(big.Int).Set(h.BaseFee.ToInt())
	}
	if h.Difficulty != nil && h.Difficulty.ToInt().Sign() > 0 {
		b.Difficulty = new(big.Int).Set(h.Difficulty.ToInt())
	}
	if h.ExcessBlobGas != nil {
		fee, err := evm.BlobBaseFee(chain, b.Number, b.Time, uint64(*h.ExcessBlobGas))
		if err != nil {
			return evm.Block{}, fmt.Errorf("tracesim: block %d: %w", b.Number, err)
		}
		b.BlobBaseFee = fee
	}
	return b, nil
}

// compareReceipt lists the differences between a receipt and a replay:
// status (from Byzantium on; earlier receipts have none), gas used,
// cumulative gas used (which also covers the transactions before it), and
// with full the created address and the logs.
func compareReceipt(prefix string, t *minedTx, rc *rpcReceipt, res *evm.Result, full bool) []Mismatch {
	var out []Mismatch
	add := func(field, want, got string) {
		out = append(out, Mismatch{Field: prefix + field, Receipt: want, Replay: got})
	}
	status := uint64(1)
	if res.Failed() {
		status = 0
	}
	if rc.Status != nil && uint64(*rc.Status) != status {
		got := "1"
		if status == 0 {
			got = "0 (" + res.Err.Error() + ")"
		}
		add("status", strconv.FormatUint(uint64(*rc.Status), 10), got)
	}
	if uint64(rc.GasUsed) != res.GasUsed {
		add("gas_used", strconv.FormatUint(uint64(rc.GasUsed), 10), strconv.FormatUint(res.GasUsed, 10))
	}
	if rc.CumulativeGasUsed != nil && res.Receipt != nil && uint64(*rc.CumulativeGasUsed) != res.Receipt.CumulativeGasUsed {
		add("cumulative_gas_used", strconv.FormatUint(uint64(*rc.CumulativeGasUsed), 10), strconv.FormatUint(res.Receipt.CumulativeGasUsed, 10))
	}
	if !full {
		return out
	}
	if t.Tx.To() == nil && rc.ContractAddress != nil && *rc.ContractAddress != res.ContractAddress {
		add("contract_address", rc.ContractAddress.Hex(), res.ContractAddress.Hex())
	}
	if len(rc.Logs) != len(res.Logs) {
		add("logs", strconv.Itoa(len(rc.Logs)), strconv.Itoa(len(res.Logs)))
	}
	for i := 0; i < len(rc.Logs) && i < len(res.Logs); i++ {
		w, g := rc.Logs[i], res.Logs[i]
		if w.Address != g.Address {
			add(fmt.Sprintf("logs[%d].address", i), w.Address.Hex(), g.Address.Hex())
		}
		if !sameTopics(w.Topics, g.Topics) {
			add(fmt.Sprintf("logs[%d].topics", i), topicsString(w.Topics), topicsString(g.Topics))
		}
		if !bytes.Equal(w.Data, g.Data) {
			add(fmt.Sprintf("logs[%d].data", i), hexutil.Encode(w.Data), hexutil.Encode(g.Data))
		}
	}
	return out
}

func sameTopics(a, b []common.Hash) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func topicsString(ts []common.Hash) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.Hex()
	}
	return "[" + strings.Join(s, ",") + "]"
}
