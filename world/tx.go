package world

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/internal/show"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

// TxResult is the outcome of sending a transaction: mined (Receipt set) or
// refused before it was sent because it would revert (Reverted, with the
// revert data the node returned).
type TxResult struct {
	From  *Actor
	To    common.Address
	Value *big.Int
	Data  []byte

	Receipt *types.Receipt // nil when not mined
	// Reverted is true when the call reverts: in simulation (not sent) or
	// on chain (Receipt.Status 0).
	Reverted   bool
	RevertData []byte
	// Err is any failure: the revert, or an RPC error.
	Err error

	// Registry is the registry of the World that produced the result: the
	// matchers decode reverts and events with it (nil: AFR's contracts and
	// the standard ERC-20/721 events only). Client is that World's client:
	// the balance matchers read balances before and after the transaction
	// through it.
	Registry *calldata.Registry
	Client   chain.Client
}

// Succeeded reports whether the transaction was mined with status 1.
func (r *TxResult) Succeeded() bool {
	return r != nil && r.Receipt != nil && r.Receipt.Status == types.ReceiptStatusSuccessful
}

// String summarises the result for failure messages.
func (r *TxResult) String() string {
	if r == nil {
		return "<nil transaction result>"
	}
	to := r.target()
	switch {
	case r.Succeeded():
		return fmt.Sprintf("call to %s succeeded (gas %s; block %d, transaction %s)", to, show.Commas(r.Receipt.GasUsed), r.Receipt.BlockNumber, r.Receipt.TxHash)
	case r.Reverted:
		return fmt.Sprintf("call to %s reverted with %s", to, r.DecodeRevert().Qualified())
	case r.Err != nil:
		return fmt.Sprintf("call to %s failed: %v", to, r.Err)
	}
	return fmt.Sprintf("call to %s: no outcome", to)
}

// target names the called contract: its registry name and address.
func (r *TxResult) target() string { return show.Address(r.Registry, r.To) }

// Send sends a transaction from an actor. Like a relayer, it first simulates
// the call (eth_call on the latest block): a call that would revert is not
// broadcast, and the result carries its revert data. Otherwise the
// transaction is signed, sent and waited for.
func (w *World) Send(ctx context.Context, from *Actor, to common.Address, value *big.Int, data []byte) *TxResult {
	if value == nil {
		value = new(big.Int)
	}
	res := &TxResult{From: from, To: to, Value: value, Data: data, Registry: w.registry, Client: w.client}
	_, err := w.client.CallContract(ctx, ethereum.CallMsg{From: from.Address, To: &to, Value: value, Data: data}, nil)
	if err != nil {
		res.Err = err
		res.RevertData, res.Reverted = chain.Reverted(err)
		return res
	}
	rc, err := chain.Transact(ctx, w.client, from.Key, &to, value, data)
	res.Receipt, res.Err = rc, err
	if rc != nil && rc.Status != types.ReceiptStatusSuccessful {
		res.Reverted = true
	}
	return res
}

// ---- decoding ----

// standardRegistry holds the standard ERC-20 and ERC-721 event and error
// definitions: a token the World did not deploy (on a fork, say) still
// decodes. Lookups try the World's registry first.
var standardRegistry = func() *calldata.Registry {
	r := calldata.NewRegistry()
	for name, src := range map[string]string{"ERC20": erc20JSON, "ERC721": erc721JSON} {
		if err := r.Add(name, "standard", *mustABI(src)); err != nil {
			panic(err)
		}
	}
	return r
}()

// afrRegistry is what decodes without a World: AFR's own contracts.
var afrRegistry = onchain.DefaultRegistry()

const (
	erc20JSON = `[
{"type":"function","name":"balanceOf","inputs":[{"name":"account","type":"address"}],"outputs":[{"name":"","type":"uint256"}],"stateMutability":"view"},
{"type":"event","name":"Transfer","inputs":[{"name":"from","type":"address","indexed":true},{"name":"to","type":"address","indexed":true},{"name":"value","type":"uint256","indexed":false}]},
{"type":"event","name":"Approval","inputs":[{"name":"owner","type":"address","indexed":true},{"name":"spender","type":"address","indexed":true},{"name":"value","type":"uint256","indexed":false}]}]`
	erc721JSON = `[
{"type":"event","name":"Transfer","inputs":[{"name":"from","type":"address","indexed":true},{"name":"to","type":"address","indexed":true},{"name":"tokenId","type":"uint256","indexed":true}]},
{"type":"event","name":"Approval","inputs":[{"name":"owner","type":"address","indexed":true},{"name":"approved","type":"address","indexed":true},{"name":"tokenId","type":"uint256","indexed":true}]},
{"type":"event","name":"ApprovalForAll","inputs":[{"name":"owner","type":"address","indexed":true},{"name":"operator","type":"address","indexed":true},{"name":"approved","type":"bool","indexed":false}]}]`
)

// Decoders returns the registries a result of the World decodes with: its
// registry r (AFR's contracts when nil), then the standard ERC-20 and
// ERC-721 definitions.
func Decoders(r *calldata.Registry) []*calldata.Registry {
	if r == nil {
		r = afrRegistry
	}
	return []*calldata.Registry{r, standardRegistry}
}

// DecodeRevert decodes revert data without a World: a custom error of AFR's
// contracts, Error(string) or Panic(uint256). Results of World.Send decode
// with the World's registry (TxResult.DecodeRevert).
func DecodeRevert(data []byte) *calldata.Revert { return DecodeRevertAt(nil, data, nil) }

// DescribeRevert is DecodeRevert(data).String().
func DescribeRevert(data []byte) string { return DecodeRevert(data).String() }

// DecodeRevertAt decodes data with reg (nil: AFR's contracts); at, when
// set, is the contract that reverted, whose errors win a selector
// collision (calldata.DecodeRevert).
func DecodeRevertAt(reg *calldata.Registry, data []byte, at *common.Address) *calldata.Revert {
	if reg == nil {
		reg = afrRegistry
	}
	var addr common.Address
	if at != nil {
		addr = *at
	}
	return calldata.DecodeRevert(reg, data, addr)
}

// DecodeRevert decodes the result's revert data with the registry of the
// World that produced it (every contract it deployed or loaded, and ABIs
// added by hand), preferring the errors of the contract bound to r.To.
func (r *TxResult) DecodeRevert() *calldata.Revert {
	return DecodeRevertAt(r.Registry, r.RevertData, &r.To)
}
