package tracesim

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/evm"
)

// CallRequest is a proposed call: what an agent asks to send.
type CallRequest struct {
	From  common.Address  `json:"from"`
	To    *common.Address `json:"to"` // nil for a contract creation
	Value *big.Int        `json:"value,omitempty"`
	Data  []byte          `json:"data,omitempty"`
	// Gas is the gas limit; 0 means the block gas limit.
	Gas uint64 `json:"gas,omitempty"`
}

// SimOptions configure Simulate and SimulateBundle.
type SimOptions struct {
	Registry *calldata.Registry
	// State overrides are applied before the first call (eth_call's third
	// argument); Block overrides apply to every call (its fourth).
	State evm.StateOverride
	Block *evm.BlockOverrides
}

// Simulation is the predicted outcome of a call or bundle.
type Simulation struct {
	ChainID   uint64      `json:"chain_id"`
	Block     uint64      `json:"block"`
	BlockHash common.Hash `json:"block_hash,omitempty"`
	Calls     []Simulated `json:"calls"`
}

// Simulated is one simulated call.
type Simulated struct {
	Intent  calldata.Intent `json:"intent"`
	Effects *Effects        `json:"effects"`
}

// Simulate predicts what call would do on env's state (a fork pinned at a
// block, or any local state): it is executed as a transaction from
// call.From (its nonce, no fee), traced and decoded, and every change is
// discarded afterwards. A revert is a result (Effects.Status), not an error;
// the error is for calls that cannot be executed at all (missing state in
// replay-only mode, an invalid message).
func Simulate(ctx context.Context, env *evm.Env, call CallRequest, opts *SimOptions) (*Simulation, error) {
	return SimulateBundle(ctx, env, []CallRequest{call}, opts)
}

// SimulateBundle executes calls in order on env's state, each seeing the
// effects of the ones before it (a reverted call leaves only its nonce
// bump), and discards every change afterwards.
func SimulateBundle(ctx context.Context, env *evm.Env, calls []CallRequest, opts *SimOptions) (*Simulation, error) {
	if env == nil {
		return nil, errors.New("tracesim: simulate: no state (nil env)")
	}
	if opts == nil {
		opts = &SimOptions{}
	}
	snap := env.Snapshot()
	defer env.Revert(snap)
	if len(opts.State) > 0 {
		if err := env.ApplyOverrides(opts.State); err != nil {
			return nil, fmt.Errorf("tracesim: simulate: overrides: %w", err)
		}
	}
	chainID := env.ChainConfig().ChainID.Uint64()
	b := env.Block()
	out := &Simulation{ChainID: chainID, Block: b.Number, BlockHash: b.Hash}
	if f := env.Fork(); f != nil {
		out.BlockHash = f.Block().Hash
	}
	for i, c := range calls {
		msg := ethereum.CallMsg{From: c.From, To: c.To, Value: c.Value, Data: c.Data, Gas: c.Gas}
		res, err := env.Transact(ctx, msg, &evm.CallOptions{Block: opts.Block, Trace: evm.FullTrace()})
		if err != nil {
			return nil, fmt.Errorf("tracesim: simulate call %d: %w", i, err)
		}
		out.Calls = append(out.Calls, Simulated{
			Intent:  calldata.IntentOf(opts.Registry, chainID, c.From, c.To, c.Value, c.Data),
			Effects: EffectsOf(opts.Registry, res),
		})
	}
	return out, nil
}
