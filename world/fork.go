package world

// Several forks in one World, as forge's vm.createFork and vm.selectFork
// give a test, and the on-disk cache they share across Worlds and runs.

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
)

// ForkID names one of a World's chains for SelectFork: HomeFork, or a fork
// made by CreateFork (1, 2, … in the order they were created).
type ForkID int

// HomeFork is the chain the World started on (Config.Backend): its log is
// anchored there and its PaceSmartAccount deployed there, whichever fork
// is selected.
const HomeFork ForkID = 0

// ErrUnknownFork is returned (wrapped) by SelectFork for an id that is not
// one of the World's forks.
var ErrUnknownFork = errors.New("world: no such fork")

// ErrForkChainID is returned (wrapped) by CreateFork for an endpoint
// serving a chain the World already has a fork of.
var ErrForkChainID = errors.New("world: the World already has a fork of this chain")

// forkChain is one running chain of the World and what the World acts on
// it with.
type forkChain struct {
	kind    backend.Kind
	chain   backend.Backend
	client  chain.Client // the chain's client with the World's fees (pinnedFees)
	chainID uint64
	funder  *ecdsa.PrivateKey // the backend's funded key: Fund sends from it
}

// fork is one of the World's chains: the home chain, or a fork of url at
// block, started (c set) at its first SelectFork or Snapshot.
type fork struct {
	url     string // the forked endpoint; "" for a home chain that forks nothing
	block   uint64
	hash    common.Hash // the forked block's hash: its fork cache's key
	chainID uint64
	c       *forkChain
}

// pin asks the endpoint at url for its chain id and for block (0: its
// latest block): a fork of it pinned there, not started.
func pin(ctx context.Context, url string, block uint64) (*fork, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := ethclient.DialContext(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("world: fork of %s: %w", url, err)
	}
	defer c.Close()
	id, err := c.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("world: fork of %s: asking its chain id: %w", url, err)
	}
	num := "latest"
	if block != 0 {
		num = hexutil.EncodeUint64(block)
	}
	// The block's hash as the endpoint gives it (not recomputed from a
	// header that another chain may lay out otherwise).
	var b *struct {
		Number hexutil.Uint64 `json:"number"`
		Hash   common.Hash    `json:"hash"`
	}
	if err := c.Client().CallContext(ctx, &b, "eth_getBlockByNumber", num, false); err != nil {
		return nil, fmt.Errorf("world: fork of %s: asking for block %s: %w", url, num, err)
	}
	if b == nil {
		return nil, fmt.Errorf("world: fork of %s: it has no block %d", url, block)
	}
	return &fork{url: url, block: uint64(b.Number), hash: b.Hash, chainID: id.Uint64()}, nil
}

// connect makes the World's forkChain of a started backend.
func connect(ctx context.Context, kind backend.Kind, b backend.Backend) (*forkChain, error) {
	if len(b.Keys()) == 0 {
		return nil, fmt.Errorf("world: the %s backend has no funded key", kind)
	}
	c := &forkChain{kind: kind, chain: b, client: pinnedFees{b.Client()}, funder: b.Keys()[0]}
	id, err := c.client.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("world: chain id: %w", err)
	}
	c.chainID = id.Uint64()
	return c, nil
}

// fundedActors are the actors New funds, on the home chain and on every
// fork.
var fundedActors = []string{"deployer", "agent", "operator", "owner", "attacker"}

// fundActors sends 10 ether to each of fundedActors on c.
func (w *World) fundActors(ctx context.Context, c *forkChain) error {
	for _, n := range fundedActors {
		if err := fund(ctx, c, w.Actor(n), ether(10)); err != nil {
			return err
		}
	}
	return nil
}

// home is the chain the World started on.
func (w *World) home() *forkChain { return w.forks[HomeFork].c }

// DefaultForkCache is where forks keep what they fetched unless
// Config.ForkCache or $AFR_FORK_CACHE say otherwise:
// os.UserCacheDir()/afr/forks ($XDG_CACHE_HOME/afr/forks, else
// ~/.cache/afr/forks on Linux).
func DefaultForkCache() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("world: no cache directory for forks (set Config.ForkCache or %s): %w", EnvForkCache, err)
	}
	return filepath.Join(dir, "afr", "forks"), nil
}

// forkCache sets the fork cache of f in its anvil options: the directory
// Config.ForkCache/<hash of the forked block>. A block's hash names one
// chain's state at one block, where a chain id and a number may not: every
// local anvil is chain 31337, each with a state of its own.
func (w *World) forkCache(o *anvil.Options, f *fork) error {
	dir := w.cfg.ForkCache
	if dir == "" {
		dir = os.Getenv(EnvForkCache)
	}
	switch dir {
	case "off":
		o.Args = append(o.Args, "--no-storage-caching")
		return nil
	case "":
		var err error
		if dir, err = DefaultForkCache(); err != nil {
			return err
		}
	}
	o.ForkCache = filepath.Join(dir, f.hash.Hex())
	return nil
}

// CreateFork adds to the World a fork of the chain served at url, pinned at
// block (0: the endpoint's latest block, read now), and returns its id for
// SelectFork (forge's vm.createFork). It asks the endpoint for its chain id
// at once, so an unreachable URL is an error here; the anvil process that
// forks it starts at the fork's first SelectFork (or the World's next
// Snapshot), with the World's anvil options (Config.Anvil) and fork cache
// (Config.ForkCache), and stops with Close. A fork of a chain the World
// already has — its home chain, or another fork, at any block — is refused
// with an error wrapping ErrForkChainID: the World records a transaction
// with the id of the chain it went to (RecordTx), and two forks of one
// chain could not be told apart in its log.
func (w *World) CreateFork(ctx context.Context, url string, block uint64) (ForkID, error) {
	nf, err := pin(ctx, url, block)
	if err != nil {
		return 0, err
	}
	for i, f := range w.forks {
		if f.chainID == nf.chainID {
			return 0, fmt.Errorf("%w: %s serves chain %d, and so does fork %d (%s): select fork %d, or fork that chain at another block in another World", ErrForkChainID, url, f.chainID, i, f.describe(ForkID(i)), i)
		}
	}
	w.forks = append(w.forks, nf)
	return ForkID(len(w.forks) - 1), nil
}

// describe names fork id in messages.
func (f *fork) describe(id ForkID) string {
	switch {
	case f.url == "":
		return fmt.Sprintf("the home chain, %d", f.chainID)
	case id == HomeFork:
		return fmt.Sprintf("the home chain, a fork of %s at block %d", f.url, f.block)
	}
	return fmt.Sprintf("%s at block %d", f.url, f.block)
}

// SelectFork makes fork id the one the World acts on (forge's
// vm.selectFork), starting it if it has not run yet — an anvil forking its
// endpoint at its block, on which the World's funded actors (Deployer,
// Agent, Operator, Owner, Attacker) get 10 ether each as on the home chain.
// From then on Send, DeployArtifact, Fund, the cheatcodes, Now, Balances,
// Load, Client, URL, ChainID, Replay and RecordTx act on it; actors are the
// same keys on every fork. The log, its anchoring and verification, the
// PACE flow (Propose, Submit, Execute), Clock and the nonces stay on the
// home chain (HomeFork), where the PaceSmartAccount is. A result of Send
// keeps the fork it was sent on: its Trace, DecodeRevert and matchers read
// that fork whichever is selected later; RecordTx replays on the selected
// fork, so record a transaction before selecting another. A prank
// (Prank, StartPrank) carries over: it names an address, the same on every
// fork. The registry is one for all forks: an address bound to a contract
// decodes as that contract on every fork.
func (w *World) SelectFork(ctx context.Context, id ForkID) error {
	if id < 0 || int(id) >= len(w.forks) {
		return fmt.Errorf("%w: %d (the World has forks 0 to %d; a Revert drops the forks created after its snapshot)", ErrUnknownFork, id, len(w.forks)-1)
	}
	f := w.forks[id]
	if err := w.startFork(ctx, id, f); err != nil {
		return err
	}
	w.forkChain, w.selected = f.c, id
	return nil
}

// ActiveFork is the selected fork (forge's vm.activeFork): HomeFork until
// SelectFork chooses another.
func (w *World) ActiveFork() ForkID { return w.selected }

// startFork starts fork id unless it runs already, and funds the World's
// actors on it.
func (w *World) startFork(ctx context.Context, id ForkID, f *fork) (err error) {
	if f.c != nil {
		return nil
	}
	opts := w.anvilOptions()
	if err := w.forkCache(&opts, f); err != nil {
		return err
	}
	opts.ForkURL, opts.ForkBlock = f.url, f.block
	b, err := backend.Start(context.Background(), backend.KindFork, backend.Options{Anvil: opts})
	if err != nil {
		return fmt.Errorf("world: starting fork %d (%s): %w", id, f.describe(id), err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, b.Close())
		}
	}()
	c, err := connect(ctx, backend.KindFork, b)
	if err != nil {
		return err
	}
	if err := w.fundActors(ctx, c); err != nil {
		return fmt.Errorf("world: fork %d: %w", id, err)
	}
	f.c = c
	return nil
}

// closeForks stops the chains of forks from, dropping the forks created
// after it; from 0 closes every chain of the World.
func (w *World) closeForks(from ForkID) error {
	var errs []error
	for i := int(from); i < len(w.forks); i++ {
		if f := w.forks[i]; f.c != nil {
			errs = append(errs, f.c.chain.Close())
			f.c = nil
		}
	}
	if from > 0 {
		w.forks = w.forks[:from]
	}
	return errors.Join(errs...)
}

// forksSnapshot is every fork of a World saved by Snapshot: each one's
// chain snapshot (by ForkID) and the selected one.
type forksSnapshot struct {
	chains   []backend.SnapshotID
	selected ForkID
}

// snapshotForks starts every fork of the World not started yet and
// snapshots every one: a snapshot covers all the World's forks.
func (w *World) snapshotForks(ctx context.Context) (forksSnapshot, error) {
	s := forksSnapshot{selected: w.selected}
	for i, f := range w.forks {
		if err := w.startFork(ctx, ForkID(i), f); err != nil {
			return s, err
		}
		id, err := f.c.chain.(backend.Snapshotter).Snapshot(ctx)
		if err != nil {
			return s, fmt.Errorf("fork %d: %w", i, err)
		}
		s.chains = append(s.chains, id)
	}
	return s, nil
}

// revertForks reverts every fork saved in s and selects the fork selected
// then; forks created since are stopped and dropped. The home chain, which
// the log must agree with, is reverted first: when that fails (err),
// nothing is; forksErr reports the other forks that failed once the home
// chain is reverted, so that the log is reverted with it.
func (w *World) revertForks(ctx context.Context, s forksSnapshot) (forksErr, err error) {
	if len(s.chains) > len(w.forks) {
		return nil, fmt.Errorf("the snapshot has %d forks and the World %d: it was taken after the snapshot reverted to since", len(s.chains), len(w.forks))
	}
	revert := func(i int) error {
		if err := w.forks[i].c.chain.(backend.Snapshotter).Revert(ctx, s.chains[i]); err != nil {
			return fmt.Errorf("fork %d: %w", i, err)
		}
		return nil
	}
	if err := revert(int(HomeFork)); err != nil {
		return nil, err
	}
	errs := []error{w.closeForks(ForkID(len(s.chains)))}
	for i := 1; i < len(s.chains); i++ {
		errs = append(errs, revert(i))
	}
	w.forkChain, w.selected = w.forks[s.selected].c, s.selected
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("world: revert: %w", err), nil
	}
	return nil, nil
}

// fund sends wei to a on c from c's funded key.
func fund(ctx context.Context, c *forkChain, a *Actor, wei *big.Int) error {
	if _, err := chain.Transact(ctx, c.client, c.funder, &a.Address, wei, nil); err != nil {
		return fmt.Errorf("world: funding %s: %w", a, err)
	}
	return nil
}
