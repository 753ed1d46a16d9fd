package afrspec

import (
	"context"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/chain"
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
		return fmt.Sprintf("call to %s succeeded (gas %s; block %d, transaction %s)", to, commas(r.Receipt.GasUsed), r.Receipt.BlockNumber, r.Receipt.TxHash)
	case r.Reverted:
		return fmt.Sprintf("call to %s reverted with %s", to, r.DecodeRevert().Qualified())
	case r.Err != nil:
		return fmt.Sprintf("call to %s failed: %v", to, r.Err)
	}
	return fmt.Sprintf("call to %s: no outcome", to)
}

// target names the called contract: its registry name and address.
func (r *TxResult) target() string { return nameOf(r.Registry, r.To) }

// nameOf names addr by the contract reg binds to it, if any.
func nameOf(reg *calldata.Registry, addr common.Address) string {
	if reg != nil {
		if n, ok := reg.BoundTo(addr); ok {
			return fmt.Sprintf("%s (%s)", n, addr.Hex())
		}
	}
	return addr.Hex()
}

// Send sends a transaction from an actor. Like a relayer, it first simulates
// the call (eth_call on the latest block): a call that would revert is not
// broadcast, and the result carries its revert data. Otherwise the
// transaction is signed, sent and waited for.
func (w *World) Send(ctx context.Context, from *Actor, to common.Address, value *big.Int, data []byte) *TxResult {
	if value == nil {
		value = new(big.Int)
	}
	res := &TxResult{From: from, To: to, Value: value, Data: data, Registry: w.Registry, Client: w.Client}
	_, err := w.Client.CallContract(ctx, ethereum.CallMsg{From: from.Address, To: &to, Value: value, Data: data}, nil)
	if err != nil {
		res.Err = err
		if rd, ok := chain.RevertData(err); ok {
			res.Reverted, res.RevertData = true, rd
		} else if strings.Contains(err.Error(), "revert") {
			res.Reverted = true
		}
		return res
	}
	rc, err := chain.Transact(ctx, w.Client, from.Key, &to, value, data)
	res.Receipt, res.Err = rc, err
	if rc != nil && rc.Status != types.ReceiptStatusSuccessful {
		res.Reverted = true
	}
	return res
}

// ---- revert decoding ----

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

// registries returns what r decodes with: the World's registry (AFR's
// contracts when there is none), then the standard definitions.
func registries(r *calldata.Registry) []*calldata.Registry {
	if r == nil {
		r = afrRegistry
	}
	return []*calldata.Registry{r, standardRegistry}
}

// DecodedRevert is decoded revert data. String renders it as
// Name(arg=value, …); Qualified adds the defining contract.
type DecodedRevert struct {
	// Name is the custom error's name, "Error" for Error(string), "Panic"
	// for Panic(uint256), "" for empty or unknown data.
	Name string
	// Contract is the contract whose ABI defines the error ("" for Error
	// and Panic).
	Contract string
	Args     []any
	// Inputs are the error's parameters (their names label Args).
	Inputs abi.Arguments
	Data   []byte
}

func (r *DecodedRevert) String() string {
	switch {
	case r.Name == "" && len(r.Data) == 0:
		return "no revert data"
	case r.Name == "" && len(r.Data) < 4:
		return fmt.Sprintf("malformed revert data 0x%x", r.Data)
	case r.Name == "":
		return fmt.Sprintf("unknown revert data 0x%x (no known contract has an error with selector 0x%x)", r.Data, r.Data[:4])
	}
	parts := make([]string, len(r.Args))
	for i, a := range r.Args {
		parts[i] = formatArg(a)
		if r.Name == "Error" {
			parts[i] = strconv.Quote(parts[i])
		}
		if r.Name == "Panic" {
			parts[i] = strings.TrimPrefix(calldata.DecodeRevert(nil, r.Data, common.Address{}).Reason, "panic ")
		}
		if i < len(r.Inputs) && r.Inputs[i].Name != "" {
			parts[i] = r.Inputs[i].Name + "=" + parts[i]
		}
	}
	return fmt.Sprintf("%s(%s)", r.Name, strings.Join(parts, ", "))
}

// Qualified is String with the defining contract's name in front
// (Vault.NotOwner(…)), for messages.
func (r *DecodedRevert) Qualified() string {
	if r.Contract == "" {
		return r.String()
	}
	return r.Contract + "." + r.String()
}

var (
	errorStringSel = [4]byte{0x08, 0xc3, 0x79, 0xa0}
	panicSel       = [4]byte{0x4e, 0x48, 0x7b, 0x71}
	stringArgs     = abi.Arguments{{Name: "message", Type: mustType("string")}}
	uintArgs       = abi.Arguments{{Name: "code", Type: mustType("uint256")}}
)

func mustType(t string) abi.Type {
	ty, err := abi.NewType(t, "", nil)
	if err != nil {
		panic(err)
	}
	return ty
}

// DecodeRevert decodes revert data without a World: a custom error of AFR's
// contracts, Error(string) or Panic(uint256). Results of World.Send decode
// with the World's registry (TxResult.DecodeRevert).
func DecodeRevert(data []byte) *DecodedRevert { return decodeRevert(nil, data, nil) }

// DescribeRevert is DecodeRevert(data).String().
func DescribeRevert(data []byte) string { return DecodeRevert(data).String() }

// DecodeRevert decodes the result's revert data with the registry of the
// World that produced it (every contract it deployed or loaded, and ABIs
// added by hand), preferring the errors of the contract bound to r.To.
func (r *TxResult) DecodeRevert() *DecodedRevert {
	return decodeRevert(r.Registry, r.RevertData, &r.To)
}

// decodeRevert decodes data with reg (nil: AFR's contracts); at, when set,
// is the called contract, whose definitions win a selector collision.
func decodeRevert(reg *calldata.Registry, data []byte, at *common.Address) *DecodedRevert {
	r := &DecodedRevert{Data: data}
	if len(data) < 4 {
		return r
	}
	sel := [4]byte(data[:4])
	type cand struct {
		name, contract string
		in             abi.Arguments
	}
	var cands []cand
	switch sel {
	case errorStringSel:
		cands = []cand{{"Error", "", stringArgs}}
	case panicSel:
		cands = []cand{{"Panic", "", uintArgs}}
	default:
		var bound string
		if at != nil && reg != nil {
			bound, _ = reg.BoundTo(*at)
		}
		for _, rg := range registries(reg) {
			for _, e := range rg.Errors(sel) {
				c := cand{e.Error.Name, e.Contract, e.Error.Inputs}
				if e.Contract == bound {
					cands = append([]cand{c}, cands...)
				} else {
					cands = append(cands, c)
				}
			}
		}
	}
	for _, c := range cands {
		vals, err := c.in.Unpack(data[4:])
		if err != nil {
			continue
		}
		r.Name, r.Contract, r.Inputs, r.Args = c.name, c.contract, c.in, vals
		return r
	}
	return r
}

func formatArg(a any) string {
	switch v := a.(type) {
	case common.Address:
		return v.Hex()
	case [32]byte:
		return common.Hash(v).Hex()
	case [4]byte:
		return fmt.Sprintf("0x%x", v[:])
	case []byte:
		return fmt.Sprintf("0x%x", v)
	case *big.Int:
		return v.String()
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(a)
}

// commas formats n with thousands separators.
func commas(n uint64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
