package backend

import (
	"context"
	"errors"

	"github.com/ethereum/go-ethereum"

	"github.com/agentflightrecorder/afr/evm"
)

// Applier is a Backend that runs a call on its latest state and keeps
// the call's effects without sealing a block, as forge runs the calls of
// a test: no transaction, no receipt, no block; the sender's nonce moves
// on, no gas is paid, the block number and time stay. The in-process
// chain offers it; reads of the latest state (eth_call, balances) see the
// effects, a Snapshot taken after them keeps them and a Revert to an
// earlier one drops them.
type Applier interface {
	// Apply runs msg (From, To, Value, Data, Gas as its gas limit) and
	// returns the execution; a call that reverts is a Result with Err set
	// (its effects undone but the nonce), not an error. The error is a
	// call the chain cannot run at all (closed, no gas limit, a nonce or
	// balance the state refuses).
	Apply(ctx context.Context, msg ethereum.CallMsg) (*evm.Result, error)
}

// Apply implements Applier: msg runs on the live state with the
// chain's hooks (Cover), which is then dirty, as after a cheat.
func (c *InProcess) Apply(ctx context.Context, msg ethereum.CallMsg) (res *evm.Result, err error) {
	if msg.Gas == 0 {
		return nil, errors.New("chain: apply: no gas limit")
	}
	if msg.GasPrice != nil || msg.GasFeeCap != nil || msg.GasTipCap != nil {
		return nil, errors.New("chain: apply: no gas price: an applied call pays no gas")
	}
	err = c.cheat(func(e *evm.Env) error {
		res, err = e.Transact(ctx, msg, c.hooked(nil))
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
