package backend

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/event"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/evm"
)

// InProcessOptions configure an in-process chain.
type InProcessOptions struct {
	// Keys is the number of funded dev keys (default 4): DevKey(0), … with
	// 10,000 ETH each, as on the embedded chain.
	Keys int
	// GenesisTime is the genesis block's timestamp (Unix seconds). Each
	// block is one second after its parent, so block n is at GenesisTime +
	// n on every run. 0 means the wall clock: the genesis block is stamped
	// when the chain starts and each block max(now, parent + 1), as the
	// embedded chain stamps them.
	GenesisTime uint64
}

// InProcess is a chain executed directly by package evm in the process, as
// forge runs tests on revm: no node, no transaction pool, no consensus
// engine, no network. It has the embedded chain's genesis (rules, chain id,
// gas limit, system contracts, dev keys and balances), and each transaction
// sent through its Client is executed at once and sealed in a block of its
// own (automine, one block per transaction), whose base fee, blob fee and
// gas limit follow the parent's as go-ethereum's miner computes them. Gas,
// status and logs are therefore the embedded chain's, by construction; a
// differential test runs AFR's suites on both.
//
// Differences from the embedded chain, none of which changes gas: headers
// carry the root of the chain's own state, which omits the system calls
// (EIP-4788 beacon roots, EIP-2935 block hashes, EIP-7002/7251 request
// queues) a consensus client drives, so roots and hashes are not the
// embedded chain's; PREVRANDAO is keccak256 of the block number rather
// than random; a transaction whose nonce is ahead of its sender's is
// refused rather than queued. BLOCKHASH returns the chain's own hashes.
//
// Snapshot and Revert cost microseconds: a snapshot names a block, and
// Revert drops the blocks after it and reopens the state at its root.
//
// JSON-RPC is answered only when asked: Attach connects a client in the
// process (no HTTP), ServeRPC serves it on a loopback port (URL is "" until
// then), both with go-ethereum's rpc.Server and the answers a go-ethereum
// node gives.
type InProcess struct {
	config *params.ChainConfig
	keys   []*ecdsa.PrivateKey
	wall   bool   // blocks follow the wall clock (GenesisTime 0)
	id     uint64 // this chain among the process's in-process chains

	mu       sync.Mutex
	live     *evm.Env // the state after the head block, in the head's block context
	blocks   []*inprocBlock
	byHash   map[common.Hash]uint64 // block hash → number, canonical blocks only
	txs      map[common.Hash]txPos  // transaction hash → position, canonical blocks only
	closed   bool
	dirty    bool                           // the live state was changed since the head block (Cheats)
	nextTime uint64                         // when set, the next block's time (MineAt)
	senders  map[common.Hash]common.Address // the senders of unsigned transactions (SendAs)
	hooks    *tracing.Hooks                 // attached to transactions and calls (Cover)
	heads    event.Feed                     // *types.Header
	logs     event.Feed                     // []*types.Log of one block
	receipts event.Feed                     // []*types.Receipt of one block
	scope    event.SubscriptionScope

	rpcMu sync.Mutex // guards rpc; not held with mu
	rpc   *rpcServer // started by Attach or ServeRPC
}

// inprocBlock is a sealed block with its receipts.
type inprocBlock struct {
	block    *types.Block
	receipts []*types.Receipt
	pre      common.Hash // the state its transactions ran on: the parent's root, or that changed by cheats since
}

// txPos locates a transaction: its block and index in it.
type txPos struct {
	block uint64
	index int
}

// chains numbers the in-process chains of the process: two chains with the
// same genesis and transactions have the same block hashes, and a snapshot
// of one must not revert the other.
var chains atomic.Uint64

// errClosed is returned by every operation on a closed in-process chain.
var errClosed = errors.New("chain: the in-process chain is closed")

// devBalance is each dev key's balance on the local chains: 10,000 ETH.
var devBalance = new(big.Int).Mul(big.NewInt(10_000), big.NewInt(params.Ether))

// localRules returns the rules of the local chains (embedded and
// in-process): go-ethereum's dev chain rules without the forks that are
// not live anywhere (Amsterdam/Bogota state-access repricing), as the pdr
// and contracts gas tests use them.
func localRules() *params.ChainConfig {
	rules := *params.AllDevChainProtocolChanges
	rules.AmsterdamTime, rules.BogotaTime, rules.UBTTime = nil, nil, nil
	return &rules
}

// localGenesis is the genesis of the local chains: the system contracts
// the rules' forks call, and n dev keys with devBalance each.
func localGenesis(rules *params.ChainConfig, n int, time uint64) (*core.Genesis, []*ecdsa.PrivateKey) {
	alloc := core.SystemContractAllocs()
	var keys []*ecdsa.PrivateKey
	for i := range n {
		k := DevKey(i)
		keys = append(keys, k)
		alloc[chain.Address(k)] = types.Account{Balance: devBalance}
	}
	return &core.Genesis{Config: rules, GasLimit: localGasLimit, Alloc: alloc, Timestamp: time}, keys
}

// localGasLimit is the local chains' block gas limit: go-ethereum's
// miner's gas ceiling, which its miner keeps blocks at.
var localGasLimit = ethconfig.Defaults.Miner.GasCeil

// NewInProcess starts an in-process chain.
func NewInProcess(opts InProcessOptions) (*InProcess, error) {
	if opts.Keys <= 0 {
		opts.Keys = 4
	}
	c := &InProcess{config: localRules(), wall: opts.GenesisTime == 0, id: chains.Add(1), byHash: map[common.Hash]uint64{}, txs: map[common.Hash]txPos{}, senders: map[common.Hash]common.Address{}}
	t := opts.GenesisTime
	if c.wall {
		t = uint64(time.Now().Unix())
	}
	g, keys := localGenesis(c.config, opts.Keys, t)
	c.keys = keys
	genesis := g.ToBlock()
	env, err := evm.New(evm.Config{ChainConfig: c.config, Alloc: g.Alloc, Block: ptr(blockContext(genesis.Header())), BlockHash: c.blockHash})
	if err != nil {
		return nil, fmt.Errorf("chain: start in-process chain: %w", err)
	}
	root, err := env.Commit()
	if err != nil {
		return nil, fmt.Errorf("chain: start in-process chain: %w", err)
	}
	if root != genesis.Root() {
		return nil, fmt.Errorf("chain: start in-process chain: genesis state root %s, want %s", root, genesis.Root())
	}
	c.live = env
	c.append(&inprocBlock{block: genesis})
	return c, nil
}

func ptr[T any](v T) *T { return &v }

// blockContext is the block context of executions in the block h.
func blockContext(h *types.Header) evm.Block {
	return evm.Block{Number: h.Number.Uint64(), Time: h.Time, GasLimit: h.GasLimit, BaseFee: h.BaseFee,
		BlobBaseFee: blobBaseFee(h), Coinbase: h.Coinbase, PrevRandao: h.MixDigest, Hash: h.Hash()}
}

// blobBaseFee is the blob base fee of h under the local rules.
func blobBaseFee(h *types.Header) *big.Int {
	if h.ExcessBlobGas == nil {
		return nil
	}
	return eip4844.CalcBlobFee(localRules(), h)
}

// blockHash answers BLOCKHASH from the chain's own blocks. It runs inside
// executions, with c.mu held.
func (c *InProcess) blockHash(n uint64) common.Hash {
	if n < uint64(len(c.blocks)) {
		return c.blocks[n].block.Hash()
	}
	return common.Hash{}
}

// append makes b the head.
func (c *InProcess) append(b *inprocBlock) {
	n := b.block.NumberU64()
	c.blocks = append(c.blocks, b)
	c.byHash[b.block.Hash()] = n
	for i, tx := range b.block.Transactions() {
		c.txs[tx.Hash()] = txPos{block: n, index: i}
	}
}

func (c *InProcess) head() *inprocBlock { return c.blocks[len(c.blocks)-1] }

// nextHeader is the header of the block after the head, before execution
// (no root, gas used or hashes of its contents): number, time, gas limit,
// base fee and excess blob gas follow the parent as go-ethereum's miner
// sets them (miner.prepareWork).
func (c *InProcess) nextHeader() *types.Header {
	parent := c.head().block.Header()
	t := parent.Time + 1
	if now := uint64(time.Now().Unix()); c.wall && now > t {
		t = now
	}
	if c.nextTime != 0 {
		t = c.nextTime
	}
	n := new(big.Int).Add(parent.Number, common.Big1)
	h := &types.Header{
		ParentHash: parent.Hash(),
		Number:     n,
		GasLimit:   core.CalcGasLimit(parent.GasLimit, localGasLimit),
		Time:       t,
		Difficulty: new(big.Int),
		MixDigest:  crypto.Keccak256Hash(n.Bytes()),
		BaseFee:    eip1559.CalcBaseFee(c.config, parent),
	}
	if c.config.IsCancun(n, t) {
		excess := eip4844.CalcExcessBlobGas(c.config, parent, t)
		h.ExcessBlobGas, h.BlobGasUsed, h.ParentBeaconRoot = &excess, new(uint64), &common.Hash{}
	}
	if c.config.IsPrague(n, t) {
		h.RequestsHash = &types.EmptyRequestsHash
	}
	return h
}

// seal executes txs (none: an empty block) in a new block on the head and
// makes it the head. A transaction the chain refuses (nonce, balance, fee
// cap) leaves the chain as it was. c.mu is held.
func (c *InProcess) seal(ctx context.Context, txs ...*types.Transaction) (*inprocBlock, error) {
	if c.closed {
		return nil, errClosed
	}
	pre := c.head().block.Root()
	if c.dirty {
		root, err := c.live.Commit()
		if err != nil {
			return nil, err
		}
		pre = root
	}
	h := c.nextHeader()
	headCtx := c.live.Block()
	c.live.SetBlock(blockContext(h))
	receipts := make([]*types.Receipt, 0, len(txs))
	for _, tx := range txs {
		res, err := c.live.ApplyTransaction(ctx, tx, c.hooked(c.sentAs(tx)))
		if err != nil {
			// Refused before execution: the state is unchanged (evm's
			// ApplyTransaction checks everything before it spends gas).
			c.live.SetBlock(headCtx)
			return nil, err
		}
		h.GasUsed += res.Receipt.GasUsed
		if h.BlobGasUsed != nil {
			*h.BlobGasUsed += res.Receipt.BlobGasUsed
		}
		receipts = append(receipts, res.Receipt)
	}
	root, err := c.live.Commit()
	if err != nil {
		return nil, err
	}
	h.Root, c.dirty = root, false
	blk := types.NewBlock(h, &types.Body{Transactions: txs, Withdrawals: []*types.Withdrawal{}}, receipts, trie.NewStackTrie(nil))
	hash := blk.Hash()
	logIndex := uint(0)
	for i, r := range receipts {
		r.BlockHash, r.BlockNumber, r.TransactionIndex = hash, blk.Number(), uint(i)
		for _, l := range r.Logs {
			l.BlockHash, l.BlockNumber, l.BlockTimestamp, l.TxHash, l.TxIndex, l.Index = hash, blk.NumberU64(), blk.Time(), r.TxHash, uint(i), logIndex
			logIndex++
		}
	}
	b := &inprocBlock{block: blk, receipts: receipts, pre: pre}
	c.append(b)
	c.live.SetBlock(blockContext(blk.Header()))
	return b, nil
}

// hooked is opts with the chain's hooks (Cover), if any. c.mu is held.
func (c *InProcess) hooked(opts *evm.CallOptions) *evm.CallOptions {
	if c.hooks == nil {
		return opts
	}
	if opts == nil {
		opts = &evm.CallOptions{}
	}
	opts.Hooks = c.hooks
	return opts
}

// announce tells the subscribers about the new head b. c.mu is not held:
// a subscriber's channel may be read by a goroutine that calls the chain.
func (c *InProcess) announce(b *inprocBlock) {
	c.heads.Send(b.block.Header())
	var logs []*types.Log
	for _, r := range b.receipts {
		logs = append(logs, r.Logs...)
	}
	if len(logs) > 0 {
		c.logs.Send(logs)
	}
	if len(b.receipts) > 0 {
		c.receipts.Send(b.receipts)
	}
}

// Commit seals an empty block now (confirmations advance without traffic).
func (c *InProcess) Commit() error {
	c.mu.Lock()
	b, err := c.seal(context.Background())
	c.mu.Unlock()
	if err != nil {
		return err
	}
	c.announce(b)
	return nil
}

// Name implements Backend.
func (c *InProcess) Name() string { return string(KindInProcess) }

// Client implements Backend.
func (c *InProcess) Client() chain.Client { return inprocClient{c} }

// URL implements Backend: the loopback URL ServeRPC serves, "" before it.
func (c *InProcess) URL() string {
	c.rpcMu.Lock()
	defer c.rpcMu.Unlock()
	if c.rpc == nil {
		return ""
	}
	return c.rpc.url
}

// Keys implements Backend.
func (c *InProcess) Keys() []*ecdsa.PrivateKey { return c.keys }

// ChainConfig returns the rules the chain runs (the embedded chain's).
func (c *InProcess) ChainConfig() *params.ChainConfig { return c.config }

// Snapshot implements Snapshotter: the id names this chain and its head
// block's hash ("inproc-<chain>-<hash>"), and the root of the state after
// it when Cheats changed the state since ("inproc-<chain>-<hash>-<root>").
func (c *InProcess) Snapshot(context.Context) (SnapshotID, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return "", errClosed
	}
	id := c.snapshotID(c.head().block.Hash())
	if c.dirty {
		root, err := c.live.Commit()
		if err != nil {
			return "", fmt.Errorf("chain: snapshot: %w", err)
		}
		id += SnapshotID("-" + root.Hex())
	}
	return id, nil
}

func (c *InProcess) snapshotID(h common.Hash) SnapshotID {
	return SnapshotID(fmt.Sprintf("inproc-%d-%s", c.id, h.Hex()))
}

// Revert implements Snapshotter: the blocks after the snapshot's leave the
// chain with their transactions, and the state is reopened at the
// snapshot block's root.
func (c *InProcess) Revert(_ context.Context, id SnapshotID) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	rest, ok := strings.CutPrefix(string(id), fmt.Sprintf("inproc-%d-", c.id))
	hash, root, dirty := strings.Cut(rest, "-")
	n, known := c.byHash[common.HexToHash(hash)]
	want := c.snapshotID(common.HexToHash(hash))
	if dirty {
		want += SnapshotID("-" + common.HexToHash(root).Hex())
	}
	if !ok || !known || want != id {
		return fmt.Errorf("chain: no snapshot %q on this in-process chain", id)
	}
	h := c.blocks[n].block.Header()
	stateRoot := h.Root
	if dirty {
		stateRoot = common.HexToHash(root)
	}
	env, err := c.live.OpenAt(stateRoot, blockContext(h))
	if err != nil {
		return fmt.Errorf("chain: revert to block %d: %w", n, err)
	}
	for _, b := range c.blocks[n+1:] {
		delete(c.byHash, b.block.Hash())
		for _, tx := range b.block.Transactions() {
			delete(c.txs, tx.Hash())
			delete(c.senders, tx.Hash())
		}
	}
	clear(c.blocks[n+1:])
	c.blocks, c.live, c.dirty = c.blocks[:n+1], env, dirty
	return nil
}

// Close stops the chain: every later call fails, subscriptions end, and
// the JSON-RPC server, its HTTP listener and Attach's client stop.
func (c *InProcess) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.scope.Close()
	c.closeRPC()
	return nil
}
