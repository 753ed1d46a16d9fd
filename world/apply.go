package world

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/evm"
)

// ErrNoApply is returned by Apply on a backend that cannot run a call
// in place (any but the in-process chain): send it instead.
var ErrNoApply = errors.New("world: this backend runs no call in place (only the in-process chain does): use Send")

// Applied is a call Apply ran in place: what a receipt would say,
// without the transaction.
type Applied struct {
	From  *Actor
	To    common.Address
	Value *big.Int
	Data  []byte
	// Reverted is true when the call reverted (its effects undone, its
	// sender's nonce moved on); RevertData is then its revert data, and
	// Err the EVM's error (a revert, out of gas, an invalid opcode).
	Reverted   bool
	RevertData []byte
	Err        error
	ReturnData []byte
	GasUsed    uint64
}

// Apply runs a call from an actor on the latest state and keeps its
// effects without mining it, as forge runs the calls of a test: no
// transaction is signed or sent, no block is sealed, no gas is paid, the
// block number and time stay; the sender's nonce moves on. gas is the
// call's gas limit. Reads of the latest state (calls, balances,
// invariants) see its effects, and World.Revert drops them. It is a
// fraction of a mined Send's cost (no state root to compute, no block),
// which is why fuzz campaigns search with it; a call run so has nothing
// to trace or record: Send it to have a transaction. Only the in-process
// chain can (ErrNoApply elsewhere); a prank does not apply.
func (w *World) Apply(ctx context.Context, from *Actor, to common.Address, value *big.Int, data []byte, gas uint64) (*Applied, error) {
	x, ok := w.chain.(backend.Applier)
	if !ok {
		return nil, fmt.Errorf("%w (backend %s)", ErrNoApply, w.kind)
	}
	if value == nil {
		value = new(big.Int)
	}
	res, err := x.Apply(ctx, ethereum.CallMsg{From: from.Address, To: &to, Value: value, Data: data, Gas: gas})
	if err != nil {
		return nil, fmt.Errorf("world: apply: %w", err)
	}
	ex := &Applied{From: from, To: to, Value: value, Data: data, Err: res.Err, ReturnData: res.ReturnData, GasUsed: res.GasUsed}
	if res.Err != nil {
		ex.Reverted = true
		var re *evm.RevertError
		if errors.As(res.Err, &re) {
			ex.RevertData = res.ReturnData
		}
	}
	return ex, nil
}

// CanApply reports whether the World's backend runs calls in place
// (Apply).
func (w *World) CanApply() bool {
	_, ok := w.chain.(backend.Applier)
	return ok
}
