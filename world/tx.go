package world

import (
	"cmp"
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/internal/show"
	"github.com/agentflightrecorder/afr/tracesim"
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

	w           *World       // the World that sent it: traces
	on          *forkChain   // the chain it was sent on
	simulatedAt *simulatedAt // the block a refused call was simulated on
	unsigned    bool         // sent with Unsigned: no signature, as a pranked one
	trace       *Trace       // kept by Trace
	traceErr    error
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
		return fmt.Sprintf("call to %s reverted with %s", to, r.RevertString())
	case r.Err != nil:
		return fmt.Sprintf("call to %s failed: %v", to, r.Err)
	}
	return fmt.Sprintf("call to %s: no outcome", to)
}

// target names the called contract: its registry name and address.
func (r *TxResult) target() string { return show.Address(r.Registry, r.To) }

// RevertString is DecodeRevert().Qualified() with the addresses among the
// error's arguments named after the World's actors and contracts
// (Vault.NotOwner(caller=attacker (0x…), owner=owner (0x…))).
func (r *TxResult) RevertString() string {
	return tracesim.FormatRevert(r.DecodeRevert(), func(a common.Address) string { return show.Address(r.Registry, a) })
}

// SendOption modifies one Send.
type SendOption func(*sendOptions)

type sendOptions struct {
	gas      uint64 // MineReverting's
	limit    uint64 // GasLimit's
	unsigned bool
}

// MineReverting sends the transaction with gas as its gas limit, without
// simulating or estimating it first: a transaction that reverts is mined
// (receipt status 0), so that its receipt and gas can be asserted, as a
// transaction sent from a wallet with a fixed limit is. The result's
// RevertData is the revert data of its re-execution (Trace).
func MineReverting(gas uint64) SendOption { return func(o *sendOptions) { o.gas = gas } }

// GasLimit sends the transaction with gas as its limit instead of
// estimating it: the call is still simulated first, and not sent when it
// would revert (MineReverting sends it whatever it does).
func GasLimit(gas uint64) SendOption { return func(o *sendOptions) { o.limit = gas } }

// Unsigned sends the transaction as its sender without signing it where
// the backend can (the in-process chain seals it with the sender given;
// anvil, forks included, impersonates the sender), and signed elsewhere:
// no signature to make, none to recover. With GasLimit it is a
// simulation and one mined execution, no gas estimate: fuzz campaigns
// mine the sequence they return so on the in-process chain. Like a
// pranked one, an unsigned transaction cannot be recorded with RecordTx
// (ErrPrankedReplay) nor, on anvil, traced (its trace is a replay, which
// needs the signature): send it without Unsigned to have either.
func Unsigned() SendOption { return func(o *sendOptions) { o.unsigned = true } }

// Send sends a transaction from an actor. Like a relayer, it first simulates
// the call (eth_call on the latest block): a call that would revert is not
// broadcast, and the result carries its revert data. Otherwise the
// transaction is signed, sent and waited for. With MineReverting it is sent
// without simulation, and mined whatever it does.
func (w *World) Send(ctx context.Context, from *Actor, to common.Address, value *big.Int, data []byte, opts ...SendOption) *TxResult {
	var o sendOptions
	for _, opt := range opts {
		opt(&o)
	}
	if value == nil {
		value = new(big.Int)
	}
	if p := w.pranked(); p != nil {
		from = p
	}
	res := &TxResult{From: from, To: to, Value: value, Data: data, Registry: w.registry, Client: w.client, w: w, on: w.forkChain}
	_, cheats := w.chain.(backend.Cheats)
	res.unsigned = o.unsigned && cheats && from.Key != nil
	switch {
	case from.Key == nil || res.unsigned:
		// Pranked or Unsigned: sent without a signature (Cheats.SendAs),
		// simulated first unless MineReverting.
		if o.gas == 0 && w.refused(ctx, res) {
			return res
		}
		res.Receipt, res.Err = w.sendAs(ctx, from.Address, to, value, data, cmp.Or(o.gas, o.limit))
	case o.gas != 0:
		res.Receipt, res.Err = w.transactGas(ctx, from, to, value, data, o.gas)
	default:
		if w.refused(ctx, res) {
			return res
		}
		if o.limit != 0 {
			res.Receipt, res.Err = w.transactGas(ctx, from, to, value, data, o.limit)
		} else {
			res.Receipt, res.Err = chain.Transact(ctx, w.client, from.Key, &to, value, data)
		}
	}
	w.minedRevert(ctx, res)
	return res
}

// refused simulates the call of res on the latest block and reports
// whether it fails, filling res with the failure (and the block it was
// simulated on, for its trace).
func (w *World) refused(ctx context.Context, res *TxResult) bool {
	_, err := w.client.CallContract(ctx, ethereum.CallMsg{From: res.From.Address, To: &res.To, Value: res.Value, Data: res.Data}, nil)
	if err == nil {
		return false
	}
	res.Err = err
	res.RevertData, res.Reverted = chain.Reverted(err)
	if res.Reverted {
		res.simulatedAt = refusedAt(ctx, w.client)
	}
	return true
}

// minedRevert marks a mined transaction that failed as reverted and takes
// its revert data from its trace (a receipt has none).
func (w *World) minedRevert(ctx context.Context, res *TxResult) {
	if res.Receipt == nil || res.Receipt.Status == types.ReceiptStatusSuccessful {
		return
	}
	res.Reverted = true
	if t, err := res.Trace(ctx); err == nil && t.Calls.Reverted() {
		res.RevertData = common.CopyBytes(t.Calls.Output)
	}
}

// transactGas signs a transaction with a fixed gas limit and the World's
// fees, sends it and waits for its receipt, whatever its status.
func (w *World) transactGas(ctx context.Context, from *Actor, to common.Address, value *big.Int, data []byte, gas uint64) (*types.Receipt, error) {
	nonce, err := w.client.PendingNonceAt(ctx, from.Address)
	if err != nil {
		return nil, err
	}
	tip, feeCap, err := chain.Fees(ctx, w.client)
	if err != nil {
		return nil, err
	}
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: new(big.Int).SetUint64(w.chainID), Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
		Gas: gas, To: &to, Value: value, Data: data}), types.LatestSignerForChainID(new(big.Int).SetUint64(w.chainID)), from.Key)
	if err != nil {
		return nil, err
	}
	if err := w.client.SendTransaction(ctx, tx); err != nil {
		return nil, fmt.Errorf("world: send: %w", err)
	}
	return chain.WaitMined(ctx, w.client, tx.Hash())
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
{"type":"function","name":"totalSupply","inputs":[],"outputs":[{"name":"","type":"uint256"}],"stateMutability":"view"},
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
// added by hand) and the ABI of the contract that reverted: the errors of
// the contract bound to r.To when it declares the error; otherwise — the
// revert came from a contract it called, or r.To is not bound — the
// transaction is traced (Trace) and the data decoded with the ABI of the
// contract where the failure started, so an error that several contracts
// declare alike is named after the one that raised it.
func (r *TxResult) DecodeRevert() *calldata.Revert {
	rv := DecodeRevertAt(r.Registry, r.RevertData, &r.To)
	if rv.Kind != "custom" || r.w == nil {
		return rv
	}
	if bound, ok := r.Registry.BoundTo(r.To); ok && rv.Contract == bound {
		return rv
	}
	ctx, cancel := context.WithTimeout(context.Background(), traceTimeout)
	defer cancel()
	if t, err := r.Trace(ctx); err == nil && t.Revert != nil {
		return t.Revert
	}
	return rv
}
