package afrspec

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pace"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

// Backend names a chain backend.
type Backend string

// Backends.
const (
	Embedded Backend = "embedded" // go-ethereum's in-process simulated chain (default)
	Anvil    Backend = "anvil"    // a local anvil process started by the World
	Fork     Backend = "fork"     // anvil forking AFR_FORK_RPC at AFR_FORK_BLOCK
)

// Environment variables read by the harness.
const (
	EnvBackend   = "AFR_BACKEND"    // embedded, anvil or fork
	EnvForkRPC   = "AFR_FORK_RPC"   // archive JSON-RPC endpoint for the fork backend and live fork specs
	EnvForkBlock = "AFR_FORK_BLOCK" // pinned block number for the fork backend
)

var backendFlag = flag.String("afr.backend", "", "chain backend of afrspec Worlds: embedded, anvil or fork (default $"+EnvBackend+", else embedded)")

// SelectedBackend returns the backend chosen by the -afr.backend flag, else
// $AFR_BACKEND, else Embedded.
func SelectedBackend() Backend {
	if *backendFlag != "" {
		return Backend(*backendFlag)
	}
	if b := os.Getenv(EnvBackend); b != "" {
		return Backend(b)
	}
	return Embedded
}

// Config configures a World. The zero value is a World on the selected
// backend with three approvers (threshold 2), epochs of 16 events and an
// encrypted log in a temporary directory.
type Config struct {
	// Backend; "" means SelectedBackend().
	Backend Backend
	// ForkRPC and ForkBlock pin the fork backend; zero values mean
	// $AFR_FORK_RPC and $AFR_FORK_BLOCK.
	ForkRPC   string
	ForkBlock uint64
	// Anvil configures the anvil process of the anvil and fork backends.
	Anvil AnvilConfig
	// GenesisTime is the chain's genesis timestamp on the embedded and anvil
	// backends (Unix seconds; default GenesisTime). Every block is one
	// second after its parent, whatever the wall clock, so PDR expiries,
	// signatures, calldata and gas repeat from run to run and agree between
	// the two backends. It must be ahead of the wall clock for the embedded
	// chain to keep to it (see backend.EmbeddedOptions.GenesisTime).
	GenesisTime uint64
	// Dir holds the log (Dir/log) and anchor queue, and the copies of the
	// log that Snapshot and Revert make; "" means a new temporary
	// directory, removed by Close.
	Dir string
	// EpochSize seals an epoch every this many events (default 16).
	EpochSize int
	// Plaintext stores payloads unencrypted (default: encrypted, as in
	// disclosure mode).
	Plaintext bool
	// Approvers is the number of PACE approvers (default 3; negative: none)
	// and Threshold the approvals required when a PDR asks for approval
	// (default 2, capped at Approvers).
	Approvers int
	Threshold uint8
	// Policy evaluates proposals; nil means DefaultPolicy(w). A policy
	// over contracts the spec deploys itself is set after deploying them,
	// with World.SetPolicy.
	Policy *pdr.Policy
	// Seed makes the recorder's keys and session deterministic (default 1),
	// so roots, calldata and gas repeat from run to run.
	Seed uint64
	// Logf receives the harness's and the anchorer's progress (default: none).
	Logf func(format string, args ...any)
	// AnvilLog receives anvil's output (default: discarded).
	AnvilLog io.Writer
}

// AnvilConfig configures the anvil process of the anvil and fork backends
// (package chain/backend/anvil). The zero value is a fresh anvil from
// node_modules/.bin or $PATH on a free loopback port, Prague rules,
// automine.
type AnvilConfig struct {
	// Binary is the anvil executable; "" means anvil.FindBinary.
	Binary string
	// Port is the loopback port; 0 picks a free one.
	Port int
	// Hardfork is anvil's --hardfork; "" means "prague" (the rules the
	// embedded chain runs) on the anvil backend and the forked chain's own
	// on the fork backend.
	Hardfork string
	// BlockTime, when non-zero, mines a block this often (whole seconds)
	// instead of one per transaction. Blocks then follow the wall clock:
	// block numbers, times and so gas are no longer the same on every run.
	BlockTime time.Duration
	// Args are further anvil flags, appended as given.
	Args []string
}

// GenesisTime is the default genesis timestamp of a World's chain:
// 3,000,000,000 (2065-01-24), far enough ahead of the wall clock that the
// embedded chain keeps to one-second blocks (see Config.GenesisTime).
const GenesisTime = 3_000_000_000

// Actor is a named key. Actors that send transactions are funded.
type Actor struct {
	Name    string
	Key     *ecdsa.PrivateKey
	Address common.Address
}

func (a *Actor) String() string { return fmt.Sprintf("%s (%s)", a.Name, a.Address) }

// ActorKey returns the key of the actor name: keccak256("afrspec actor " ‖
// name). Public by construction: test keys only.
func ActorKey(name string) *ecdsa.PrivateKey {
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte("afrspec actor " + name)))
	if err != nil {
		panic(err) // not a valid scalar: probability ~2^-128
	}
	return k
}

// World is one chain with AFR deployed on it, a recorder wired to an
// anchorer, and the actors of a spec. Methods are safe for use by one spec
// at a time.
type World struct {
	Backend Backend
	Chain   backend.Backend
	Client  chain.Client
	ChainID uint64

	// Actors. Deployer, Agent, Operator (the anchoring key), Owner and
	// Attacker are funded with 10 ETH; PolicySigner and Approvers only sign.
	Deployer, Agent, Operator, Owner, Attacker, PolicySigner *Actor
	Approvers                                                []*Actor

	// Deployment: EpochAnchor, PaceSmartAccount (Account) and the targets
	// of the shipped specs (Counter, Sink from contracts/test/utils/Targets.sol).
	Deployment *chain.Deployment
	Anchor     common.Address
	Account    common.Address
	Domain     pdr.Domain
	Counter    common.Address
	Sink       common.Address

	// Recorder writes the log in LogDir; Anchorer anchors its sealed epochs
	// when SealAndAnchor (or Snapshot) asks, never in the background.
	Recorder *recorder.Recorder
	Anchorer *anchor.Anchorer
	LogDir   string
	Session  format.SessionID
	Keys     *recorder.Keyring

	// Policy decides proposals; Registry decodes calldata, events and
	// reverts of every contract the World deployed.
	Policy   *pdr.Policy
	Registry *calldata.Registry
	// Pace runs the agent flow of Propose, Approve, Submit and
	// RecordOutcome over the recorder, the account, the registry, the
	// policy and the policy signer (the agent's name is set per proposal).
	Pace *pace.Agent

	cfg      Config
	funder   *ecdsa.PrivateKey
	tmp      string
	root     string // Dir or tmp: the log, snapshots and reverted logs
	start    uint64 // the chain's time when the World started
	clock    *stepClock
	rng      *lockedRand
	dirs     int    // snapshot and revert directories made so far
	spent    string // a reverted log directory to remove at the next Revert or Close
	base     *Snapshot
	cancel   context.CancelFunc
	runDone  chan error
	actors   map[string]*Actor
	salt     uint64
	closeMu  sync.Mutex
	closed   bool
	closeErr error
}

// Mutex-guarded deterministic randomness for the recorder (it reads from a
// background goroutine too).
type lockedRand struct {
	mu sync.Mutex
	r  *rand.ChaCha8
}

func (l *lockedRand) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}

// A fixed clock that advances one millisecond per reading: deterministic
// event times (and so roots and gas) on every run.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

// NewWorld starts the backend, funds the actors, deploys the contracts,
// opens the recorder and starts the anchorer. Close releases everything
// (always call it; StartWorld does so with DeferCleanup).
func NewWorld(ctx context.Context, cfg Config) (w *World, err error) {
	if cfg.Backend == "" {
		cfg.Backend = SelectedBackend()
	}
	if cfg.EpochSize <= 0 {
		cfg.EpochSize = 16
	}
	if cfg.Approvers == 0 {
		cfg.Approvers = 3
	}
	if cfg.Approvers < 0 {
		cfg.Approvers = 0
	}
	if cfg.Threshold == 0 && cfg.Approvers > 0 {
		cfg.Threshold = 2
	}
	if int(cfg.Threshold) > cfg.Approvers {
		cfg.Threshold = uint8(cfg.Approvers)
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.GenesisTime == 0 {
		cfg.GenesisTime = GenesisTime
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	w = &World{Backend: cfg.Backend, cfg: cfg, actors: map[string]*Actor{}}
	defer func() {
		if err != nil {
			_ = w.Close()
			w = nil
		}
	}()
	if err := w.startChain(ctx); err != nil {
		return w, err
	}
	w.Client = pinnedFees{w.Chain.Client()}
	id, err := w.Client.ChainID(ctx)
	if err != nil {
		return w, fmt.Errorf("afrspec: chain id: %w", err)
	}
	w.ChainID = id.Uint64()
	if w.start, err = w.Now(ctx); err != nil {
		return w, fmt.Errorf("afrspec: %w", err)
	}

	for _, n := range []string{"deployer", "agent", "operator", "owner", "attacker"} {
		a := w.Actor(n)
		if err := w.Fund(ctx, a, 10); err != nil {
			return w, err
		}
	}
	w.Deployer, w.Agent, w.Operator, w.Owner, w.Attacker = w.Actor("deployer"), w.Actor("agent"), w.Actor("operator"), w.Actor("owner"), w.Actor("attacker")
	w.PolicySigner = w.Actor("policy-signer")
	var approvers []common.Address
	for i := range cfg.Approvers {
		a := w.Actor(fmt.Sprintf("approver-%d", i+1))
		w.Approvers = append(w.Approvers, a)
		approvers = append(approvers, a.Address)
	}
	if err := w.deploy(ctx, approvers); err != nil {
		return w, err
	}
	w.root = cfg.Dir
	if w.root == "" {
		if w.tmp, err = os.MkdirTemp("", "afrspec-"); err != nil {
			return w, err
		}
		w.root = w.tmp
	}
	w.rng = &lockedRand{r: rand.NewChaCha8([32]byte(crypto.Keccak256([]byte("afrspec recorder"), big.NewInt(int64(cfg.Seed)).Bytes())))}
	if _, err := io.ReadFull(w.rng, w.Session[:]); err != nil {
		return w, err
	}
	// The log's clock starts at the chain's time and advances 1 ms per
	// reading: event times, and so roots, repeat from run to run.
	w.clock = &stepClock{t: time.Unix(int64(w.start), 0).UTC()}
	if err := w.openRecorder(ctx, filepath.Join(w.root, "log")); err != nil {
		return w, err
	}
	w.Pace = &pace.Agent{Recorder: w.Recorder, Client: w.Client, Domain: w.Domain, Registry: w.Registry,
		PolicySigner: w.PolicySigner.Key, Lifetime: PDRLifetime, Now: w.Clock}
	w.SetPolicy(cfg.Policy)
	cfg.Logf("afrspec: world on %s (chain %d): EpochAnchor %s, PaceSmartAccount %s, log %s", w.Backend, w.ChainID, w.Anchor, w.Account, w.LogDir)
	return w, nil
}

func (w *World) startChain(ctx context.Context) error {
	// anvil stops when the context of Start ends: the World's own lifetime
	// (Close) decides, not the caller's set-up context.
	_ = ctx
	life := context.Background()
	ac := w.cfg.Anvil
	opts := anvil.Options{Binary: ac.Binary, Port: ac.Port, Hardfork: ac.Hardfork, BlockTime: ac.BlockTime, Args: ac.Args,
		Accounts: 1, Log: w.cfg.AnvilLog}
	if ac.BlockTime == 0 {
		opts.BlockTimestampInterval = 1
	}
	var (
		b   backend.Backend
		err error
	)
	switch w.Backend {
	case Embedded:
		// No periodic empty blocks: blocks are mined only for transactions
		// (the client the World sends through wakes the miner at once), so
		// block numbers and times repeat from run to run. Served on a
		// loopback port too, so that tracesim replays its transactions
		// (World.Replay) as it does anvil's.
		b, err = backend.NewEmbedded(backend.EmbeddedOptions{Keys: 1, BlockPeriod: -1, GenesisTime: w.cfg.GenesisTime, HTTP: "127.0.0.1:0"})
	case Anvil:
		// The embedded chain's id, rules and clock: same EIP-712 domains,
		// signatures, calldata and so gas on both local backends.
		opts.ChainID, opts.Timestamp = backend.EmbeddedChainID, w.cfg.GenesisTime
		if opts.Hardfork == "" {
			opts.Hardfork = "prague"
		}
		b, err = startAnvil(life, opts)
	case Fork:
		rpcURL, block := w.cfg.ForkRPC, w.cfg.ForkBlock
		if rpcURL == "" {
			rpcURL = os.Getenv(EnvForkRPC)
		}
		if block == 0 {
			if s := os.Getenv(EnvForkBlock); s != "" {
				if block, err = strconv.ParseUint(s, 0, 64); err != nil {
					return fmt.Errorf("afrspec: %s=%q: %w", EnvForkBlock, s, err)
				}
			}
		}
		if rpcURL == "" || block == 0 {
			return fmt.Errorf("afrspec: the fork backend needs an archive endpoint and a pinned block (hint: set Config.ForkRPC and Config.ForkBlock, or %s and %s)", EnvForkRPC, EnvForkBlock)
		}
		opts.ForkURL, opts.ForkBlock = rpcURL, block
		opts.Args = append([]string{"--no-rate-limit"}, opts.Args...)
		b, err = startAnvil(life, opts)
	default:
		return fmt.Errorf("afrspec: unknown backend %q (want %s, %s or %s)", w.Backend, Embedded, Anvil, Fork)
	}
	if err != nil {
		return fmt.Errorf("afrspec: starting the %s backend: %w", w.Backend, err)
	}
	w.Chain = b
	if len(w.Chain.Keys()) == 0 {
		return fmt.Errorf("afrspec: the %s backend has no funded key", w.Backend)
	}
	w.funder = w.Chain.Keys()[0]
	return nil
}

// startAnvil returns a nil Backend (not a typed nil) on failure.
func startAnvil(ctx context.Context, opts anvil.Options) (backend.Backend, error) {
	a, err := backend.StartAnvil(ctx, opts)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// Actor returns the actor name (its key is ActorKey(name)), creating it on
// first use. It is not funded: see Fund.
func (w *World) Actor(name string) *Actor {
	if a, ok := w.actors[name]; ok {
		return a
	}
	k := ActorKey(name)
	a := &Actor{Name: name, Key: k, Address: crypto.PubkeyToAddress(k.PublicKey)}
	w.actors[name] = a
	return a
}

// Fund sends eth ether to a from the backend's funded key.
func (w *World) Fund(ctx context.Context, a *Actor, eth int64) error {
	v := new(big.Int).Mul(big.NewInt(eth), big.NewInt(1e18))
	if _, err := chain.Transact(ctx, w.Client, w.funder, &a.Address, v, nil); err != nil {
		return fmt.Errorf("afrspec: funding %s: %w", a, err)
	}
	return nil
}

func (w *World) deploy(ctx context.Context, approvers []common.Address) error {
	d, err := chain.Deploy(ctx, w.Client, w.Deployer.Key, &chain.PaceConfig{Owner: w.Owner.Address,
		PolicySigner: w.PolicySigner.Address, Approvers: approvers, Threshold: w.cfg.Threshold})
	if err != nil {
		return fmt.Errorf("afrspec: %w", err)
	}
	w.Deployment, w.Anchor, w.Account = d, d.EpochAnchor, *d.Pace
	w.Domain = pdr.Domain{ChainID: w.ChainID, Account: w.Account}
	w.Registry = onchain.DefaultRegistry()
	_ = w.Registry.Bind(w.Account, "PaceSmartAccount")
	_ = w.Registry.Bind(w.Anchor, "EpochAnchor")
	for _, t := range []struct {
		name string
		addr *common.Address
	}{{"Counter", &w.Counter}, {"Sink", &w.Sink}} {
		a, err := TargetArtifact(t.name)
		if err != nil {
			return err
		}
		if *t.addr, err = w.DeployArtifact(ctx, w.Deployer, a); err != nil {
			return err
		}
	}
	// Fund the account so calls with value can succeed.
	if _, err := chain.Transact(ctx, w.Client, w.Deployer.Key, &w.Account, big.NewInt(5e18), nil); err != nil {
		return fmt.Errorf("afrspec: funding the account: %w", err)
	}
	return nil
}

// DeployArtifact deploys a with constructor args from an actor and
// registers its ABI (bound to the new address) in w.Registry.
func (w *World) DeployArtifact(ctx context.Context, from *Actor, a *Artifact, args ...any) (common.Address, error) {
	input, err := a.ABI.Pack("", args...)
	if err != nil {
		return common.Address{}, fmt.Errorf("afrspec: constructor of %s: %w", a.Name, err)
	}
	rc, err := chain.Transact(ctx, w.Client, from.Key, nil, nil, append(append([]byte{}, a.Bin...), input...))
	if err != nil {
		return common.Address{}, fmt.Errorf("afrspec: deploying %s: %w", a.Name, err)
	}
	if _, ok := w.Registry.Contract(a.Name); !ok {
		if err := w.Registry.Add(a.Name, "afrspec", a.ABI); err != nil {
			return common.Address{}, err
		}
	}
	_ = w.Registry.Bind(rc.ContractAddress, a.Name)
	return rc.ContractAddress, nil
}

// openRecorder opens the recorder, the keyring and the anchorer on the log
// in dir (new or existing) and starts anchoring.
// recorderName is the recorder name of every World's log.
const recorderName = "afrspec"

func (w *World) openRecorder(ctx context.Context, dir string) error {
	w.LogDir = dir
	rec, err := recorder.Open(w.LogDir, recorder.Options{Recorder: recorderName, Session: w.Session, Encrypt: !w.cfg.Plaintext,
		EpochSize: w.cfg.EpochSize, EpochMaxAge: -1, Sync: recorder.SyncWrite, Now: w.clock.Now, Rand: w.rng})
	if err != nil {
		return fmt.Errorf("afrspec: opening the recorder: %w", err)
	}
	w.Recorder = rec
	if w.Pace != nil {
		w.Pace.Recorder = rec
	}
	if !w.cfg.Plaintext {
		if w.Keys, err = recorder.OpenKeyring(filepath.Join(w.LogDir, "keys"), w.Session); err != nil {
			return fmt.Errorf("afrspec: opening the keyring: %w", err)
		}
	}
	w.Anchorer, err = anchor.Open(ctx, w.LogDir, w.Client, anchor.Options{Contract: w.Anchor, Key: w.Operator.Key,
		FromBlock: w.Deployment.Block, Confirmations: 1, Poll: 10 * time.Millisecond, MinBackoff: 10 * time.Millisecond,
		MaxBackoff: 200 * time.Millisecond, Position: rec.Position, Logf: w.cfg.Logf})
	if err != nil {
		return fmt.Errorf("afrspec: opening the anchorer: %w", err)
	}
	// The anchorer learns of sealed epochs only from SealAndAnchor and
	// Snapshot (SyncLog), not from the recorder's channel: it sends nothing
	// while the spec runs, so the spec's transactions never race its own for
	// blocks, and block numbers — recorded in outcomes, and so in the log's
	// roots and event ids — repeat from run to run.
	runCtx, cancel := context.WithCancel(context.Background())
	w.cancel, w.runDone = cancel, make(chan error, 1)
	go func() { w.runDone <- w.Anchorer.Run(runCtx, nil) }()
	return nil
}

// closeRecorder stops the anchorer and closes the keyring and the recorder.
func (w *World) closeRecorder() error {
	var errs []error
	if w.cancel != nil {
		w.cancel()
		if err := <-w.runDone; err != nil {
			errs = append(errs, err)
		}
		w.cancel = nil
	}
	if w.Anchorer != nil {
		w.Anchorer.Close()
		w.Anchorer = nil
	}
	if w.Keys != nil {
		errs = append(errs, w.Keys.Close())
		w.Keys = nil
	}
	if w.Recorder != nil {
		errs = append(errs, w.Recorder.Close())
		w.Recorder = nil
	}
	return errors.Join(errs...)
}

// SetPolicy makes p the policy that decides the World's proposals (w.Policy
// and w.Pace.Policy); nil restores DefaultPolicy(w). A policy naming
// contracts the spec deploys itself is set this way after deploying them.
func (w *World) SetPolicy(p *pdr.Policy) {
	if p == nil {
		p = DefaultPolicy(w)
	}
	w.Policy, w.Pace.Policy = p, p
}

// Clock is the time PDR expiries count from (Unix seconds): the chain's
// time when the World started, moved forward in steps of PDRLifetime/2 as
// the chain's time passes them. Propose, Delegate and SignDelegated set
// expiries PDRLifetime after it, so a PDR stays valid for at least half its
// lifetime, and its expiry — and so its signature, calldata and gas — does
// not depend on how many blocks were mined before it: adding a transaction
// to a spec does not move the gas of the ones after it.
func (w *World) Clock(ctx context.Context) (uint64, error) {
	now, err := w.Now(ctx)
	if err != nil || now < w.start {
		return w.start, err
	}
	const step = PDRLifetime / 2
	return w.start + (now-w.start)/step*step, nil
}

// Record records an event and returns its receipt.
func (w *World) Record(ctx context.Context, ev format.Event) (recorder.Receipt, error) {
	return w.Recorder.Record(ctx, ev)
}

// SealAndAnchor seals the open epoch (if it has events) and waits until
// every sealed epoch is anchored on chain. It returns the anchored epochs.
func (w *World) SealAndAnchor(ctx context.Context) ([]anchor.Anchored, error) {
	if _, _, err := w.Recorder.Seal(); err != nil {
		return nil, fmt.Errorf("afrspec: seal: %w", err)
	}
	if _, err := w.Anchorer.SyncLog(); err != nil {
		return nil, fmt.Errorf("afrspec: queueing sealed epochs: %w", err)
	}
	dctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := w.Anchorer.Drain(dctx); err != nil {
		return nil, fmt.Errorf("afrspec: anchoring: %w (queue: %d pending, %d faults)", err, len(w.Anchorer.Queue().Pending), w.Anchorer.Faults())
	}
	return w.Anchorer.Queue().Anchored, nil
}

// Anchors returns the World's anchor source: the operator's Anchored
// events of the World's log (its recorder and session) on the EpochAnchor
// contract, checked against its head.
func (w *World) Anchors() verifier.AnchorSource {
	return onchain.ChainAnchors{Client: w.Client, Contract: w.Anchor, Operator: w.Operator.Address,
		LogID: format.LogID(recorderName, w.Session), FromBlock: w.Deployment.Block}
}

// Verify verifies the World's log against the anchors on chain, opening
// every payload with the log's keys, and checks its completeness: every
// execution of the World's PaceSmartAccount must match an intent the log
// recorded (findings exec_unrecorded, exec_mismatch …; the counts are in
// Report.Executions).
func (w *World) Verify(ctx context.Context) (*Verification, error) {
	l, err := recorder.OpenLog(w.LogDir)
	if err != nil {
		return nil, err
	}
	opts := verifier.Options{Payloads: verifier.PayloadsDigest, Keys: w.Keys,
		Completeness: onchain.Executions{Client: w.Client, Account: w.Account, FromBlock: w.Deployment.Block, Registry: w.Registry}}
	if w.Keys != nil {
		opts.Payloads = verifier.PayloadsOpen
	}
	rep, err := verifier.VerifyLog(ctx, l, w.Anchors(), opts)
	if err != nil {
		return nil, err
	}
	return w.verification(rep)
}

// SealAndVerify is SealAndAnchor followed by Verify.
func (w *World) SealAndVerify(ctx context.Context) (*Verification, error) {
	if _, err := w.SealAndAnchor(ctx); err != nil {
		return nil, err
	}
	return w.Verify(ctx)
}

// Index builds the forensic index of the World's log with its keys.
func (w *World) Index() (*verifier.Index, error) {
	l, err := recorder.OpenLog(w.LogDir)
	if err != nil {
		return nil, err
	}
	if w.Keys == nil {
		return verifier.IndexLog(l, nil)
	}
	return verifier.IndexLog(l, w.Keys)
}

// NextNonce returns the account's current policy nonce: the nonce of the next
// PDR without delegations.
func (w *World) NextNonce(ctx context.Context) (uint64, error) {
	return pace.AccountNonce(ctx, w.Client, w.Account)
}

// NextDelegatedNonce returns the account's current delegated nonce: the nonce
// of the next PDR a delegate signs (executeDelegated).
func (w *World) NextDelegatedNonce(ctx context.Context) (uint64, error) {
	return pace.AccountDelegatedNonce(ctx, w.Client, w.Account)
}

// Now returns the latest block's timestamp.
func (w *World) Now(ctx context.Context) (uint64, error) {
	return pace.BlockTime(ctx, w.Client)
}

// Close stops the anchorer, closes the recorder and stops the backend
// (anvil processes included), and removes a temporary directory. It is
// safe to call more than once.
func (w *World) Close() error {
	w.closeMu.Lock()
	defer w.closeMu.Unlock()
	if w.closed {
		return w.closeErr
	}
	w.closed = true
	errs := []error{w.closeRecorder()}
	if w.Chain != nil {
		errs = append(errs, w.Chain.Close())
	}
	if w.tmp != "" {
		errs = append(errs, os.RemoveAll(w.tmp))
	}
	w.closeErr = errors.Join(errs...)
	return w.closeErr
}

// Snapshot is a saved World: the chain's state (blocks, time, contracts,
// balances, nonces), a copy of the log with its anchor queue and keys, the
// log's clock and randomness, the delegation salts and the policy. Revert
// returns to it as often as needed.
type Snapshot struct {
	chain  backend.SnapshotID
	logDir string
	clock  time.Time
	rng    []byte
	salt   uint64
	policy *pdr.Policy
}

// Snapshot saves the World for Revert. It first waits until every sealed
// epoch is anchored, so that the chain and the log it saves agree; the open
// epoch is saved open. The embedded and anvil backends (fork included) can
// snapshot.
func (w *World) Snapshot(ctx context.Context) (*Snapshot, error) {
	sn, ok := w.Chain.(backend.Snapshotter)
	if !ok {
		return nil, fmt.Errorf("afrspec: the %s backend cannot snapshot", w.Backend)
	}
	if err := w.settle(ctx); err != nil {
		return nil, err
	}
	id, err := sn.Snapshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("afrspec: snapshot: %w", err)
	}
	rng, err := w.rng.r.MarshalBinary()
	if err != nil {
		return nil, err
	}
	s := &Snapshot{chain: id, logDir: w.newDir("snapshot"), rng: rng, salt: w.salt, policy: w.Policy}
	w.clock.mu.Lock()
	s.clock = w.clock.t
	w.clock.mu.Unlock()
	if err := copyDir(s.logDir, w.LogDir); err != nil {
		return nil, fmt.Errorf("afrspec: snapshot: copying the log: %w", err)
	}
	return s, nil
}

// Revert returns the World to s: the chain is reverted (what was mined
// since is gone, EpochAnchor's head included), and the recorder, keyring
// and anchorer are reopened on a fresh copy of the log saved in s, with the
// log's clock and randomness as they were — so whatever ran before, a spec
// after Revert(s) records, anchors and measures gas exactly as after every
// other Revert(s) on the embedded chain. (On anvil, the priority fee it
// suggests comes from a fee-history cache that evm_revert does not roll
// back, so transaction hashes recorded in outcomes, and through them event
// ids, can differ between reverts.) (The reopened recorder draws its per-open nonce from the
// restored randomness, so its ciphertexts and roots differ from those the
// World would have written had it gone on from the snapshot without
// reverting: revert before the first spec too, as Isolate does.)
// Actors, and ABIs registered in w.Registry since, are kept (an address
// bound to a contract deployed since has no code until it is deployed
// again). s stays valid; snapshots taken after s do not.
func (w *World) Revert(ctx context.Context, s *Snapshot) error {
	if err := w.closeRecorder(); err != nil {
		return fmt.Errorf("afrspec: revert: closing the log: %w", err)
	}
	if err := w.Chain.(backend.Snapshotter).Revert(ctx, s.chain); err != nil {
		// Nothing was reverted: the World goes on with the log it had.
		return errors.Join(fmt.Errorf("afrspec: revert: %w", err), w.openRecorder(ctx, w.LogDir))
	}
	r := rand.NewChaCha8([32]byte{})
	if err := r.UnmarshalBinary(s.rng); err != nil {
		return err
	}
	w.rng.mu.Lock()
	w.rng.r = r
	w.rng.mu.Unlock()
	w.clock.mu.Lock()
	w.clock.t = s.clock
	w.clock.mu.Unlock()
	w.salt = s.salt
	w.SetPolicy(s.policy)
	if w.spent != "" {
		if err := os.RemoveAll(w.spent); err != nil {
			return err
		}
	}
	w.spent = w.newDir("run")
	dir := filepath.Join(w.spent, "log")
	if err := copyDir(dir, s.logDir); err != nil {
		return fmt.Errorf("afrspec: revert: copying the log: %w", err)
	}
	return w.openRecorder(ctx, dir)
}

// settle waits until the anchorer has anchored every sealed epoch.
func (w *World) settle(ctx context.Context) error {
	p := w.Recorder.Position()
	q := w.Anchorer.Queue()
	covered := uint64(0)
	if n := len(q.Anchored); n > 0 {
		covered = q.Anchored[n-1].Events
	}
	if len(q.Pending) == 0 && covered >= p.Next-p.OpenEvents {
		return nil
	}
	if _, err := w.Anchorer.SyncLog(); err != nil {
		return fmt.Errorf("afrspec: queueing sealed epochs: %w", err)
	}
	dctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := w.Anchorer.Drain(dctx); err != nil {
		return fmt.Errorf("afrspec: anchoring before a snapshot: %w", err)
	}
	return nil
}

// newDir names a new directory under the World's root (created by its
// first use).
func (w *World) newDir(kind string) string {
	w.dirs++
	return filepath.Join(w.root, fmt.Sprintf("%s-%d", kind, w.dirs))
}

// copyDir copies the directory tree src to dst (which must not exist),
// keeping permissions: the log's keys must stay private to their owner.
func copyDir(dst, src string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(target, info.Mode().Perm())
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file", path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}
