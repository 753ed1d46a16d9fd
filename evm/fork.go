package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/holiman/uint256"
)

// Mode selects where a Fork gets state from.
type Mode int

const (
	// Live fetches from the endpoint and keeps state in memory only.
	Live Mode = iota
	// Record loads the cache file if there is one, fetches what it lacks
	// from the endpoint, and writes the union back on Save or Close.
	Record
	// ReplayOnly serves state from the cache file only and never touches
	// the network; a miss is a *MissError.
	ReplayOnly
)

func (m Mode) String() string {
	switch m {
	case Live:
		return "live"
	case Record:
		return "record"
	case ReplayOnly:
		return "replay-only"
	}
	return "mode(" + strconv.Itoa(int(m)) + ")"
}

var (
	// ErrUnpinnedBlock is returned for a block tag ("latest", "pending",
	// "safe", "finalized", "earliest") or an empty block: a fork must name
	// one block by number or hash (see PinLatest).
	ErrUnpinnedBlock = errors.New("evm: fork block is not pinned (give a number or hash, not a tag)")
	// ErrUnknownBlock is returned when the endpoint does not know the block.
	ErrUnknownBlock = errors.New("evm: fork block not found")
	// ErrStateUnavailable is returned when the endpoint knows the block but
	// cannot serve its state (a pruned, non-archive node).
	ErrStateUnavailable = errors.New("evm: fork state not available at the block")
	// ErrNotInCache is matched (errors.Is) by every *MissError.
	ErrNotInCache = errors.New("not in the fork cache")
)

// MissError reports state that replay-only mode needed and the cache lacks.
type MissError struct {
	Kind    string // "account", "storage", "code" or "block hash"
	Address common.Address
	Slot    common.Hash // for storage
	Hash    common.Hash // code hash, for code
	Number  uint64      // for block hash
}

func (e *MissError) Error() string {
	switch e.Kind {
	case "storage":
		return fmt.Sprintf("evm: replay-only: storage slot %s of account %s is not in the fork cache", e.Slot.Hex(), e.Address.Hex())
	case "code":
		return fmt.Sprintf("evm: replay-only: code %s of account %s is not in the fork cache", e.Hash.Hex(), e.Address.Hex())
	case "block hash":
		return fmt.Sprintf("evm: replay-only: hash of block %d is not in the fork cache", e.Number)
	}
	return fmt.Sprintf("evm: replay-only: account %s is not in the fork cache", e.Address.Hex())
}

func (e *MissError) Is(target error) bool { return target == ErrNotInCache }

// RPCError reports a failed request to the fork endpoint after retries.
type RPCError struct {
	URL      string
	Method   string // first method of the batch
	What     string // what was being fetched, e.g. "storage 0x.. slot 0x.."
	Attempts int
	Err      error
}

func (e *RPCError) Error() string {
	s := fmt.Sprintf("evm: fork rpc %s %s", e.URL, e.Method)
	if e.What != "" {
		s += " (" + e.What + ")"
	}
	if e.Attempts > 1 {
		s += fmt.Sprintf(" failed after %d attempts", e.Attempts)
	}
	return s + ": " + e.Err.Error()
}

func (e *RPCError) Unwrap() error { return e.Err }

// ForkConfig configures OpenFork.
type ForkConfig struct {
	// URL is the JSON-RPC endpoint (http, https, ws or ipc). Unused in
	// ReplayOnly mode.
	URL string
	// Block pins the state: a decimal or 0x-hex number, or a 32-byte block
	// hash. Tags such as "latest" are refused (ErrUnpinnedBlock). In
	// ReplayOnly mode it may be empty if CachePath is given.
	Block string
	Mode  Mode
	// CachePath is the cache file. If empty and CacheDir is set, the file is
	// CachePath(CacheDir, chain id, block number). Record and ReplayOnly
	// need one of them.
	CachePath string
	CacheDir  string
	// ChainID, when non-zero, is the chain the state must come from: the
	// endpoint's and the cache's chain id are checked against it. ReplayOnly
	// with CacheDir needs it to find the file.
	ChainID uint64
	// Timeout bounds each request (default 10s); Retries is how many times a
	// failed request is repeated (default 3, negative for none); Backoff is the
	// first wait between attempts (default 100ms, doubling).
	Timeout time.Duration
	Retries int
	Backoff time.Duration
	// BatchSize caps the JSON-RPC calls sent in one HTTP request (default 100).
	BatchSize int
	// HTTPClient is used for http(s) URLs; nil means a default client.
	HTTPClient *http.Client
}

// ForkStats count a Fork's work since it was opened.
type ForkStats struct {
	Requests   int64 // HTTP requests (batches) sent to the endpoint, retries included
	Calls      int64 // JSON-RPC calls in them
	Hits       int64 // reads served from memory or the cache file
	Fetched    int64 // accounts, slots, codes and block hashes fetched
	Deduped    int64 // reads that waited for a concurrent fetch of the same item
	CacheItems int   // accounts + slots + codes + block hashes held
}

// Fork is the state of a chain at one block, loaded lazily from a JSON-RPC
// endpoint and/or a cache file. It implements go-ethereum's state.Reader and
// is safe for concurrent use by several Envs.
type Fork struct {
	cfg     ForkConfig
	path    string
	chainID uint64
	header  cacheHeader

	client    *rpc.Client
	ctx       context.Context
	cancel    context.CancelFunc
	requests  atomic.Int64
	calls     atomic.Int64
	hits      atomic.Int64
	fetched   atomic.Int64
	deduped   atomic.Int64
	closeOnce sync.Once

	mu       sync.Mutex
	accounts map[common.Address]*cacheAccount
	codes    map[common.Hash]hexutil.Bytes
	storage  map[common.Address]map[common.Hash]common.Hash
	hashes   map[uint64]common.Hash
	inflight map[fetchKey]*flight
	dirty    bool
	sticky   error // first failure of a read that cannot return an error
}

type fetchKind uint8

const (
	kindAccount fetchKind = iota
	kindStorage
	kindCode
	kindBlockHash
)

type fetchKey struct {
	kind fetchKind
	addr common.Address
	slot common.Hash // storage slot, or code hash
	num  uint64
}

type flight struct {
	done chan struct{}
	err  error
}

// parseBlock parses a pinned block reference.
func parseBlock(s string) (number uint64, hash common.Hash, isHash bool, err error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", "latest", "pending", "safe", "finalized", "earliest":
		return 0, common.Hash{}, false, fmt.Errorf("%w: %q", ErrUnpinnedBlock, s)
	}
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		if len(s) == 66 {
			b, err := hexutil.Decode(s)
			if err != nil {
				return 0, common.Hash{}, false, fmt.Errorf("evm: fork block %q: %w", s, err)
			}
			return 0, common.BytesToHash(b), true, nil
		}
		n, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil {
			return 0, common.Hash{}, false, fmt.Errorf("evm: fork block %q is not a number or a 32-byte hash", s)
		}
		return n, common.Hash{}, false, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, common.Hash{}, false, fmt.Errorf("evm: fork block %q is not a number or a 32-byte hash", s)
	}
	return n, common.Hash{}, false, nil
}

// PinLatest asks url for its latest block number and returns it as a Block
// string for ForkConfig: the explicit way to fork "now".
func PinLatest(ctx context.Context, url string) (string, error) {
	c, err := rpc.DialContext(ctx, url)
	if err != nil {
		return "", fmt.Errorf("evm: dial %s: %w", url, err)
	}
	defer c.Close()
	var n hexutil.Uint64
	if err := c.CallContext(ctx, &n, "eth_blockNumber"); err != nil {
		return "", &RPCError{URL: url, Method: "eth_blockNumber", Attempts: 1, Err: err}
	}
	return strconv.FormatUint(uint64(n), 10), nil
}

// countingTransport counts HTTP requests.
type countingTransport struct {
	base http.RoundTripper
	n    *atomic.Int64
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.n.Add(1)
	return t.base.RoundTrip(r)
}

// OpenFork opens the state of cfg.URL at cfg.Block. In Live and Record mode it
// checks, in one batch, the chain id, the block and that the endpoint can
// serve state at it; the block hash is recorded (Fork.Block().Hash). In
// Record mode an existing cache file must be for the same chain id, block
// number and block hash. In ReplayOnly mode nothing is sent anywhere.
func OpenFork(ctx context.Context, cfg ForkConfig) (*Fork, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Retries == 0 {
		cfg.Retries = 3
	} else if cfg.Retries < 0 {
		cfg.Retries = 0
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 100 * time.Millisecond
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 100
	}
	if cfg.Mode != Live && cfg.Mode != Record && cfg.Mode != ReplayOnly {
		return nil, fmt.Errorf("evm: unknown fork mode %d", int(cfg.Mode))
	}
	if cfg.Mode != Live && cfg.CachePath == "" && cfg.CacheDir == "" {
		return nil, fmt.Errorf("evm: %s mode needs CachePath or CacheDir", cfg.Mode)
	}
	f := &Fork{
		cfg:      cfg,
		accounts: map[common.Address]*cacheAccount{},
		codes:    map[common.Hash]hexutil.Bytes{},
		storage:  map[common.Address]map[common.Hash]common.Hash{},
		hashes:   map[uint64]common.Hash{},
		inflight: map[fetchKey]*flight{},
	}
	f.ctx, f.cancel = context.WithCancel(context.Background())
	if cfg.Mode == ReplayOnly {
		if err := f.openReplay(); err != nil {
			f.cancel()
			return nil, err
		}
		return f, nil
	}
	if err := f.openRemote(ctx); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func (f *Fork) openReplay() error {
	cfg := f.cfg
	var number uint64
	var hash common.Hash
	var isHash bool
	if cfg.Block != "" {
		var err error
		if number, hash, isHash, err = parseBlock(cfg.Block); err != nil {
			return err
		}
	}
	f.path = cfg.CachePath
	if f.path == "" {
		if cfg.ChainID == 0 || cfg.Block == "" || isHash {
			return errors.New("evm: replay-only with CacheDir needs ChainID and a block number (or give CachePath)")
		}
		f.path = CachePath(cfg.CacheDir, cfg.ChainID, number)
	}
	c, err := readCache(f.path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return &CacheError{Path: f.path, Err: errors.New("replay-only mode needs a recorded cache, and there is none")}
		}
		return err
	}
	if cfg.ChainID != 0 && c.ChainID != cfg.ChainID {
		return &CacheMismatchError{Path: f.path, Field: "chain_id", Got: fmt.Sprint(c.ChainID), Want: fmt.Sprint(cfg.ChainID)}
	}
	if cfg.Block != "" {
		if isHash && c.Block.Hash != hash {
			return &CacheMismatchError{Path: f.path, Field: "block.hash", Got: c.Block.Hash.Hex(), Want: hash.Hex()}
		}
		if !isHash && c.Block.Number != number {
			return &CacheMismatchError{Path: f.path, Field: "block.number", Got: fmt.Sprint(c.Block.Number), Want: fmt.Sprint(number)}
		}
	}
	f.adopt(c)
	return nil
}

func (f *Fork) adopt(c *cacheFile) {
	f.chainID, f.header = c.ChainID, c.Block
	f.accounts, f.codes, f.storage, f.hashes = c.Accounts, c.Codes, c.Storage, c.BlockHashes
}

// rpcHeader is the subset of a JSON-RPC block the fork uses.
type rpcHeader struct {
	Number     hexutil.Uint64 `json:"number"`
	Hash       common.Hash    `json:"hash"`
	ParentHash common.Hash    `json:"parentHash"`
	StateRoot  common.Hash    `json:"stateRoot"`
	Timestamp  hexutil.Uint64 `json:"timestamp"`
	GasLimit   hexutil.Uint64 `json:"gasLimit"`
	BaseFee    *hexutil.Big   `json:"baseFeePerGas"`
	Miner      common.Address `json:"miner"`
	MixHash    common.Hash    `json:"mixHash"`
}

func (f *Fork) openRemote(ctx context.Context) error {
	cfg := f.cfg
	number, hash, isHash, err := parseBlock(cfg.Block)
	if err != nil {
		return err
	}
	if cfg.URL == "" {
		return errors.New("evm: fork URL is empty")
	}
	var opts []rpc.ClientOption
	if strings.HasPrefix(cfg.URL, "http://") || strings.HasPrefix(cfg.URL, "https://") {
		hc := cfg.HTTPClient
		if hc == nil {
			hc = &http.Client{}
		}
		base := hc.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		counted := *hc
		counted.Transport = countingTransport{base: base, n: &f.requests}
		opts = append(opts, rpc.WithHTTPClient(&counted))
	}
	if f.client, err = rpc.DialOptions(ctx, cfg.URL, opts...); err != nil {
		return fmt.Errorf("evm: dial fork endpoint %s: %w", cfg.URL, err)
	}

	var chainID hexutil.Uint64
	var head *rpcHeader
	elems := []rpc.BatchElem{{Method: "eth_chainId", Result: &chainID}}
	if isHash {
		elems = append(elems, rpc.BatchElem{Method: "eth_getBlockByHash", Args: []any{hash, false}, Result: &head})
	} else {
		elems = append(elems, rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.Uint64(number), false}, Result: &head})
	}
	if err := f.batch(ctx, elems, "block "+cfg.Block); err != nil {
		return err
	}
	for _, el := range elems {
		if el.Error != nil {
			return &RPCError{URL: cfg.URL, Method: el.Method, What: "block " + cfg.Block, Attempts: 1, Err: el.Error}
		}
	}
	if head == nil {
		return fmt.Errorf("%w: %s at %s", ErrUnknownBlock, cfg.Block, cfg.URL)
	}
	if cfg.ChainID != 0 && uint64(chainID) != cfg.ChainID {
		return fmt.Errorf("evm: fork endpoint %s serves chain %d, want %d", cfg.URL, uint64(chainID), cfg.ChainID)
	}
	f.chainID = uint64(chainID)
	f.header = cacheHeader{
		Number: uint64(head.Number), Hash: head.Hash, ParentHash: head.ParentHash, StateRoot: head.StateRoot,
		Timestamp: uint64(head.Timestamp), GasLimit: uint64(head.GasLimit), BaseFee: head.BaseFee,
		Coinbase: head.Miner, PrevRandao: head.MixHash,
	}

	// Can the endpoint serve state at this block? (A pruned node knows the
	// header but not the state.)
	var probe hexutil.Big
	pe := []rpc.BatchElem{{Method: "eth_getBalance", Args: []any{f.header.Coinbase, f.blockArg()}, Result: &probe}}
	if err := f.batch(ctx, pe, "state probe"); err != nil {
		return err
	}
	if pe[0].Error != nil {
		return fmt.Errorf("%w: block %d at %s: %v", ErrStateUnavailable, f.header.Number, cfg.URL, pe[0].Error)
	}

	if cfg.Mode == Record {
		f.path = cfg.CachePath
		if f.path == "" {
			f.path = CachePath(cfg.CacheDir, f.chainID, f.header.Number)
		}
		c, err := readCache(f.path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			// First recording.
		case err != nil:
			return err
		case c.ChainID != f.chainID:
			return &CacheMismatchError{Path: f.path, Field: "chain_id", Got: fmt.Sprint(c.ChainID), Want: fmt.Sprint(f.chainID)}
		case c.Block.Number != f.header.Number:
			return &CacheMismatchError{Path: f.path, Field: "block.number", Got: fmt.Sprint(c.Block.Number), Want: fmt.Sprint(f.header.Number)}
		case c.Block.Hash != f.header.Hash:
			return &CacheMismatchError{Path: f.path, Field: "block.hash", Got: c.Block.Hash.Hex(), Want: f.header.Hash.Hex()}
		default:
			f.adopt(c)
		}
	}
	return nil
}

func (f *Fork) blockArg() hexutil.Uint64 { return hexutil.Uint64(f.header.Number) }

// batch sends elems as one JSON-RPC batch with the per-request timeout,
// retrying transport failures with exponential backoff. Errors of single
// calls are left in elems[i].Error.
func (f *Fork) batch(ctx context.Context, elems []rpc.BatchElem, what string) error {
	if f.client == nil {
		return errors.New("evm: fork has no endpoint (replay-only)")
	}
	wait := f.cfg.Backoff
	for attempt := 1; ; attempt++ {
		for i := range elems {
			elems[i].Error = nil
		}
		f.calls.Add(int64(len(elems)))
		rctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
		err := f.client.BatchCallContext(rctx, elems)
		timedOut := rctx.Err() == context.DeadlineExceeded
		cancel()
		if err == nil {
			return nil
		}
		if timedOut {
			err = fmt.Errorf("request timed out after %v: %w", f.cfg.Timeout, err)
		}
		if attempt > f.cfg.Retries || ctx.Err() != nil {
			return &RPCError{URL: f.cfg.URL, Method: elems[0].Method, What: what, Attempts: attempt, Err: err}
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return &RPCError{URL: f.cfg.URL, Method: elems[0].Method, What: what, Attempts: attempt, Err: ctx.Err()}
		}
		wait *= 2
	}
}

// ChainID is the chain the state belongs to.
func (f *Fork) ChainID() uint64 { return f.chainID }

// Mode is the mode the Fork was opened in.
func (f *Fork) Mode() Mode { return f.cfg.Mode }

// CachePath is the cache file ("" in Live mode).
func (f *Fork) CachePath() string { return f.path }

// Block is the pinned block as an Env's block context; Hash is the block hash
// the state was pinned to.
func (f *Fork) Block() Block {
	b := Block{
		Number: f.header.Number, Time: f.header.Timestamp, GasLimit: f.header.GasLimit,
		Coinbase: f.header.Coinbase, PrevRandao: f.header.PrevRandao, Hash: f.header.Hash,
	}
	if f.header.BaseFee != nil {
		b.BaseFee = new(big.Int).Set(f.header.BaseFee.ToInt())
	}
	return b
}

// StateRoot is the pinned block's state root (recorded, never opened).
func (f *Fork) StateRoot() common.Hash { return f.header.StateRoot }

// Stats returns the Fork's counters.
func (f *Fork) Stats() ForkStats {
	f.mu.Lock()
	items := len(f.accounts) + len(f.codes) + len(f.hashes)
	for _, s := range f.storage {
		items += len(s)
	}
	f.mu.Unlock()
	return ForkStats{
		Requests: f.requests.Load(), Calls: f.calls.Load(), Hits: f.hits.Load(),
		Fetched: f.fetched.Load(), Deduped: f.deduped.Load(), CacheItems: items,
	}
}

// Save writes the cache file (Record mode; a no-op when nothing was fetched).
func (f *Fork) Save() error {
	if f.cfg.Mode != Record {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.dirty {
		if _, err := os.Stat(f.path); err == nil {
			return nil
		}
	}
	c := &cacheFile{
		Format: cacheFormat, Version: cacheVersion, ChainID: f.chainID, Block: f.header,
		Accounts: f.accounts, Codes: f.codes, Storage: f.storage, BlockHashes: f.hashes,
	}
	if err := writeCache(f.path, c); err != nil {
		return err
	}
	f.dirty = false
	return nil
}

// Close saves the cache (Record mode) and releases the connection. State
// already loaded stays readable.
func (f *Fork) Close() error {
	var err error
	f.closeOnce.Do(func() {
		if f.header.Hash != (common.Hash{}) {
			err = f.Save()
		}
		if f.client != nil {
			f.client.Close()
		}
		f.cancel()
	})
	return err
}

// Prefetch loads the given accounts (with code) and storage slots in as few
// batched requests as BatchSize allows, so that a later execution that reads
// them needs none. In ReplayOnly mode it reports the first item missing.
func (f *Fork) Prefetch(ctx context.Context, accounts []common.Address, slots map[common.Address][]common.Hash) error {
	var keys []fetchKey
	for _, a := range accounts {
		keys = append(keys, fetchKey{kind: kindAccount, addr: a})
	}
	for a, ss := range slots {
		for _, s := range ss {
			keys = append(keys, fetchKey{kind: kindStorage, addr: a, slot: s})
		}
	}
	return f.load(ctx, keys)
}

// has reports whether k is held; f.mu must be held.
func (f *Fork) has(k fetchKey) bool {
	switch k.kind {
	case kindAccount:
		_, ok := f.accounts[k.addr]
		return ok
	case kindStorage:
		_, ok := f.storage[k.addr][k.slot]
		return ok
	case kindCode:
		_, ok := f.codes[k.slot]
		return ok
	case kindBlockHash:
		_, ok := f.hashes[k.num]
		return ok
	}
	return false
}

func missFor(k fetchKey) *MissError {
	switch k.kind {
	case kindStorage:
		return &MissError{Kind: "storage", Address: k.addr, Slot: k.slot}
	case kindCode:
		return &MissError{Kind: "code", Address: k.addr, Hash: k.slot}
	case kindBlockHash:
		return &MissError{Kind: "block hash", Number: k.num}
	}
	return &MissError{Kind: "account", Address: k.addr}
}

// load makes sure every key is held: fetched now, or by a concurrent load of
// the same key (waited for, not fetched twice).
func (f *Fork) load(ctx context.Context, keys []fetchKey) error {
	f.mu.Lock()
	var mine []fetchKey
	var mineFl []*flight
	var waits []*flight
	for _, k := range keys {
		if f.has(k) {
			continue
		}
		if f.cfg.Mode == ReplayOnly {
			f.mu.Unlock()
			return missFor(k)
		}
		if fl, ok := f.inflight[k]; ok {
			waits = append(waits, fl)
			f.deduped.Add(1)
			continue
		}
		fl := &flight{done: make(chan struct{})}
		f.inflight[k] = fl
		mine = append(mine, k)
		mineFl = append(mineFl, fl)
	}
	f.mu.Unlock()

	var err error
	for start := 0; start < len(mine); {
		end, calls := start, 0
		for end < len(mine) && calls < f.cfg.BatchSize {
			calls += callsFor(mine[end].kind)
			end++
		}
		if ferr := f.fetch(ctx, mine[start:end], mineFl[start:end]); ferr != nil && err == nil {
			err = ferr
		}
		start = end
	}
	for _, fl := range waits {
		<-fl.done
		if fl.err != nil && err == nil {
			err = fl.err
		}
	}
	return err
}

func callsFor(k fetchKind) int {
	if k == kindAccount {
		return 3
	}
	return 1
}

type accountReply struct {
	balance hexutil.Big
	nonce   hexutil.Uint64
	code    hexutil.Bytes
}

// fetch sends one batch for keys and resolves their flights.
func (f *Fork) fetch(ctx context.Context, keys []fetchKey, fls []*flight) error {
	blk := f.blockArg()
	elems := make([]rpc.BatchElem, 0, len(keys)*2)
	accts := make([]*accountReply, len(keys))
	slots := make([]*common.Hash, len(keys))
	heads := make([]*rpcHeader, len(keys))
	for i, k := range keys {
		switch k.kind {
		case kindAccount, kindCode:
			r := new(accountReply)
			accts[i] = r
			if k.kind == kindAccount {
				elems = append(elems,
					rpc.BatchElem{Method: "eth_getBalance", Args: []any{k.addr, blk}, Result: &r.balance},
					rpc.BatchElem{Method: "eth_getTransactionCount", Args: []any{k.addr, blk}, Result: &r.nonce})
			}
			elems = append(elems, rpc.BatchElem{Method: "eth_getCode", Args: []any{k.addr, blk}, Result: &r.code})
		case kindStorage:
			slots[i] = new(common.Hash)
			elems = append(elems, rpc.BatchElem{Method: "eth_getStorageAt", Args: []any{k.addr, k.slot, blk}, Result: slots[i]})
		case kindBlockHash:
			elems = append(elems, rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.Uint64(k.num), false}, Result: &heads[i]})
		}
	}
	what := describe(keys[0])
	if len(keys) > 1 {
		what += fmt.Sprintf(" and %d more", len(keys)-1)
	}
	err := f.batch(f.ctx, elems, what)
	_ = ctx // requests run under the Fork's context and per-request timeout

	// Per-key errors.
	errs := make([]error, len(keys))
	if err != nil {
		for i := range errs {
			errs[i] = err
		}
	} else {
		e := 0
		for i, k := range keys {
			n := 1
			if k.kind == kindAccount {
				n = 3
			}
			for _, el := range elems[e : e+n] {
				if el.Error != nil && errs[i] == nil {
					errs[i] = &RPCError{URL: f.cfg.URL, Method: el.Method, What: describe(k), Attempts: 1, Err: el.Error}
				}
			}
			e += n
			if errs[i] == nil && k.kind == kindBlockHash && heads[i] == nil {
				errs[i] = fmt.Errorf("%w: block %d (for BLOCKHASH) at %s", ErrUnknownBlock, k.num, f.cfg.URL)
			}
			if errs[i] == nil && k.kind == kindCode {
				if h := crypto.Keccak256Hash(accts[i].code); h != k.slot {
					errs[i] = fmt.Errorf("evm: fork: code of %s hashes to %s, want %s", k.addr.Hex(), h.Hex(), k.slot.Hex())
				}
			}
		}
	}

	f.mu.Lock()
	for i, k := range keys {
		if errs[i] == nil {
			f.fetched.Add(1)
			f.dirty = true
			switch k.kind {
			case kindAccount:
				r := accts[i]
				if r.balance.ToInt().Sign() == 0 && r.nonce == 0 && len(r.code) == 0 {
					f.accounts[k.addr] = nil // does not exist
				} else {
					h := crypto.Keccak256Hash(r.code)
					f.codes[h] = r.code
					bal := r.balance
					f.accounts[k.addr] = &cacheAccount{Balance: &bal, Nonce: r.nonce, CodeHash: h}
				}
			case kindCode:
				f.codes[k.slot] = accts[i].code
			case kindStorage:
				m := f.storage[k.addr]
				if m == nil {
					m = map[common.Hash]common.Hash{}
					f.storage[k.addr] = m
				}
				m[k.slot] = *slots[i]
			case kindBlockHash:
				f.hashes[k.num] = heads[i].Hash
			}
		}
		fls[i].err = errs[i]
		delete(f.inflight, k)
		close(fls[i].done)
	}
	f.mu.Unlock()
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func describe(k fetchKey) string {
	switch k.kind {
	case kindStorage:
		return "storage of " + k.addr.Hex() + " slot " + k.slot.Hex()
	case kindCode:
		return "code of " + k.addr.Hex()
	case kindBlockHash:
		return "hash of block " + strconv.FormatUint(k.num, 10)
	}
	return "account " + k.addr.Hex()
}

func (f *Fork) noteSticky(err error) {
	f.mu.Lock()
	if f.sticky == nil {
		f.sticky = err
	}
	f.mu.Unlock()
}

// codeErr returns the first failure of a read that go-ethereum's reader
// interface cannot report (code, block hashes).
func (f *Fork) codeErr() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sticky
}

// Account implements state.Reader: nil for an account that does not exist.
func (f *Fork) Account(addr common.Address) (*types.StateAccount, error) {
	k := fetchKey{kind: kindAccount, addr: addr}
	f.mu.Lock()
	a, ok := f.accounts[addr]
	f.mu.Unlock()
	if !ok {
		if err := f.load(f.ctx, []fetchKey{k}); err != nil {
			return nil, err
		}
		f.mu.Lock()
		a = f.accounts[addr]
		f.mu.Unlock()
	} else {
		f.hits.Add(1)
	}
	if a == nil {
		return nil, nil
	}
	bal, _ := uint256.FromBig(a.Balance.ToInt())
	return &types.StateAccount{
		Nonce:    uint64(a.Nonce),
		Balance:  bal,
		Root:     types.EmptyRootHash, // unknown and unused: the trie is never opened
		CodeHash: a.CodeHash.Bytes(),
	}, nil
}

// Storage implements state.Reader.
func (f *Fork) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	f.mu.Lock()
	v, ok := f.storage[addr][slot]
	f.mu.Unlock()
	if ok {
		f.hits.Add(1)
		return v, nil
	}
	if err := f.load(f.ctx, []fetchKey{{kind: kindStorage, addr: addr, slot: slot}}); err != nil {
		return common.Hash{}, err
	}
	f.mu.Lock()
	v = f.storage[addr][slot]
	f.mu.Unlock()
	return v, nil
}

// Code implements state.ContractCodeReader. The interface has no error
// result: a failure is kept and returned by the Env after execution.
func (f *Fork) Code(addr common.Address, codeHash common.Hash) []byte {
	if codeHash == types.EmptyCodeHash || codeHash == (common.Hash{}) {
		return nil
	}
	f.mu.Lock()
	c, ok := f.codes[codeHash]
	f.mu.Unlock()
	if ok {
		f.hits.Add(1)
		return c
	}
	if err := f.load(f.ctx, []fetchKey{{kind: kindCode, addr: addr, slot: codeHash}}); err != nil {
		f.noteSticky(err)
		return nil
	}
	f.mu.Lock()
	c = f.codes[codeHash]
	f.mu.Unlock()
	return c
}

// CodeSize implements state.ContractCodeReader.
func (f *Fork) CodeSize(addr common.Address, codeHash common.Hash) int {
	return len(f.Code(addr, codeHash))
}

// Has implements state.ContractCodeReader.
func (f *Fork) Has(addr common.Address, codeHash common.Hash) bool {
	return len(f.Code(addr, codeHash)) > 0
}

// blockHash returns the hash of block n (n <= the pinned block).
func (f *Fork) blockHash(n uint64) common.Hash {
	if n == f.header.Number {
		return f.header.Hash
	}
	if n+1 == f.header.Number {
		return f.header.ParentHash
	}
	f.mu.Lock()
	h, ok := f.hashes[n]
	f.mu.Unlock()
	if ok {
		f.hits.Add(1)
		return h
	}
	if err := f.load(f.ctx, []fetchKey{{kind: kindBlockHash, num: n}}); err != nil {
		f.noteSticky(err)
		return common.Hash{}
	}
	f.mu.Lock()
	h = f.hashes[n]
	f.mu.Unlock()
	return h
}
