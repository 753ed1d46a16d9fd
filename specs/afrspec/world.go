package afrspec

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"flag"
	"fmt"
	"io"
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
	// Dir holds the log (Dir/log) and anchor queue; "" means a new temporary
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
	// Policy evaluates proposals; nil means DefaultPolicy(w).
	Policy *pdr.Policy
	// Seed makes the recorder's keys and session deterministic (default 1),
	// so roots, calldata and gas repeat from run to run.
	Seed uint64
	// Logf receives the harness's and the anchorer's progress (default: none).
	Logf func(format string, args ...any)
	// AnvilLog receives anvil's output (default: discarded).
	AnvilLog io.Writer
}

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

	// Recorder writes the log in LogDir; Anchorer anchors its sealed epochs.
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
	w.Client = w.Chain.Client()
	id, err := w.Client.ChainID(ctx)
	if err != nil {
		return w, fmt.Errorf("afrspec: chain id: %w", err)
	}
	w.ChainID = id.Uint64()

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
	if err := w.openRecorder(ctx); err != nil {
		return w, err
	}
	if cfg.Policy != nil {
		w.Policy = cfg.Policy
	} else {
		w.Policy = DefaultPolicy(w)
	}
	w.Pace = &pace.Agent{Recorder: w.Recorder, Client: w.Client, Domain: w.Domain, Registry: w.Registry,
		Policy: w.Policy, PolicySigner: w.PolicySigner.Key, Lifetime: PDRLifetime}
	cfg.Logf("afrspec: world on %s (chain %d): EpochAnchor %s, PaceSmartAccount %s, log %s", w.Backend, w.ChainID, w.Anchor, w.Account, w.LogDir)
	return w, nil
}

func (w *World) startChain(ctx context.Context) error {
	// anvil stops when the context of Start ends: the World's own lifetime
	// (Close) decides, not the caller's set-up context.
	_ = ctx
	life := context.Background()
	var err error
	switch w.Backend {
	case Embedded:
		// A short block period: the embedded chain's automine waits for the
		// transaction pool to report a pending transaction, which go-ethereum's
		// pool can take up to ~2s to do; a periodic block picks it up sooner.
		// Served on a loopback port too, so that tracesim replays its
		// transactions (World.Replay) as it does anvil's.
		w.Chain, err = backend.NewEmbedded(backend.EmbeddedOptions{Keys: 1, BlockPeriod: 50 * time.Millisecond, HTTP: "127.0.0.1:0"})
	case Anvil:
		// The embedded chain's id: same EIP-712 domains, signatures,
		// calldata and so gas on both local backends.
		w.Chain, err = backend.StartAnvil(life, anvil.Options{Accounts: 1, ChainID: backend.EmbeddedChainID, Hardfork: "prague", Log: w.cfg.AnvilLog})
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
			return fmt.Errorf("afrspec: the fork backend needs an archive endpoint and a pinned block (hint: set %s and %s)", EnvForkRPC, EnvForkBlock)
		}
		w.Chain, err = backend.StartAnvil(life, anvil.Options{Accounts: 1, Log: w.cfg.AnvilLog,
			Args: []string{"--fork-url", rpcURL, "--fork-block-number", strconv.FormatUint(block, 10), "--no-rate-limit"}})
	default:
		return fmt.Errorf("afrspec: unknown backend %q (want %s, %s or %s)", w.Backend, Embedded, Anvil, Fork)
	}
	if err != nil {
		return fmt.Errorf("afrspec: starting the %s backend: %w", w.Backend, err)
	}
	if len(w.Chain.Keys()) == 0 {
		return fmt.Errorf("afrspec: the %s backend has no funded key", w.Backend)
	}
	w.funder = w.Chain.Keys()[0]
	return nil
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

func (w *World) openRecorder(ctx context.Context) error {
	dir := w.cfg.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "afrspec-")
		if err != nil {
			return err
		}
		w.tmp, dir = tmp, tmp
	}
	w.LogDir = filepath.Join(dir, "log")
	seed := w.cfg.Seed
	rng := &lockedRand{r: rand.NewChaCha8([32]byte(crypto.Keccak256([]byte("afrspec recorder"), big.NewInt(int64(seed)).Bytes())))}
	if _, err := io.ReadFull(rng, w.Session[:]); err != nil {
		return err
	}
	clock := &stepClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	rec, err := recorder.Open(w.LogDir, recorder.Options{Recorder: "afrspec", Session: w.Session, Encrypt: !w.cfg.Plaintext,
		EpochSize: w.cfg.EpochSize, EpochMaxAge: -1, Sync: recorder.SyncWrite, Now: clock.Now, Rand: rng})
	if err != nil {
		return fmt.Errorf("afrspec: opening the recorder: %w", err)
	}
	w.Recorder = rec
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
	runCtx, cancel := context.WithCancel(context.Background())
	w.cancel, w.runDone = cancel, make(chan error, 1)
	go func() { w.runDone <- w.Anchorer.Run(runCtx, rec.Sealed()) }()
	return nil
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
// events on the EpochAnchor contract, checked against its head.
func (w *World) Anchors() verifier.AnchorSource {
	return onchain.ChainAnchors{Client: w.Client, Contract: w.Anchor, Operator: w.Operator.Address, FromBlock: w.Deployment.Block}
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
	var errs []error
	if w.cancel != nil {
		w.cancel()
		if err := <-w.runDone; err != nil {
			errs = append(errs, err)
		}
	}
	if w.Anchorer != nil {
		w.Anchorer.Close()
	}
	if w.Keys != nil {
		errs = append(errs, w.Keys.Close())
	}
	if w.Recorder != nil {
		errs = append(errs, w.Recorder.Close())
	}
	if w.Chain != nil {
		errs = append(errs, w.Chain.Close())
	}
	if w.tmp != "" {
		errs = append(errs, os.RemoveAll(w.tmp))
	}
	w.closeErr = errors.Join(errs...)
	return w.closeErr
}
