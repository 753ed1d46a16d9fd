package backend

// The chain.Client of the in-process chain: go-ethereum's client interfaces
// answered from its blocks and state, with the answers (and errors) a
// go-ethereum node gives over JSON-RPC.

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/event"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agentflightrecorder/afr/evm"
)

// inprocClient implements chain.Client over an in-process chain.
type inprocClient struct{ c *InProcess }

// RevertError is the error of a call or gas estimate on the in-process chain
// that reverted, as a go-ethereum node answers it over JSON-RPC: the
// message "execution reverted" (with the reason when the data is an
// Error(string) or Panic(uint256)), code 3 and the revert data in hex, so
// chain.Reverted and chain.RevertData read it as they read a node's.
type RevertError struct {
	msg  string
	data []byte
}

func newRevertError(data []byte) *RevertError {
	msg := vm.ErrExecutionReverted.Error()
	if reason, err := abi.UnpackRevert(data); err == nil {
		msg += ": " + reason
	}
	return &RevertError{msg: msg, data: common.CopyBytes(data)}
}

func (e *RevertError) Error() string { return e.msg }

// ErrorCode implements rpc.Error: 3, as go-ethereum answers a revert.
func (e *RevertError) ErrorCode() int { return 3 }

// ErrorData implements rpc.DataError: the revert data, 0x-prefixed hex.
func (e *RevertError) ErrorData() any { return hexutil.Encode(e.data) }

// Is makes errors.Is(err, vm.ErrExecutionReverted) hold.
func (e *RevertError) Is(target error) bool { return target == vm.ErrExecutionReverted }

var (
	_ rpc.Error     = (*RevertError)(nil)
	_ rpc.DataError = (*RevertError)(nil)
)

// execErr converts an execution error of package evm into the node's.
func execErr(err error) error {
	var re *evm.RevertError
	if errors.As(err, &re) {
		return newRevertError(re.Data)
	}
	return err
}

func (cl inprocClient) ChainID(context.Context) (*big.Int, error) {
	return new(big.Int).Set(cl.c.config.ChainID), nil
}

func (cl inprocClient) BlockNumber(context.Context) (uint64, error) {
	c := cl.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, errClosed
	}
	return c.head().block.NumberU64(), nil
}

// number resolves a block number argument: nil and the negative tags
// (latest, pending, safe, finalized) are the head, earliest is 0. A block
// ahead of the head is ethereum.NotFound. c.mu is held.
func (c *InProcess) number(n *big.Int) (uint64, error) {
	if c.closed {
		return 0, errClosed
	}
	head := c.head().block.NumberU64()
	switch {
	case n == nil:
		return head, nil
	case n.Sign() < 0:
		if n.Int64() == int64(rpc.EarliestBlockNumber) {
			return 0, nil
		}
		return head, nil
	case !n.IsUint64() || n.Uint64() > head:
		return 0, ethereum.NotFound
	}
	return n.Uint64(), nil
}

// block returns the block numbered n (nil: the head). c.mu is held.
func (c *InProcess) block(n *big.Int) (*inprocBlock, error) {
	i, err := c.number(n)
	if err != nil {
		return nil, err
	}
	return c.blocks[i], nil
}

// blockByHash returns the canonical block with hash h. c.mu is held.
func (c *InProcess) blockByHash(h common.Hash) (*inprocBlock, error) {
	if c.closed {
		return nil, errClosed
	}
	n, ok := c.byHash[h]
	if !ok {
		return nil, ethereum.NotFound
	}
	return c.blocks[n], nil
}

func (cl inprocClient) BlockByHash(_ context.Context, h common.Hash) (*types.Block, error) {
	cl.c.mu.Lock()
	defer cl.c.mu.Unlock()
	b, err := cl.c.blockByHash(h)
	if err != nil {
		return nil, err
	}
	return b.block, nil
}

func (cl inprocClient) BlockByNumber(_ context.Context, n *big.Int) (*types.Block, error) {
	cl.c.mu.Lock()
	defer cl.c.mu.Unlock()
	b, err := cl.c.block(n)
	if err != nil {
		return nil, err
	}
	return b.block, nil
}

func (cl inprocClient) HeaderByHash(ctx context.Context, h common.Hash) (*types.Header, error) {
	b, err := cl.BlockByHash(ctx, h)
	if err != nil {
		return nil, err
	}
	return b.Header(), nil
}

func (cl inprocClient) HeaderByNumber(ctx context.Context, n *big.Int) (*types.Header, error) {
	b, err := cl.BlockByNumber(ctx, n)
	if err != nil {
		return nil, err
	}
	return b.Header(), nil
}

func (cl inprocClient) TransactionCount(ctx context.Context, h common.Hash) (uint, error) {
	b, err := cl.BlockByHash(ctx, h)
	if err != nil {
		return 0, err
	}
	return uint(len(b.Transactions())), nil
}

func (cl inprocClient) TransactionInBlock(ctx context.Context, h common.Hash, i uint) (*types.Transaction, error) {
	b, err := cl.BlockByHash(ctx, h)
	if err != nil {
		return nil, err
	}
	if i >= uint(len(b.Transactions())) {
		return nil, ethereum.NotFound
	}
	return b.Transactions()[i], nil
}

func (cl inprocClient) SubscribeNewHead(_ context.Context, ch chan<- *types.Header) (ethereum.Subscription, error) {
	return cl.c.scope.Track(cl.c.heads.Subscribe(ch)), nil
}

// state runs f on the state after block n (nil: the head). c.mu is held
// while f runs.
func (c *InProcess) state(n *big.Int, f func(*evm.Env) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, err := c.number(n)
	if err != nil {
		return err
	}
	env := c.live
	if i != c.head().block.NumberU64() {
		h := c.blocks[i].block.Header()
		if env, err = c.live.OpenAt(h.Root, blockContext(h)); err != nil {
			return err
		}
	}
	return f(env)
}

func (cl inprocClient) BalanceAt(_ context.Context, a common.Address, n *big.Int) (bal *big.Int, err error) {
	err = cl.c.state(n, func(e *evm.Env) error { bal, err = e.Balance(a); return err })
	return bal, err
}

func (cl inprocClient) StorageAt(_ context.Context, a common.Address, k common.Hash, n *big.Int) (v []byte, err error) {
	err = cl.c.state(n, func(e *evm.Env) error {
		h, err := e.Storage(a, k)
		v = h.Bytes()
		return err
	})
	return v, err
}

func (cl inprocClient) CodeAt(_ context.Context, a common.Address, n *big.Int) (code []byte, err error) {
	err = cl.c.state(n, func(e *evm.Env) error { code, err = e.Code(a); return err })
	return code, err
}

func (cl inprocClient) NonceAt(_ context.Context, a common.Address, n *big.Int) (nonce uint64, err error) {
	err = cl.c.state(n, func(e *evm.Env) error { nonce, err = e.Nonce(a); return err })
	return nonce, err
}

// The pending state is the head's: every transaction is sealed when sent.
func (cl inprocClient) PendingBalanceAt(ctx context.Context, a common.Address) (*big.Int, error) {
	return cl.BalanceAt(ctx, a, nil)
}

func (cl inprocClient) PendingStorageAt(ctx context.Context, a common.Address, k common.Hash) ([]byte, error) {
	return cl.StorageAt(ctx, a, k, nil)
}

func (cl inprocClient) PendingCodeAt(ctx context.Context, a common.Address) ([]byte, error) {
	return cl.CodeAt(ctx, a, nil)
}

func (cl inprocClient) PendingNonceAt(ctx context.Context, a common.Address) (uint64, error) {
	return cl.NonceAt(ctx, a, nil)
}

func (cl inprocClient) PendingTransactionCount(context.Context) (uint, error) { return 0, nil }

func (cl inprocClient) PendingCallContract(ctx context.Context, msg ethereum.CallMsg) ([]byte, error) {
	return cl.CallContract(ctx, msg, nil)
}

// CallContract is eth_call at block n (nil: the head).
func (cl inprocClient) CallContract(ctx context.Context, msg ethereum.CallMsg, n *big.Int) (out []byte, err error) {
	err = cl.c.state(n, func(e *evm.Env) error {
		res, err := e.Call(ctx, msg, cl.c.hooked(nil))
		if err != nil {
			return err
		}
		out = res.ReturnData
		return execErr(res.Err)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EstimateGas is eth_estimateGas at the head (evm.Env.EstimateGas: the
// search, cap and error ratio of go-ethereum's).
func (cl inprocClient) EstimateGas(ctx context.Context, msg ethereum.CallMsg) (gas uint64, err error) {
	err = cl.c.state(nil, func(e *evm.Env) error {
		gas, err = e.EstimateGas(ctx, msg)
		return execErr(err)
	})
	return gas, err
}

// suggestedTip is the priority fee the in-process chain suggests: 1 mwei,
// go-ethereum's default minimum tip for its miner (miner.DefaultConfig). It
// has no price oracle; the World pins its fees anyway (chain.FeeChooser).
const suggestedTip = 1_000_000

func (cl inprocClient) SuggestGasTipCap(context.Context) (*big.Int, error) {
	return big.NewInt(suggestedTip), nil
}

func (cl inprocClient) SuggestGasPrice(context.Context) (*big.Int, error) {
	c := cl.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errClosed
	}
	return new(big.Int).Add(c.nextHeader().BaseFee, big.NewInt(suggestedTip)), nil
}

// withTx runs f, under the chain's lock, on the block holding the canonical
// transaction h and its index there; found is false for an unknown hash.
func (c *InProcess) withTx(h common.Hash, f func(b *inprocBlock, i int)) (found bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false, errClosed
	}
	p, ok := c.txs[h]
	if !ok {
		return false, nil
	}
	f(c.blocks[p.block], p.index)
	return true, nil
}

func (cl inprocClient) TransactionByHash(_ context.Context, h common.Hash) (tx *types.Transaction, pending bool, err error) {
	found, err := cl.c.withTx(h, func(b *inprocBlock, i int) { tx = b.block.Transactions()[i] })
	if err == nil && !found {
		err = ethereum.NotFound
	}
	return tx, false, err
}

func (cl inprocClient) TransactionReceipt(_ context.Context, h common.Hash) (rc *types.Receipt, err error) {
	found, err := cl.c.withTx(h, func(b *inprocBlock, i int) { rc = b.receipts[i] })
	if err == nil && !found {
		err = ethereum.NotFound
	}
	return rc, err
}

func (cl inprocClient) SubscribeTransactionReceipts(_ context.Context, q *ethereum.TransactionReceiptsQuery, ch chan<- []*types.Receipt) (ethereum.Subscription, error) {
	want := map[common.Hash]bool{}
	if q != nil {
		for _, h := range q.TransactionHashes {
			want[h] = true
		}
	}
	src := make(chan []*types.Receipt)
	sub := cl.c.receipts.Subscribe(src)
	return cl.c.scope.Track(relay(sub, src, ch, func(rs []*types.Receipt) ([]*types.Receipt, bool) {
		if len(want) == 0 {
			return rs, true
		}
		var out []*types.Receipt
		for _, r := range rs {
			if want[r.TxHash] {
				out = append(out, r)
			}
		}
		return out, len(out) > 0
	})), nil
}

// SendTransaction executes tx at once in a block of its own. A transaction
// the chain refuses (an invalid signature or chain id, a nonce that is
// used or ahead of the sender's, too little balance, a fee cap below the
// base fee) is an error with go-ethereum's message, and nothing changes.
func (cl inprocClient) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	c := cl.c
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errClosed
	}
	if id := tx.ChainId(); tx.Protected() && id.Cmp(c.config.ChainID) != 0 {
		c.mu.Unlock()
		return fmt.Errorf("%w: have %d want %d", types.ErrInvalidChainId, id, c.config.ChainID)
	}
	if _, ok := c.txs[tx.Hash()]; ok {
		c.mu.Unlock()
		return fmt.Errorf("%w: transaction %s is mined", core.ErrNonceTooLow, tx.Hash())
	}
	b, err := c.seal(ctx, tx)
	c.mu.Unlock()
	if err != nil {
		return err
	}
	c.announce(b)
	return nil
}

// FilterLogs is eth_getLogs: by block hash, or over a block range (nil
// bounds: the head; a range past the head ends at the head).
func (cl inprocClient) FilterLogs(_ context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	c := cl.c
	c.mu.Lock()
	defer c.mu.Unlock()
	var blocks []*inprocBlock
	if q.BlockHash != nil {
		if q.FromBlock != nil || q.ToBlock != nil {
			return nil, errors.New("cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other")
		}
		b, err := c.blockByHash(*q.BlockHash)
		if err != nil {
			return nil, errors.New("unknown block")
		}
		blocks = []*inprocBlock{b}
	} else {
		if c.closed {
			return nil, errClosed
		}
		head := c.head().block.NumberU64()
		from, to := head, head
		if q.FromBlock != nil {
			if from = clampNumber(q.FromBlock, head); from > head {
				return nil, nil
			}
		}
		if q.ToBlock != nil {
			to = min(clampNumber(q.ToBlock, head), head)
		}
		if from > to {
			return nil, errors.New("invalid block range params")
		}
		blocks = c.blocks[from : to+1]
	}
	var out []types.Log
	for _, b := range blocks {
		if !bloomMatches(b.block.Bloom(), q) {
			continue
		}
		for _, r := range b.receipts {
			for _, l := range r.Logs {
				if logMatches(l, q) {
					out = append(out, *l)
				}
			}
		}
	}
	return out, nil
}

// clampNumber resolves a block number of a log query: negative tags are the
// head (earliest: 0); a number past the head stays past it.
func clampNumber(n *big.Int, head uint64) uint64 {
	switch {
	case n.Sign() < 0 && n.Int64() == int64(rpc.EarliestBlockNumber):
		return 0
	case n.Sign() < 0:
		return head
	case !n.IsUint64():
		return head + 1
	}
	return n.Uint64()
}

// bloomMatches reports whether a block's bloom may hold logs matching q.
func bloomMatches(bloom types.Bloom, q ethereum.FilterQuery) bool {
	if len(q.Addresses) > 0 && !slices.ContainsFunc(q.Addresses, func(a common.Address) bool { return types.BloomLookup(bloom, a) }) {
		return false
	}
	for _, alts := range q.Topics {
		if len(alts) > 0 && !slices.ContainsFunc(alts, func(t common.Hash) bool { return types.BloomLookup(bloom, t) }) {
			return false
		}
	}
	return true
}

// logMatches reports whether l matches q's addresses and topics, as
// eth_getLogs filters: any of the addresses; per position, any of the
// topics (an empty position matches every topic).
func logMatches(l *types.Log, q ethereum.FilterQuery) bool {
	if len(q.Addresses) > 0 && !slices.Contains(q.Addresses, l.Address) {
		return false
	}
	if len(q.Topics) > len(l.Topics) {
		return false
	}
	for i, alts := range q.Topics {
		if len(alts) > 0 && !slices.Contains(alts, l.Topics[i]) {
			return false
		}
	}
	return true
}

// SubscribeFilterLogs delivers the logs matching q of each block sealed
// after the call (q's block range is not consulted, as a node's log
// subscription ignores it).
func (cl inprocClient) SubscribeFilterLogs(_ context.Context, q ethereum.FilterQuery, ch chan<- types.Log) (ethereum.Subscription, error) {
	src := make(chan []*types.Log)
	sub := cl.c.logs.Subscribe(src)
	return cl.c.scope.Track(relayEach(sub, src, ch, func(l *types.Log) bool { return logMatches(l, q) })), nil
}

// relay forwards what src receives from sub to dst, as keep turns it, until
// the subscription ends.
func relay[T any](sub event.Subscription, src <-chan T, dst chan<- T, keep func(T) (T, bool)) event.Subscription {
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case v := <-src:
				out, ok := keep(v)
				if !ok {
					continue
				}
				select {
				case dst <- out:
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	})
}

// relayEach forwards each log of the blocks src receives that keep accepts.
func relayEach(sub event.Subscription, src <-chan []*types.Log, dst chan<- types.Log, keep func(*types.Log) bool) event.Subscription {
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case logs := <-src:
				for _, l := range logs {
					if !keep(l) {
						continue
					}
					select {
					case dst <- *l:
					case <-quit:
						return nil
					}
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	})
}
