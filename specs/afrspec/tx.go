package afrspec

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/contracts/bindings"
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
	switch {
	case r.Succeeded():
		return fmt.Sprintf("transaction %s to %s succeeded (block %d, %s gas)", r.Receipt.TxHash, r.To, r.Receipt.BlockNumber, commas(r.Receipt.GasUsed))
	case r.Reverted:
		return fmt.Sprintf("call to %s reverted with %s", r.To, DescribeRevert(r.RevertData))
	case r.Err != nil:
		return fmt.Sprintf("call to %s failed: %v", r.To, r.Err)
	}
	return fmt.Sprintf("call to %s: no outcome", r.To)
}

// Send sends a transaction from an actor. Like a relayer, it first simulates
// the call (eth_call on the latest block): a call that would revert is not
// broadcast, and the result carries its revert data. Otherwise the
// transaction is signed, sent and waited for.
func (w *World) Send(ctx context.Context, from *Actor, to common.Address, value *big.Int, data []byte) *TxResult {
	if value == nil {
		value = new(big.Int)
	}
	res := &TxResult{From: from, To: to, Value: value, Data: data}
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

// knownErrors are the custom errors the harness decodes: PaceSmartAccount's
// and EpochAnchor's (OpenZeppelin's ECDSA and reentrancy errors included).
var knownErrors = func() map[[4]byte]abi.Error {
	m := map[[4]byte]abi.Error{}
	for _, a := range []abi.ABI{bindings.NewPaceSmartAccount().GetABI(), bindings.NewEpochAnchor().GetABI()} {
		for _, e := range a.Errors {
			m[[4]byte(e.ID[:4])] = e
		}
	}
	return m
}()

// Revert is decoded revert data.
type Revert struct {
	// Name is the custom error's name, "Error" for Error(string), "Panic"
	// for Panic(uint256), "" for empty or unknown data.
	Name string
	Args []any
	Data []byte
}

func (r *Revert) String() string {
	switch {
	case r.Name == "" && len(r.Data) == 0:
		return "no revert data"
	case r.Name == "":
		return fmt.Sprintf("unknown revert data 0x%x", r.Data)
	}
	parts := make([]string, len(r.Args))
	for i, a := range r.Args {
		parts[i] = formatArg(a)
	}
	return fmt.Sprintf("%s(%s)", r.Name, strings.Join(parts, ", "))
}

var (
	errorStringSel = [4]byte{0x08, 0xc3, 0x79, 0xa0}
	panicSel       = [4]byte{0x4e, 0x48, 0x7b, 0x71}
	stringArgs     = abi.Arguments{{Type: mustType("string")}}
	uintArgs       = abi.Arguments{{Type: mustType("uint256")}}
)

func mustType(t string) abi.Type {
	ty, err := abi.NewType(t, "", nil)
	if err != nil {
		panic(err)
	}
	return ty
}

// DecodeRevert decodes revert data: a custom error of AFR's contracts,
// Error(string) or Panic(uint256).
func DecodeRevert(data []byte) *Revert {
	r := &Revert{Data: data}
	if len(data) < 4 {
		return r
	}
	sel := [4]byte(data[:4])
	var args abi.Arguments
	switch sel {
	case errorStringSel:
		r.Name, args = "Error", stringArgs
	case panicSel:
		r.Name, args = "Panic", uintArgs
	default:
		e, ok := knownErrors[sel]
		if !ok {
			return r
		}
		r.Name, args = e.Name, e.Inputs
	}
	vals, err := args.Unpack(data[4:])
	if err != nil {
		r.Name = ""
		return r
	}
	r.Args = vals
	return r
}

// DescribeRevert is DecodeRevert(data).String().
func DescribeRevert(data []byte) string { return DecodeRevert(data).String() }

// revertOf extracts revert data from what a spec holds: a *TxResult, an
// error carrying revert data, or the raw bytes.
func revertOf(actual any) (data []byte, outcome string, reverted bool, err error) {
	switch a := actual.(type) {
	case *TxResult:
		if a == nil {
			return nil, "", false, errors.New("RevertWith: got a nil *TxResult")
		}
		if !a.Reverted {
			return nil, a.String(), false, nil
		}
		return a.RevertData, a.String(), true, nil
	case []byte:
		if len(a) == 0 {
			return nil, "no revert data (empty bytes: the call did not revert)", false, nil
		}
		return a, "revert data " + DescribeRevert(a), true, nil
	case error:
		if rd, ok := chain.RevertData(a); ok {
			return rd, "error with revert data " + DescribeRevert(rd), true, nil
		}
		return nil, fmt.Sprintf("an error without revert data: %v", a), false, nil
	case nil:
		return nil, "nil (no error: the call succeeded)", false, nil
	}
	return nil, "", false, fmt.Errorf("RevertWith expects a *afrspec.TxResult, an error or revert data ([]byte), got %T", actual)
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
