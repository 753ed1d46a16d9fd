package backend

// Cheatcodes: state set without transactions, transactions sent without a
// key, blocks mined on demand at a chosen time.

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/evm"
)

// Cheats is a Backend whose state can be changed without transactions and
// which sends transactions as any address, without its key, as forge's
// cheatcodes change revm's state: InProcess and Anvil (a fresh chain or a
// fork). A go-ethereum node (the embedded chain, an RPC endpoint) has none of
// this.
// A change made by SetBalance, SetStorage or SetCode is visible at once to
// calls and to the next transaction, and is part of the next block's state.
type Cheats interface {
	// SetBalance sets addr's balance to wei (0 ≤ wei < 2^256).
	SetBalance(ctx context.Context, addr common.Address, wei *big.Int) error
	// SetStorage sets the value of slot in addr's storage.
	SetStorage(ctx context.Context, addr common.Address, slot, value common.Hash) error
	// SetCode sets addr's code (empty: none).
	SetCode(ctx context.Context, addr common.Address, code []byte) error
	// SendAs sends tx as from, without a signature (tx is not signed; its
	// ChainID, V, R and S are ignored): it is executed, mined and answered
	// (receipt, logs, trace) like any other transaction of from, with from's
	// nonce, which tx.Nonce must be. It returns the transaction's hash.
	SendAs(ctx context.Context, from common.Address, tx *types.DynamicFeeTx) (common.Hash, error)
	// StorageReads returns the slots of addr's storage that msg reads or
	// writes when called on the head (eth_call, nothing kept), in ascending
	// order.
	StorageReads(ctx context.Context, msg ethereum.CallMsg, addr common.Address) ([]common.Hash, error)
}

// Miner is a Backend that mines empty blocks on demand: InProcess,
// Anvil and the embedded chain (package chain/backend/embedded).
type Miner interface {
	// Mine mines n empty blocks, each one second after its parent on a
	// chain whose blocks follow a fixed clock.
	Mine(ctx context.Context, n uint64) error
	// MineAt mines one empty block stamped t (Unix seconds), which must be
	// after the head's time (ErrTimeBackwards otherwise); the blocks after
	// it follow it.
	MineAt(ctx context.Context, t uint64) error
}

// ErrTimeBackwards is returned (wrapped) by MineAt for a time that is not
// after the head block's: a chain's blocks are stamped in increasing
// order.
var ErrTimeBackwards = errors.New("chain: a block must be stamped after its parent")

// TimeBackwards is the error MineAt returns for a time t that is not after
// the head block's time head.
func TimeBackwards(t, head uint64) error {
	return fmt.Errorf("%w: time %d is not after the head block's time %d", ErrTimeBackwards, t, head)
}

var (
	_ Cheats = (*InProcess)(nil)
	_ Cheats = (*Anvil)(nil)
	_ Miner  = (*InProcess)(nil)
	_ Miner  = (*Anvil)(nil)
)

// ---- in-process ----

// cheat applies f to the live state, under c.mu; the state now differs
// from the head block's root until the next block.
func (c *InProcess) cheat(f func(*evm.Env) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	if err := f(c.live); err != nil {
		return fmt.Errorf("chain: %w", err)
	}
	c.dirty = true
	return nil
}

// SetBalance implements Cheats.
func (c *InProcess) SetBalance(_ context.Context, addr common.Address, wei *big.Int) error {
	return c.cheat(func(e *evm.Env) error { return e.SetBalance(addr, wei) })
}

// SetStorage implements Cheats.
func (c *InProcess) SetStorage(_ context.Context, addr common.Address, slot, value common.Hash) error {
	return c.cheat(func(e *evm.Env) error { return e.SetStorage(addr, slot, value) })
}

// SetCode implements Cheats.
func (c *InProcess) SetCode(_ context.Context, addr common.Address, code []byte) error {
	return c.cheat(func(e *evm.Env) error { return e.SetCode(addr, code) })
}

// SendAs implements Cheats: the unsigned transaction is sealed in a block
// of its own, executed with from as its sender.
func (c *InProcess) SendAs(ctx context.Context, from common.Address, tx *types.DynamicFeeTx) (common.Hash, error) {
	d := *tx
	d.ChainID, d.V, d.R, d.S = new(big.Int).Set(c.config.ChainID), new(big.Int), new(big.Int), new(big.Int)
	t := types.NewTx(&d)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return common.Hash{}, errClosed
	}
	c.senders[t.Hash()] = from
	b, err := c.seal(ctx, t)
	if err != nil {
		delete(c.senders, t.Hash())
	}
	c.mu.Unlock()
	if err != nil {
		return common.Hash{}, err
	}
	c.announce(b)
	return t.Hash(), nil
}

// StorageReads implements Cheats with the prestate tracer.
func (c *InProcess) StorageReads(ctx context.Context, msg ethereum.CallMsg, addr common.Address) (slots []common.Hash, err error) {
	err = c.state(nil, func(e *evm.Env) error {
		res, err := e.Call(ctx, msg, &evm.CallOptions{Trace: &evm.TraceConfig{DisableCode: true}})
		if err != nil {
			return err
		}
		if res.Err != nil {
			return execErr(res.Err)
		}
		for k := range res.Trace.Pre[addr].Storage {
			slots = append(slots, k)
		}
		return nil
	})
	slices.SortFunc(slots, func(a, b common.Hash) int { return a.Cmp(b) })
	return slots, err
}

// Mine implements Miner.
func (c *InProcess) Mine(ctx context.Context, n uint64) error {
	for range n {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := c.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// MineAt implements Miner.
func (c *InProcess) MineAt(ctx context.Context, t uint64) error {
	c.mu.Lock()
	if head := c.head().block.Time(); !c.closed && t <= head {
		c.mu.Unlock()
		return TimeBackwards(t, head)
	}
	c.nextTime = t
	b, err := c.seal(ctx)
	c.nextTime = 0
	c.mu.Unlock()
	if err != nil {
		return err
	}
	c.announce(b)
	return nil
}

// ---- anvil ----

// SetBalance implements Cheats with anvil_setBalance.
func (a *Anvil) SetBalance(ctx context.Context, addr common.Address, wei *big.Int) error {
	if wei.Sign() < 0 || wei.BitLen() > 256 {
		return errors.New("chain: balance out of range")
	}
	return a.call(ctx, nil, "anvil_setBalance", addr, (*hexutil.Big)(wei))
}

// SetStorage implements Cheats with anvil_setStorageAt.
func (a *Anvil) SetStorage(ctx context.Context, addr common.Address, slot, value common.Hash) error {
	var ok bool
	if err := a.call(ctx, &ok, "anvil_setStorageAt", addr, slot, value); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("chain: anvil refused to set slot %s of %s", slot, addr)
	}
	return nil
}

// SetCode implements Cheats with anvil_setCode.
func (a *Anvil) SetCode(ctx context.Context, addr common.Address, code []byte) error {
	return a.call(ctx, nil, "anvil_setCode", addr, hexutil.Bytes(code))
}

// SendAs implements Cheats: anvil_impersonateAccount, an unsigned
// eth_sendTransaction from the address, anvil_stopImpersonatingAccount.
func (a *Anvil) SendAs(ctx context.Context, from common.Address, tx *types.DynamicFeeTx) (h common.Hash, err error) {
	if err := a.call(ctx, nil, "anvil_impersonateAccount", from); err != nil {
		return h, err
	}
	defer func() {
		if serr := a.call(context.WithoutCancel(ctx), nil, "anvil_stopImpersonatingAccount", from); err == nil {
			err = serr
		}
	}()
	args := map[string]any{
		"from":                 from,
		"nonce":                hexutil.Uint64(tx.Nonce),
		"gas":                  hexutil.Uint64(tx.Gas),
		"maxFeePerGas":         (*hexutil.Big)(tx.GasFeeCap),
		"maxPriorityFeePerGas": (*hexutil.Big)(tx.GasTipCap),
		"value":                (*hexutil.Big)(orZero(tx.Value)),
		"input":                hexutil.Bytes(tx.Data),
	}
	if tx.To != nil {
		args["to"] = *tx.To
	}
	err = a.call(ctx, &h, "eth_sendTransaction", args)
	return h, err
}

func orZero(x *big.Int) *big.Int {
	if x == nil {
		return new(big.Int)
	}
	return x
}

// StorageReads implements Cheats with debug_traceCall and the prestate
// tracer.
func (a *Anvil) StorageReads(ctx context.Context, msg ethereum.CallMsg, addr common.Address) ([]common.Hash, error) {
	call := map[string]any{"from": msg.From, "to": msg.To, "input": hexutil.Bytes(msg.Data)}
	if msg.Gas != 0 {
		call["gas"] = hexutil.Uint64(msg.Gas)
	}
	var pre map[common.Address]evm.AccountState
	if err := a.call(ctx, &pre, "debug_traceCall", call, "latest", map[string]any{"tracer": "prestateTracer", "tracerConfig": map[string]any{"disableCode": true}}); err != nil {
		return nil, err
	}
	var slots []common.Hash
	for k := range pre[addr].Storage {
		slots = append(slots, k)
	}
	slices.SortFunc(slots, func(a, b common.Hash) int { return a.Cmp(b) })
	return slots, nil
}

// Mine implements Miner with anvil_mine.
func (a *Anvil) Mine(ctx context.Context, n uint64) error {
	if n == 0 {
		return nil
	}
	return a.call(ctx, nil, "anvil_mine", hexutil.Uint64(n))
}

// MineAt implements Miner with evm_setNextBlockTimestamp and evm_mine,
// which a fixed block time interval (anvil_setBlockTimestampInterval)
// respects; evm_increaseTime does not move such a chain's clock.
func (a *Anvil) MineAt(ctx context.Context, t uint64) error {
	h, err := a.c.HeaderByNumber(ctx, nil)
	if err != nil {
		return fmt.Errorf("chain: %w", err)
	}
	if t <= h.Time {
		return TimeBackwards(t, h.Time)
	}
	if err := a.call(ctx, nil, "evm_setNextBlockTimestamp", hexutil.Uint64(t)); err != nil {
		return err
	}
	return a.call(ctx, nil, "evm_mine")
}

// call is Node.Call with the package's error prefix.
func (a *Anvil) call(ctx context.Context, result any, method string, params ...any) error {
	if err := a.Node.Call(ctx, result, method, params...); err != nil {
		return fmt.Errorf("chain: %w", err)
	}
	return nil
}
