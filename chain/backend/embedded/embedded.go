// Package embedded is go-ethereum's node running in the process as a chain
// backend (backend.KindEmbedded): the eth service with its transaction
// pool and databases, sealed by the simulated beacon, optionally served
// over JSON-RPC on loopback. It is a package of its own because it links
// the whole node (eth, p2p, the miner, pebble and leveldb, metrics): a
// program imports it to start embedded chains, and one that does not (a
// spec module on the in-process chain, anvil or a fork) builds without
// any of it.
//
// Importing the package registers it with package backend, so that
// backend.Start(ctx, backend.KindEmbedded, …) — and with it world.New and
// afr chain — start one:
//
//	import _ "github.com/agentflightrecorder/afr/chain/backend/embedded"
package embedded

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
)

func init() {
	backend.RegisterEmbedded(func(opts backend.EmbeddedOptions) (backend.Backend, error) {
		c, err := New(opts)
		if err != nil {
			return nil, err // not a typed nil
		}
		return c, nil
	})
}

var (
	_ backend.Backend     = (*Chain)(nil)
	_ backend.Snapshotter = (*Chain)(nil)
	_ backend.Miner       = (*Chain)(nil)
)

// Chain is go-ethereum's in-process chain as its simulated backend
// (ethclient/simulated) assembles it: a node with the eth service, sealed by
// the simulated beacon (real blocks, receipts and logs), with automine,
// periodic empty blocks and, optionally, a JSON-RPC endpoint. It is assembled
// here rather than by simulated.NewBackend so that it can serve
// debug_chainConfig, which go-ethereum itself does not. It runs today's
// mainnet rules (Prague + Osaka), not the dev chain's unreleased forks, so
// gas matches anvil and mainnet.
type Chain struct {
	stack  *node.Node
	eth    *eth.Ethereum
	beacon *catalyst.SimulatedBeacon
	client *ethclient.Client
	config *params.ChainConfig
	keys   []*ecdsa.PrivateKey
	url    string

	mu     sync.Mutex    // serialises mining, Commit and Revert
	kick   chan struct{} // a transaction was sent through Client()
	stop   chan struct{}
	done   chan struct{}
	closed sync.Once
	paused bool
}

// New starts an embedded chain.
func New(opts backend.EmbeddedOptions) (*Chain, error) {
	if opts.Keys <= 0 {
		opts.Keys = 4
	}
	if opts.BlockPeriod == 0 {
		opts.BlockPeriod = time.Second
	}
	e := &Chain{kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	// The node and eth service as simulated.NewBackend configures them.
	nodeConf := node.DefaultConfig
	nodeConf.DataDir = ""
	nodeConf.P2P = p2p.Config{NoDiscovery: true}
	if opts.HTTP != "" {
		host, port, err := backend.LoopbackAddr(opts.HTTP)
		if err != nil {
			return nil, err
		}
		nodeConf.HTTPHost, nodeConf.HTTPPort = host, port
		nodeConf.HTTPModules = []string{"eth", "net", "web3", "debug"}
		nodeConf.HTTPVirtualHosts = []string{"*"}
		e.url = fmt.Sprintf("http://%s", net.JoinHostPort(host, fmt.Sprint(port)))
	}
	genesis, keys := backend.LocalGenesis(opts.Keys, opts.GenesisTime)
	e.keys = keys
	ethConf := ethconfig.Defaults
	ethConf.Genesis = genesis
	ethConf.SyncMode = ethconfig.FullSync
	// Archive state in the hash scheme: every block's state stays in
	// memory, so Revert can return to any earlier block (the path scheme
	// keeps only the last 128) and eth_call answers at any height.
	ethConf.StateScheme, ethConf.NoPruning = rawdb.HashScheme, true
	ethConf.TxPool.NoLocals = true
	ethConf.LogNoHistory = true
	if err := e.start(&nodeConf, &ethConf); err != nil {
		return nil, fmt.Errorf("chain: start embedded chain: %w", err)
	}
	go e.mine(opts.BlockPeriod)
	return e, nil
}

// start assembles and starts the node, as simulated.NewBackend does, with
// debug_chainConfig added.
func (e *Chain) start(nodeConf *node.Config, ethConf *ethconfig.Config) error {
	stack, err := node.New(nodeConf)
	if err != nil {
		return err
	}
	svc, err := eth.New(stack, ethConf)
	if err != nil {
		stack.Close()
		return err
	}
	e.config = svc.BlockChain().Config()
	stack.RegisterAPIs([]rpc.API{
		{Namespace: "eth", Service: filters.NewFilterAPI(filters.NewFilterSystem(svc.APIBackend, filters.Config{}))},
		{Namespace: "debug", Service: backend.ChainConfigAPI{Config: e.config}},
	})
	if err := stack.Start(); err != nil {
		stack.Close()
		return err
	}
	beacon, err := catalyst.NewSimulatedBeacon(0, common.Address{}, svc)
	if err == nil {
		err = beacon.Fork(svc.BlockChain().GetCanonicalHash(0))
	}
	if err != nil {
		stack.Close()
		return err
	}
	e.stack, e.eth, e.beacon, e.client = stack, svc, beacon, ethclient.NewClient(stack.Attach())
	return nil
}

// ChainConfig returns the rules the chain runs (debug_chainConfig answers
// the same).
func (e *Chain) ChainConfig() *params.ChainConfig { return e.config }

// mine commits a block at once when a transaction is sent through
// Client(), when the pool reports pending transactions (checked every 5 ms;
// transactions sent over JSON-RPC), and an empty block every period. The
// pool reports a transaction as pending only after its own reorganisation,
// which can take a second or more, hence the kick from Client().
func (e *Chain) mine(period time.Duration) {
	defer close(e.done)
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	last := time.Now()
	for {
		kicked := false
		select {
		case <-e.stop:
			return
		case <-poll.C:
		case <-e.kick:
			kicked = true
		}
		e.mu.Lock()
		if e.paused {
			e.mu.Unlock()
			continue
		}
		pool := e.eth.TxPool()
		n, _ := pool.Stats()
		if kicked && n == 0 {
			// A transaction was just sent but the pool has not promoted it
			// yet: let the pool settle rather than seal an empty block
			// (one empty block more or less moves base fees, and so
			// transaction hashes, from run to run).
			_ = pool.Sync()
			n, _ = pool.Stats()
		}
		if n > 0 || (period > 0 && time.Since(last) >= period) {
			e.beacon.Commit()
			// The pool drops the mined transactions when it has reset to
			// the new head, in the background; until then it would still
			// count them, and the next tick would seal an empty block.
			_ = pool.Sync()
			last = time.Now()
		}
		e.mu.Unlock()
	}
}

// Name implements backend.Backend.
func (e *Chain) Name() string { return "embedded" }

// Client implements backend.Backend. Transactions sent through it are mined at
// once.
func (e *Chain) Client() chain.Client { return kickingClient{e.client, e.kick} }

// kickingClient wakes the miner after each transaction it sends.
type kickingClient struct {
	*ethclient.Client
	kick chan struct{}
}

func (c kickingClient) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	err := c.Client.SendTransaction(ctx, tx)
	if err == nil {
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}
	return err
}

// URL implements backend.Backend: the JSON-RPC endpoint, or "" when not served.
func (e *Chain) URL() string { return e.url }

// Keys implements backend.Backend.
func (e *Chain) Keys() []*ecdsa.PrivateKey { return e.keys }

// Pause stops mining (transactions stay pending) until Resume: for tests of
// stuck transactions.
func (e *Chain) Pause() { e.mu.Lock(); e.paused = true; e.mu.Unlock() }

// Resume resumes mining.
func (e *Chain) Resume() { e.mu.Lock(); e.paused = false; e.mu.Unlock() }

// Commit mines a block now.
func (e *Chain) Commit() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.beacon.Commit()
}

// Snapshot implements backend.Snapshotter: the id is the head block's hash.
func (e *Chain) Snapshot(context.Context) (backend.SnapshotID, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return backend.SnapshotID(e.eth.BlockChain().CurrentBlock().Hash().Hex()), nil
}

// Revert implements backend.Snapshotter: the snapshot's block becomes the head again
// (a reorg to an ancestor, as go-ethereum's simulated backend Fork does),
// the transactions the reorg would put back into the pool are dropped, and a
// fresh simulated beacon continues from that block, so the next block's
// time is the restored head's time + 1 again.
func (e *Chain) Revert(_ context.Context, id backend.SnapshotID) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	bc := e.eth.BlockChain()
	head := bc.GetBlockByHash(common.HexToHash(string(id)))
	if head == nil {
		return fmt.Errorf("chain: no snapshot %q on this embedded chain", id)
	}
	if head.Hash() != bc.CurrentBlock().Hash() {
		if _, err := bc.SetCanonical(head); err != nil {
			return fmt.Errorf("chain: revert to block %d: %w", head.NumberU64(), err)
		}
	}
	// Clear waits for the pool to reset to the new head (which re-injects
	// the transactions of the dropped blocks) and then drops them all.
	e.eth.TxPool().Clear()
	beacon, err := catalyst.NewSimulatedBeacon(0, common.Address{}, e.eth)
	if err != nil {
		return fmt.Errorf("chain: revert: %w", err)
	}
	old := e.beacon
	e.beacon = beacon
	return old.Stop()
}

// Close stops the chain.
func (e *Chain) Close() error {
	var err error
	e.closed.Do(func() {
		close(e.stop)
		<-e.done
		e.client.Close()
		err = errors.Join(e.beacon.Stop(), e.stack.Close())
	})
	return err
}

// Mine implements backend.Miner: n blocks, each max(now, parent + 1).
func (e *Chain) Mine(ctx context.Context, n uint64) error {
	for range n {
		if err := ctx.Err(); err != nil {
			return err
		}
		e.Commit()
	}
	return nil
}

// MineAt implements backend.Miner with the simulated beacon's AdjustTime.
// It fails while transactions are pending.
func (e *Chain) MineAt(ctx context.Context, t uint64) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	head := e.eth.BlockChain().CurrentBlock().Time
	if t <= head {
		return backend.TimeBackwards(t, head)
	}
	if err := e.beacon.AdjustTime(time.Duration(t-head) * time.Second); err != nil {
		return fmt.Errorf("chain: %w", err)
	}
	return nil
}
