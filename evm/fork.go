package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agentflightrecorder/afr/internal/rpcdial"
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
	// Client, when set, answers the fork's JSON-RPC instead of a client
	// dialed to URL: an in-process chain's (chain/backend's Attacher), with
	// no HTTP. The Fork neither dials nor closes it; Stats.Requests counts
	// no HTTP requests for it. URL then only names the endpoint in errors
	// ("in-process client" when empty).
	Client *rpc.Client
	// ChainConfig, when set, is the fork rules, whatever the chain id, the
	// endpoint or the cache file say; its chain id must be the fork's. When
	// nil the rules are discovered (see "Fork rules" in the package doc).
	ChainConfig *params.ChainConfig
	// Hardfork, when set, names the fork rules instead: every fork up to
	// and including it active from genesis (HardforkConfig, with the
	// fork's chain id), as a development chain started with --hardfork
	// runs. Not together with ChainConfig.
	Hardfork string
	// AbsentIsEmpty (ReplayOnly only) reads an account or storage slot the
	// cache does not hold as nonexistent / zero instead of a *MissError: for
	// a cache written from a complete pre-state (WritePrestate) rather than
	// recorded from an endpoint. Missing code of a present code hash and
	// missing block hashes are still a *MissError.
	AbsentIsEmpty bool
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
	chain   *params.ChainConfig
	rules   string   // where chain came from (RulesSource)
	blobFee *big.Int // of the pinned block under chain; nil before Cancun

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

// OpenFork opens the state of cfg.URL at cfg.Block. In Live and Record mode it
// checks, in one batch, the chain id, the block and that the endpoint can
// serve state at it; the block hash is recorded (Fork.Block().Hash). The
// fork rules are settled at open, with no request of their own (see "Fork
// rules" in the package doc); a chain whose rules are neither given, known
// nor answered by the endpoint is a *UnknownChainError. In
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
	if cfg.Client != nil && cfg.URL == "" {
		cfg.URL = "in-process client"
	}
	if cfg.Mode != Live && cfg.Mode != Record && cfg.Mode != ReplayOnly {
		return nil, fmt.Errorf("evm: unknown fork mode %d", int(cfg.Mode))
	}
	if cfg.AbsentIsEmpty && cfg.Mode != ReplayOnly {
		return nil, fmt.Errorf("evm: AbsentIsEmpty is for a cache written from a pre-state and needs ReplayOnly mode, not %s (in %s mode a missing item is fetched)", cfg.Mode, cfg.Mode)
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
	var want cacheWant
	if cfg.ChainID != 0 {
		want.chainID = &cfg.ChainID
	}
	if cfg.Block != "" {
		if isHash {
			want.hash = &hash
		} else {
			want.number = &number
		}
	}
	if err := want.check(f.path, c); err != nil {
		return err
	}
	f.adopt(c)
	given, source, err := cfg.givenRules(f.chainID)
	switch {
	case err != nil:
		return err
	case given != nil:
		return f.setRules(given, source)
	case c.chain != nil:
		return f.setRules(c.chain, "fork cache chain_config")
	}
	chain, err := ChainConfigFor(f.chainID)
	if err != nil {
		return fmt.Errorf("fork cache %s (version %d) records no chain_config: %w", f.path, c.Version, err)
	}
	return f.setRules(chain, fmt.Sprintf("go-ethereum config for chain %d", f.chainID))
}

// rulesGiven reports whether the configuration names the rules.
func (cfg *ForkConfig) rulesGiven() bool { return cfg.ChainConfig != nil || cfg.Hardfork != "" }

// givenRules returns the rules the configuration names for chain chainID,
// and how it named them; nil when it names none.
func (cfg *ForkConfig) givenRules(chainID uint64) (*params.ChainConfig, string, error) {
	switch {
	case cfg.ChainConfig != nil && cfg.Hardfork != "":
		return nil, "", errors.New("evm: fork rules: give ChainConfig or Hardfork, not both")
	case cfg.ChainConfig != nil:
		return cfg.ChainConfig, "given", nil
	case cfg.Hardfork != "":
		c, err := HardforkConfig(cfg.Hardfork, chainID)
		return c, "hardfork " + cfg.Hardfork + " (given)", err
	}
	return nil, "", nil
}

// setRules adopts chain as the fork's rules, checking it is for the fork's
// chain, and derives the pinned block's blob base fee under it.
func (f *Fork) setRules(chain *params.ChainConfig, source string) error {
	if chain.ChainID == nil {
		return fmt.Errorf("evm: fork rules (%s) have no chain id; chain %d's are needed", source, f.chainID)
	}
	if !chain.ChainID.IsUint64() || chain.ChainID.Uint64() != f.chainID {
		return fmt.Errorf("evm: fork rules (%s) are for chain %s, the fork is chain %d", source, chain.ChainID, f.chainID)
	}
	f.chain, f.rules, f.blobFee = chain, source, nil
	if f.header.ExcessBlobGas != nil {
		fee, err := BlobBaseFee(chain, f.header.Number, f.header.Timestamp, uint64(*f.header.ExcessBlobGas))
		if err != nil {
			return fmt.Errorf("%w (fork rules: %s)", err, source)
		}
		f.blobFee = fee
	}
	return nil
}

// cacheWant is the chain and block a cache file must have been recorded for;
// a nil field is not checked.
type cacheWant struct {
	chainID *uint64
	number  *uint64
	hash    *common.Hash
}

// check returns a *CacheMismatchError for the first of chain id, block number
// and block hash in which c differs from w.
func (w cacheWant) check(path string, c *cacheFile) error {
	switch {
	case w.chainID != nil && c.ChainID != *w.chainID:
		return &CacheMismatchError{Path: path, Field: "chain_id", Got: fmt.Sprint(c.ChainID), Want: fmt.Sprint(*w.chainID)}
	case w.number != nil && c.Block.Number != *w.number:
		return &CacheMismatchError{Path: path, Field: "block.number", Got: fmt.Sprint(c.Block.Number), Want: fmt.Sprint(*w.number)}
	case w.hash != nil && c.Block.Hash != *w.hash:
		return &CacheMismatchError{Path: path, Field: "block.hash", Got: c.Block.Hash.Hex(), Want: w.hash.Hex()}
	}
	return nil
}

func (f *Fork) adopt(c *cacheFile) {
	f.chainID, f.header = c.ChainID, c.Block
	f.accounts, f.codes, f.storage, f.hashes = c.Accounts, c.Codes, c.Storage, c.BlockHashes
}

func (f *Fork) openRemote(ctx context.Context) error {
	cfg := f.cfg
	number, hash, isHash, err := parseBlock(cfg.Block)
	if err != nil {
		return err
	}
	switch {
	case cfg.Client != nil:
		f.client = cfg.Client
	case cfg.URL == "":
		return errors.New("evm: fork URL is empty")
	default:
		if f.client, err = rpcdial.Dial(ctx, cfg.URL, cfg.HTTPClient, &f.requests); err != nil {
			return fmt.Errorf("evm: dial fork endpoint %s: %w", cfg.URL, err)
		}
	}

	var chainID hexutil.Uint64
	var head *rpcHeader
	elems := []rpc.BatchElem{{Method: "eth_chainId", Result: &chainID}}
	if isHash {
		elems = append(elems, rpc.BatchElem{Method: "eth_getBlockByHash", Args: []any{hash, false}, Result: &head})
	} else {
		elems = append(elems, rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.Uint64(number), false}, Result: &head})
	}
	// The rules questions ride along with the first batch when the chain
	// is named and its rules are not known here, else with the second.
	var ask *rulesQuery
	if !cfg.rulesGiven() && cfg.ChainID != 0 {
		if _, err := ChainConfigFor(cfg.ChainID); err != nil {
			ask = new(rulesQuery)
			elems = append(elems, ask.elems()...)
		}
	}
	if err := f.batch(ctx, elems, "block "+cfg.Block); err != nil {
		return err
	}
	for _, el := range elems[:2] {
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
		Coinbase: head.Miner, PrevRandao: head.MixHash, ExcessBlobGas: head.ExcessBlobGas,
	}
	if head.Difficulty != nil && head.Difficulty.ToInt().Sign() != 0 {
		f.header.Difficulty = head.Difficulty
	}

	// Can the endpoint serve state at this block? (A pruned node knows the
	// header but not the state.)
	var probe hexutil.Big
	pe := []rpc.BatchElem{{Method: "eth_getBalance", Args: []any{f.header.Coinbase, f.blockArg()}, Result: &probe}}
	known, knownErr := ChainConfigFor(f.chainID)
	if ask == nil && !cfg.rulesGiven() && knownErr != nil {
		ask = new(rulesQuery)
		pe = append(pe, ask.elems()...)
	}
	if err := f.batch(ctx, pe, "state probe"); err != nil {
		return err
	}
	if pe[0].Error != nil {
		return fmt.Errorf("%w: block %d at %s: %v", ErrStateUnavailable, f.header.Number, cfg.URL, pe[0].Error)
	}
	given, source, err := cfg.givenRules(f.chainID)
	switch {
	case err != nil:
	case given != nil:
		err = f.setRules(given, source)
	case knownErr == nil:
		err = f.setRules(known, fmt.Sprintf("go-ethereum config for chain %d", f.chainID))
	default:
		var chain *params.ChainConfig
		var source string
		if chain, source, err = ask.answer(f.chainID); err == nil {
			err = f.setRules(chain, source)
		}
	}
	if err != nil {
		return err
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
		default:
			want := cacheWant{chainID: &f.chainID, number: &f.header.Number, hash: &f.header.Hash}
			if err := want.check(f.path, c); err != nil {
				return err
			}
			f.adopt(c)
		}
	}
	return nil
}

// ChainID is the chain the state belongs to.
func (f *Fork) ChainID() uint64 { return f.chainID }

// ChainConfig is the fork rules: given, go-ethereum's for a known chain,
// answered by the endpoint, or recorded in the cache (RulesSource says which).
func (f *Fork) ChainConfig() *params.ChainConfig { return f.chain }

// RulesSource says where ChainConfig came from: "given", "go-ethereum config
// for chain N", "debug_chainConfig", "anvil_nodeInfo hardfork NAME" or "fork
// cache chain_config".
func (f *Fork) RulesSource() string { return f.rules }

// Mode is the mode the Fork was opened in.
func (f *Fork) Mode() Mode { return f.cfg.Mode }

// CachePath is the cache file ("" in Live mode).
func (f *Fork) CachePath() string { return f.path }

// Block is the pinned block as an Env's block context; Hash is the block hash
// the state was pinned to. Difficulty is the header's (nil after the merge);
// BlobBaseFee follows from the header's excess blob gas under the fork rules
// (nil before Cancun).
func (f *Fork) Block() Block {
	b := Block{
		Number: f.header.Number, Time: f.header.Timestamp, GasLimit: f.header.GasLimit,
		Coinbase: f.header.Coinbase, PrevRandao: f.header.PrevRandao, Hash: f.header.Hash,
	}
	if f.header.BaseFee != nil {
		b.BaseFee = new(big.Int).Set(f.header.BaseFee.ToInt())
	}
	if f.header.Difficulty != nil {
		b.Difficulty = new(big.Int).Set(f.header.Difficulty.ToInt())
	}
	if f.blobFee != nil {
		b.BlobBaseFee = new(big.Int).Set(f.blobFee)
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
		Format: cacheFormat, Version: cacheVersion, ChainID: f.chainID, chain: f.chain, Block: f.header,
		Accounts: f.accounts, Codes: f.codes, Storage: f.storage, BlockHashes: f.hashes,
	}
	if err := writeCache(f.path, c); err != nil {
		return err
	}
	f.dirty = false
	return nil
}

// Close saves the cache (Record mode) and releases the connection it
// dialed (not ForkConfig.Client). State
// already loaded stays readable.
func (f *Fork) Close() error {
	var err error
	f.closeOnce.Do(func() {
		if f.header.Hash != (common.Hash{}) {
			err = f.Save()
		}
		if f.client != nil && f.cfg.Client == nil {
			f.client.Close()
		}
		f.cancel()
	})
	return err
}
