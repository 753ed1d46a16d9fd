package tracesim

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/evm"
)

// CallRequest is a proposed call: what an agent asks to send. Beyond the
// call itself it can carry every field a transaction of any type has, so
// that what is simulated is what would be sent.
type CallRequest struct {
	From  common.Address  `json:"from"`
	To    *common.Address `json:"to"` // nil for a contract creation
	Value *big.Int        `json:"value,omitempty"`
	Data  []byte          `json:"data,omitempty"`
	// Gas is the gas limit; 0 means the block gas limit.
	Gas uint64 `json:"gas,omitempty"`
	// Nonce, when set, is the sender's nonce for the call (CREATE addresses
	// derive from it); otherwise the account's current nonce.
	Nonce *uint64 `json:"nonce,omitempty"`
	// GasPrice (legacy and access-list transactions) or GasFeeCap and
	// GasTipCap (EIP-1559): with any of them the sender pays for gas and
	// GASPRICE reads the effective price; with none, gas is free.
	GasPrice  *big.Int `json:"gasPrice,omitempty"`
	GasFeeCap *big.Int `json:"maxFeePerGas,omitempty"`
	GasTipCap *big.Int `json:"maxPriorityFeePerGas,omitempty"`
	// AccessList is the EIP-2930 access list.
	AccessList types.AccessList `json:"accessList,omitempty"`
	// AuthorizationList makes the call an EIP-7702 set-code transaction.
	AuthorizationList []types.SetCodeAuthorization `json:"authorizationList,omitempty"`
	// BlobHashes and BlobGasFeeCap make it an EIP-4844 blob transaction.
	BlobHashes    []common.Hash `json:"blobVersionedHashes,omitempty"`
	BlobGasFeeCap *big.Int      `json:"maxFeePerBlobGas,omitempty"`
}

// RequestOf is the request that sends the signed transaction tx, with its
// sender recovered by signer (types.MakeSigner of the chain rules at the
// block, or types.LatestSignerForChainID).
func RequestOf(tx *types.Transaction, signer types.Signer) (CallRequest, error) {
	from, err := types.Sender(signer, tx)
	if err != nil {
		return CallRequest{}, fmt.Errorf("tracesim: transaction %s: sender: %w", tx.Hash().Hex(), err)
	}
	nonce := tx.Nonce()
	r := CallRequest{
		From: from, To: tx.To(), Value: tx.Value(), Data: tx.Data(), Gas: tx.Gas(), Nonce: &nonce,
		AccessList: tx.AccessList(), AuthorizationList: tx.SetCodeAuthorizations(), BlobHashes: tx.BlobHashes(),
	}
	switch tx.Type() {
	case types.LegacyTxType, types.AccessListTxType:
		r.GasPrice = tx.GasPrice()
	default:
		r.GasFeeCap, r.GasTipCap = tx.GasFeeCap(), tx.GasTipCap()
	}
	if tx.Type() == types.BlobTxType {
		r.BlobGasFeeCap = tx.BlobGasFeeCap()
	}
	return r, nil
}

func (c *CallRequest) msg() ethereum.CallMsg {
	return ethereum.CallMsg{
		From: c.From, To: c.To, Value: c.Value, Data: c.Data, Gas: c.Gas,
		GasPrice: c.GasPrice, GasFeeCap: c.GasFeeCap, GasTipCap: c.GasTipCap, AccessList: c.AccessList,
		AuthorizationList: c.AuthorizationList, BlobHashes: c.BlobHashes, BlobGasFeeCap: c.BlobGasFeeCap,
	}
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
		res, err := env.Transact(ctx, c.msg(), &evm.CallOptions{Block: opts.Block, Nonce: c.Nonce, Trace: evm.FullTrace()})
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
