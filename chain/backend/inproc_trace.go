package backend

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/evm"
)

// Tracer is a Backend that traces without JSON-RPC: the in-process chain
// re-executes on its own state what a node's debug_traceTransaction and a
// traced eth_call would, with go-ethereum's tracers (evm.FullTrace).
type Tracer interface {
	// TraceTransaction re-executes the mined transaction hash on the
	// state before it, in its block's context.
	TraceTransaction(ctx context.Context, hash common.Hash) (*evm.Result, error)
	// TraceCall executes msg as eth_call did at block number (that
	// block's state and context); a non-zero hash must be the block's.
	TraceCall(ctx context.Context, number uint64, hash common.Hash, msg ethereum.CallMsg) (*evm.Result, error)
}

// TraceTransaction implements Tracer.
func (c *InProcess) TraceTransaction(ctx context.Context, hash common.Hash) (*evm.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pos, env, err := c.preState(hash)
	if err != nil {
		return nil, fmt.Errorf("chain: trace: %w", err)
	}
	txs := c.blocks[pos.block].block.Transactions()
	for _, tx := range txs[:pos.index] { // the block's transactions before it
		if _, err := env.ApplyTransaction(ctx, tx, c.sentAs(tx)); err != nil {
			return nil, fmt.Errorf("chain: trace: %w", err)
		}
	}
	opts := c.sentAs(txs[pos.index])
	if opts == nil {
		opts = &evm.CallOptions{}
	}
	opts.Trace = evm.FullTrace()
	return env.ApplyTransaction(ctx, txs[pos.index], opts)
}

// AtMined calls f with the block holding the mined transaction hash, its
// receipts and an Env on the state the block's transactions ran on, in the
// block's context, with the chain locked while f runs (tracesim.Source:
// a replay with no JSON-RPC round trip).
func (c *InProcess) AtMined(_ context.Context, hash common.Hash, f func(*types.Block, []*types.Receipt, *evm.Env) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	pos, env, err := c.preState(hash)
	if err != nil {
		return err
	}
	b := c.blocks[pos.block]
	return f(b.block, b.receipts, env)
}

// preState locates the mined transaction hash and opens the state its
// block's transactions ran on, in the block's context. c.mu is held.
func (c *InProcess) preState(hash common.Hash) (txPos, *evm.Env, error) {
	if c.closed {
		return txPos{}, nil, errClosed
	}
	pos, ok := c.txs[hash]
	if !ok || pos.block == 0 {
		return txPos{}, nil, fmt.Errorf("no transaction %s on this in-process chain", hash)
	}
	b := c.blocks[pos.block]
	env, err := c.live.OpenAt(b.pre, blockContext(b.block.Header()))
	return pos, env, err
}

// sentAs is how tx was applied: as its sender without a signature (SendAs),
// or nil for a signed transaction. c.mu is held.
func (c *InProcess) sentAs(tx *types.Transaction) *evm.CallOptions {
	if from, ok := c.senders[tx.Hash()]; ok {
		return &evm.CallOptions{Sender: &from}
	}
	return nil
}

// TraceCall implements Tracer.
func (c *InProcess) TraceCall(ctx context.Context, number uint64, hash common.Hash, msg ethereum.CallMsg) (*evm.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errClosed
	}
	if number >= uint64(len(c.blocks)) {
		return nil, fmt.Errorf("chain: trace: no block %d on this in-process chain", number)
	}
	b := c.blocks[number].block
	if hash != (common.Hash{}) && b.Hash() != hash {
		return nil, fmt.Errorf("chain: trace: block %d is now %s, not %s (the chain was reverted since)", number, b.Hash().Hex(), hash.Hex())
	}
	env := c.live // the head with what cheats changed since, as the simulation saw it
	if number != c.head().block.NumberU64() {
		var err error
		if env, err = c.live.OpenAt(b.Root(), blockContext(b.Header())); err != nil {
			return nil, fmt.Errorf("chain: trace: %w", err)
		}
	}
	return env.Call(ctx, msg, &evm.CallOptions{Trace: evm.FullTrace()})
}
