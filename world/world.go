package world

import (
	"context"
	cryptorand "crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/contracts/artifacts"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pace"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

// World is one chain with AFR deployed on it, a recorder wired to an
// anchorer, and the actors of a spec. Its state changes only through its
// methods, which keep the chain, the log, the policy and the agent flow
// consistent with one another. Methods are for one goroutine at a time,
// except Record, Position, AnchorWindow and AnchorQueue, which may also be
// called from other goroutines — but not during Revert or after Close.
type World struct {
	cfg Config
	// The selected fork's chain (SelectFork; the home chain unless another
	// is selected): where Send, calls, cheats, balances and traces go.
	*forkChain
	forks    []*fork // by ForkID; forks[HomeFork] is the chain the World started on
	selected ForkID

	actors                                                map[string]*Actor
	deployer, agent, operator, owner, attacker, policySig *Actor
	approvers                                             []*Actor

	deployment           chain.Deployment
	epochAnchor, account common.Address
	counter, sink        common.Address
	domain               pdr.Domain
	registry             *calldata.Registry
	codes                []*artifacts.Artifact // deployed code of known contracts (identify)
	policy               *pdr.Policy
	pace                 *pace.Agent

	// The log: recorder, keyring and anchorer on logDir, closed together
	// by Revert and reopened at the log's first use after it (openLog).
	// logMu guards the reopening; restore is the snapshot whose log is to
	// be reopened (nil while the log is open).
	rec      *recorder.Recorder
	anchorer *anchor.Anchorer
	keys     *recorder.Keyring
	logDir   string
	session  format.SessionID
	cancel   context.CancelFunc
	runDone  chan error
	logMu    sync.Mutex
	restore  *Snapshot

	tmp   string // a temporary root to remove on Close
	root  string // Dir or tmp: the log, snapshots and reverted logs
	start uint64 // the chain's time when the World started
	clock *stepClock
	rng   *lockedRand  // nil when the World follows the wall clock
	dirs  atomic.Int64 // snapshot and log directories made so far
	spent string       // the directory of the log reopened since the last Revert, removed at the next
	salt  uint64
	prank *prank // the sender of the next Sends (Prank, StartPrank)

	closeMu  sync.Mutex
	closed   bool
	closeErr error
}

// New starts the backend, funds the actors, deploys the contracts, opens
// the recorder and starts the anchorer. Close releases everything (always
// call it).
func New(ctx context.Context, cfg Config) (w *World, err error) {
	cfg = cfg.withDefaults()
	w = &World{cfg: cfg, actors: map[string]*Actor{}, registry: onchain.DefaultRegistry()}
	defer func() {
		if err != nil {
			_ = w.Close()
			w = nil
		}
	}()
	if err := w.startChain(ctx); err != nil {
		return w, err
	}
	if w.start, err = w.Now(ctx); err != nil {
		return w, fmt.Errorf("world: %w", err)
	}

	if err := w.fundActors(ctx, w.forkChain); err != nil {
		return w, err
	}
	w.deployer, w.agent, w.operator, w.owner, w.attacker = w.Actor("deployer"), w.Actor("agent"), w.Actor("operator"), w.Actor("owner"), w.Actor("attacker")
	w.policySig = w.Actor("policy-signer")
	for i := range cfg.Approvers {
		w.approvers = append(w.approvers, w.Actor(fmt.Sprintf("approver-%d", i+1)))
	}
	if err := w.deploy(ctx); err != nil {
		return w, err
	}
	w.root = cfg.Dir
	if w.root == "" {
		if w.tmp, err = tempRoot(); err != nil {
			return w, err
		}
		w.root = w.tmp
	}
	// The log's randomness derives from the seed and its clock starts at the
	// chain's time and advances 1 ms per reading: session, keys, event
	// times, and so roots, repeat from run to run. A World whose blocks
	// follow the wall clock takes the wall clock and the system's
	// randomness, as a deployed recorder does: its keys are its own.
	var random io.Reader = cryptorand.Reader
	if cfg.BlockTime == 0 {
		w.rng = &lockedRand{r: rand.NewChaCha8([32]byte(crypto.Keccak256([]byte("afrspec recorder"), big.NewInt(int64(cfg.Seed)).Bytes())))}
		w.clock = &stepClock{t: time.Unix(int64(w.start), 0).UTC()}
		random = w.rng
	}
	if _, err := io.ReadFull(random, w.session[:]); err != nil {
		return w, err
	}
	w.pace = &pace.Agent{Client: w.client, Domain: w.domain, Registry: w.registry,
		PolicySigner: w.policySig.Key, Lifetime: PDRLifetime, Now: w.Clock, Recorder: w}
	if err := w.openRecorder(ctx, filepath.Join(w.root, "log")); err != nil {
		return w, err
	}
	w.SetPolicy(cfg.Policy)
	cfg.Logf("world: on %s (chain %d): EpochAnchor %s, PaceSmartAccount %s, log %s", cfg.Backend, w.chainID, w.epochAnchor, w.account, w.logDir)
	return w, nil
}

// startChain starts the configured backend: the World's home chain, and
// the selected one until SelectFork. anvil stops when the World is closed,
// whatever the context of New.
func (w *World) startChain(ctx context.Context) (err error) {
	var home *fork // pinned by a fork backend
	opts := backend.Options{
		InProcess: backend.InProcessOptions{Keys: 1, GenesisTime: w.cfg.GenesisTime},
		// Without BlockTime, no periodic empty blocks: blocks are mined only
		// for transactions (the client the World sends through wakes the
		// miner at once), so block numbers and times repeat from run to run.
		// Served on a loopback port too, so that tracesim replays its
		// transactions (World.Replay) as it does anvil's.
		Embedded: backend.EmbeddedOptions{Keys: 1, BlockPeriod: -1, GenesisTime: w.cfg.GenesisTime, HTTP: "127.0.0.1:0"},
		Anvil:    w.anvilOptions(),
	}
	if bt := w.cfg.BlockTime; bt != 0 {
		opts.Embedded.BlockPeriod = bt
	}
	switch w.cfg.Backend {
	case backend.KindInProcess:
		if w.cfg.BlockTime != 0 {
			return ErrInProcessBlockTime
		}
	case backend.KindAnvil:
		// The embedded chain's id, rules and clock: same EIP-712 domains,
		// signatures, calldata and so gas on both local backends.
		opts.Anvil.ChainID, opts.Anvil.Timestamp = backend.EmbeddedChainID, w.cfg.GenesisTime
		if opts.Anvil.Hardfork == "" {
			opts.Anvil.Hardfork = "prague"
		}
	case backend.KindFork:
		rpcURL, block := w.cfg.ForkRPC, w.cfg.ForkBlock
		if rpcURL == "" {
			rpcURL = os.Getenv(EnvForkRPC)
		}
		if block == 0 {
			if s := os.Getenv(EnvForkBlock); s != "" {
				var err error
				if block, err = strconv.ParseUint(s, 0, 64); err != nil {
					return fmt.Errorf("world: %s=%q: %w", EnvForkBlock, s, err)
				}
			}
		}
		if rpcURL == "" || block == 0 {
			return fmt.Errorf("%w (set Config.ForkRPC and Config.ForkBlock, or %s and %s)", ErrForkUnpinned, EnvForkRPC, EnvForkBlock)
		}
		if home, err = pin(ctx, rpcURL, block); err != nil {
			return err
		}
		if err := w.forkCache(&opts.Anvil, home); err != nil {
			return err
		}
		opts.Anvil.ForkURL, opts.Anvil.ForkBlock = rpcURL, block
	}
	b, err := backend.Start(context.Background(), w.cfg.Backend, opts)
	if err != nil {
		return fmt.Errorf("world: starting the %s backend: %w", w.cfg.Backend, err)
	}
	if c, ok := b.(*backend.InProcess); ok && w.cfg.RPC {
		if _, err := c.ServeRPC(); err != nil {
			return errors.Join(fmt.Errorf("world: %w", err), b.Close())
		}
	}
	c, err := connect(ctx, w.cfg.Backend, b)
	if err != nil {
		return errors.Join(err, b.Close())
	}
	if home == nil {
		home = &fork{}
	}
	home.chainID, home.c = c.chainID, c
	w.forks, w.forkChain = []*fork{home}, c
	return nil
}

// anvilOptions are the options of the World's anvil processes (the anvil
// and fork backends, and the forks of CreateFork).
func (w *World) anvilOptions() anvil.Options {
	ac := w.cfg.Anvil
	o := anvil.Options{Binary: ac.Binary, Port: ac.Port, Hardfork: ac.Hardfork, Args: ac.Args, Accounts: 1, Log: w.cfg.AnvilLog}
	if bt := w.cfg.BlockTime; bt != 0 {
		o.BlockTime, o.MixedMining = max(time.Second, bt.Truncate(time.Second)), true
	} else {
		o.BlockTimestampInterval = 1
	}
	return o
}

// memoryDir is a memory file system of the system's (Linux), where a World
// without Config.Dir keeps its throwaway log.
const memoryDir = "/dev/shm"

// tempRoot makes the temporary root of a World without Config.Dir: under
// $TMPDIR when it is set, else on the system's memory file system when it
// has one, else under os.TempDir(). Nothing in it outlives the World
// (Close removes it), and on a memory file system the log's fsyncs cost
// nothing: on disk they are most of what a spec that records pays when
// Revert reopens the log (docs/PERFORMANCE.md).
func tempRoot() (string, error) {
	if os.Getenv("TMPDIR") == "" {
		if dir, err := os.MkdirTemp(memoryDir, "afr-world-"); err == nil {
			return dir, nil
		}
	}
	return os.MkdirTemp("", "afr-world-")
}

// ErrInProcessBlockTime is returned by New for the in-process backend with
// Config.BlockTime: it mines a block per transaction, never by the clock.
var ErrInProcessBlockTime = errors.New("world: the in-process backend mines no blocks by the clock (Config.BlockTime): use the embedded backend")

// ErrForkUnpinned is returned by New for the fork backend without an
// archive endpoint and a block.
var ErrForkUnpinned = errors.New("world: the fork backend needs an archive endpoint and a pinned block")

// Backend is the World's chain backend (that of its home chain).
func (w *World) Backend() backend.Kind { return w.cfg.Backend }

// Client is the selected fork's chain client (fixed fees, rounded gas
// limits: see fees.go); the home chain's unless SelectFork chose another.
func (w *World) Client() chain.Client { return w.client }

// ChainID is the selected fork's chain id (see Client).
func (w *World) ChainID() uint64 { return w.chainID }

// URL is the selected fork's JSON-RPC endpoint on loopback (see Client).
func (w *World) URL() string { return w.chain.URL() }

// Deployment is where AFR's contracts are: EpochAnchor and the
// PaceSmartAccount, the block they were deployed in, their gas.
func (w *World) Deployment() chain.Deployment { return w.deployment }

// EpochAnchor is the address of the EpochAnchor contract.
func (w *World) EpochAnchor() common.Address { return w.epochAnchor }

// Account is the address of the World's PaceSmartAccount.
func (w *World) Account() common.Address { return w.account }

// Domain is the account's EIP-712 domain: PDRs and delegations are signed
// in it.
func (w *World) Domain() pdr.Domain { return w.domain }

// Counter and Sink are the call targets of the shipped specs
// (contracts/test/utils/Targets.sol).
func (w *World) Counter() common.Address { return w.counter }
func (w *World) Sink() common.Address    { return w.sink }

// Registry decodes calldata, events and reverts of every contract the World
// deployed; a spec adds ABIs of contracts it did not deploy itself.
func (w *World) Registry() *calldata.Registry { return w.registry }

// Close stops the anchorer, closes the recorder and stops every chain of
// the World (anvil processes included: the home chain's and every fork's),
// and removes a temporary directory. It is safe to call more than once.
func (w *World) Close() error {
	w.closeMu.Lock()
	defer w.closeMu.Unlock()
	if w.closed {
		return w.closeErr
	}
	w.closed = true
	w.logMu.Lock()
	w.restore = nil // a log closed by Revert stays closed
	w.logMu.Unlock()
	errs := []error{w.closeRecorder(), w.closeForks(0)}
	if w.tmp != "" {
		errs = append(errs, os.RemoveAll(w.tmp))
	}
	w.closeErr = errors.Join(errs...)
	return w.closeErr
}

// Now returns the latest block's timestamp on the selected fork.
func (w *World) Now(ctx context.Context) (uint64, error) {
	return pace.BlockTime(ctx, w.client)
}

// Clock is the time PDR expiries count from (Unix seconds): the chain's
// time when the World started, moved forward in steps of PDRLifetime/2 as
// the chain's time passes them. Propose, Delegate and SignDelegated set
// expiries PDRLifetime after it, so a PDR stays valid for at least half its
// lifetime, and its expiry — and so its signature, calldata and gas — does
// not depend on how many blocks were mined before it: adding a transaction
// to a spec does not move the gas of the ones after it.
//
// It is the home chain's time, where the PACE account is, whichever fork
// is selected.
func (w *World) Clock(ctx context.Context) (uint64, error) {
	now, err := pace.BlockTime(ctx, w.home().client)
	if err != nil || now < w.start {
		return w.start, err
	}
	const step = PDRLifetime / 2
	return w.start + (now-w.start)/step*step, nil
}

// NextNonce returns the account's current policy nonce: the nonce of the next
// PDR without delegations.
func (w *World) NextNonce(ctx context.Context) (uint64, error) {
	return pace.AccountNonce(ctx, w.home().client, w.account)
}

// NextDelegatedNonce returns the account's current delegated nonce: the nonce
// of the next PDR a delegate signs (executeDelegated).
func (w *World) NextDelegatedNonce(ctx context.Context) (uint64, error) {
	return pace.AccountDelegatedNonce(ctx, w.home().client, w.account)
}

// ether is n ether in wei.
func ether(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }
