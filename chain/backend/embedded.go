package backend

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
	"github.com/ethereum/go-ethereum/crypto"
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
)

// EmbeddedChainID is the chain id of the embedded chain (that of go-ethereum's
// dev chain rules, params.AllDevChainProtocolChanges).
const EmbeddedChainID = 1337

// EmbeddedOptions configure an embedded chain.
type EmbeddedOptions struct {
	// Keys is the number of funded dev keys (default 4), each with 10,000 ETH.
	// They are derived deterministically (DevKey) so every run has the same
	// addresses; never use them on a real chain.
	Keys int
	// BlockPeriod mines an empty block this often, so confirmations advance
	// without traffic (default 1s; negative: never). A block with the pending
	// transactions is mined as soon as a transaction arrives (automine).
	BlockPeriod time.Duration
	// HTTP, when set, serves JSON-RPC (eth, net, web3, debug) on this
	// loopback address, e.g. "127.0.0.1:8545"; port 0 picks a free port.
	// debug_chainConfig answers the exact rules the chain runs, so a fork of
	// it (package evm) executes with them.
	HTTP string
	// GenesisTime is the genesis block's timestamp (Unix seconds); 0 means
	// go-ethereum's default, 0, so blocks follow the wall clock. A time
	// ahead of the wall clock fixes every block's time: go-ethereum's
	// simulated beacon stamps a block max(now, parent + 1), so block n is
	// at GenesisTime + n on every run (the time a fixed-time anvil gives
	// with a one-second interval).
	GenesisTime uint64
}

// DevKey returns the i-th deterministic dev key of the embedded chain:
// keccak256("afr embedded dev key " ‖ decimal i) as a secp256k1 scalar.
func DevKey(i int) *ecdsa.PrivateKey {
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("afr embedded dev key %d", i))))
	if err != nil {
		panic(err) // a keccak output is a valid scalar with overwhelming probability; checked by a test
	}
	return k
}

// Embedded is go-ethereum's in-process chain as its simulated backend
// (ethclient/simulated) assembles it: a node with the eth service, sealed by
// the simulated beacon (real blocks, receipts and logs), with automine,
// periodic empty blocks and, optionally, a JSON-RPC endpoint. It is assembled
// here rather than by simulated.NewBackend so that it can serve
// debug_chainConfig, which go-ethereum itself does not. It runs today's
// mainnet rules (Prague + Osaka), not the dev chain's unreleased forks, so
// gas matches anvil and mainnet.
type Embedded struct {
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

// NewEmbedded starts an embedded chain.
func NewEmbedded(opts EmbeddedOptions) (*Embedded, error) {
	if opts.Keys <= 0 {
		opts.Keys = 4
	}
	if opts.BlockPeriod == 0 {
		opts.BlockPeriod = time.Second
	}
	e := &Embedded{kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	// The node and eth service as simulated.NewBackend configures them.
	nodeConf := node.DefaultConfig
	nodeConf.DataDir = ""
	nodeConf.P2P = p2p.Config{NoDiscovery: true}
	if opts.HTTP != "" {
		host, port, err := freeAddr(opts.HTTP)
		if err != nil {
			return nil, err
		}
		nodeConf.HTTPHost, nodeConf.HTTPPort = host, port
		nodeConf.HTTPModules = []string{"eth", "net", "web3", "debug"}
		nodeConf.HTTPVirtualHosts = []string{"*"}
		e.url = fmt.Sprintf("http://%s", net.JoinHostPort(host, fmt.Sprint(port)))
	}
	genesis, keys := localGenesis(localRules(), opts.Keys, opts.GenesisTime)
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
func (e *Embedded) start(nodeConf *node.Config, ethConf *ethconfig.Config) error {
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
		{Namespace: "debug", Service: chainConfigAPI{e.config}},
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

// chainConfigAPI serves debug_chainConfig: the rules the chain runs, in
// go-ethereum's ChainConfig JSON (as op-geth and reth answer it).
type chainConfigAPI struct{ config *params.ChainConfig }

// ChainConfig is debug_chainConfig.
func (a chainConfigAPI) ChainConfig() *params.ChainConfig { return a.config }

// ChainConfig returns the rules the chain runs (debug_chainConfig answers
// the same).
func (e *Embedded) ChainConfig() *params.ChainConfig { return e.config }

// freeAddr resolves a loopback listen address, choosing a free port for
// port 0.
func freeAddr(addr string) (string, int, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("chain: http address %q: %w", addr, err)
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return "", 0, fmt.Errorf("chain: http address %q: only loopback addresses are served", addr)
	}
	if port != "0" {
		var p int
		_, err := fmt.Sscan(port, &p)
		return host, p, err
	}
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", 0, err
	}
	defer l.Close()
	return host, l.Addr().(*net.TCPAddr).Port, nil
}

// mine commits a block at once when a transaction is sent through
// Client(), when the pool reports pending transactions (checked every 5 ms;
// transactions sent over JSON-RPC), and an empty block every period. The
// pool reports a transaction as pending only after its own reorganisation,
// which can take a second or more, hence the kick from Client().
func (e *Embedded) mine(period time.Duration) {
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

// Name implements Backend.
func (e *Embedded) Name() string { return "embedded" }

// Client implements Backend. Transactions sent through it are mined at
// once.
func (e *Embedded) Client() chain.Client { return kickingClient{e.client, e.kick} }

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

// URL implements Backend: the JSON-RPC endpoint, or "" when not served.
func (e *Embedded) URL() string { return e.url }

// Keys implements Backend.
func (e *Embedded) Keys() []*ecdsa.PrivateKey { return e.keys }

// Pause stops mining (transactions stay pending) until Resume: for tests of
// stuck transactions.
func (e *Embedded) Pause() { e.mu.Lock(); e.paused = true; e.mu.Unlock() }

// Resume resumes mining.
func (e *Embedded) Resume() { e.mu.Lock(); e.paused = false; e.mu.Unlock() }

// Commit mines a block now.
func (e *Embedded) Commit() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.beacon.Commit()
}

// Snapshot implements Snapshotter: the id is the head block's hash.
func (e *Embedded) Snapshot(context.Context) (SnapshotID, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return SnapshotID(e.eth.BlockChain().CurrentBlock().Hash().Hex()), nil
}

// Revert implements Snapshotter: the snapshot's block becomes the head again
// (a reorg to an ancestor, as go-ethereum's simulated backend Fork does),
// the transactions the reorg would put back into the pool are dropped, and a
// fresh simulated beacon continues from that block, so the next block's
// time is the restored head's time + 1 again.
func (e *Embedded) Revert(_ context.Context, id SnapshotID) error {
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
func (e *Embedded) Close() error {
	var err error
	e.closed.Do(func() {
		close(e.stop)
		<-e.done
		e.client.Close()
		err = errors.Join(e.beacon.Stop(), e.stack.Close())
	})
	return err
}
