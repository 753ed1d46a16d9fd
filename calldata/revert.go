package calldata

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Revert is decoded revert data (DecodeRevert). Its JSON is the revert of
// docs/SPEC.md; String and Qualified render it for messages.
type Revert struct {
	// Kind is "error" (Error(string)), "panic" (Panic(uint256)), "custom"
	// (a custom error, decoded or not) or "empty" (no data).
	Kind string `json:"kind"`
	// Reason is human-readable: the Error(string) message, the panic's
	// meaning, or the custom error's signature with its arguments.
	Reason    string `json:"reason"`
	Signature string `json:"signature,omitempty"`
	// Contract is the contract whose ABI defines the custom error ("" for
	// Error(string), Panic(uint256) and data that did not decode).
	Contract string `json:"contract,omitempty"`
	Args     []Arg  `json:"args,omitempty"`
	// Collisions lists the other signatures with the selector whose
	// arguments also decode from the data.
	Collisions []string `json:"collisions,omitempty"`
	// Error says why the data did not decode (or, for Error(string), that
	// it decoded from a non-canonical encoding).
	Error string        `json:"error,omitempty"`
	Data  hexutil.Bytes `json:"data"`

	// Name is the error's name when the data decoded: the custom error's,
	// "Error" or "Panic"; "" when it did not. Values are its arguments as
	// go-ethereum's abi package unpacks them (*big.Int, common.Address,
	// [32]byte, string, …), for comparisons in Go; Args holds the same
	// arguments in canonical form. Neither is in the JSON, where Signature
	// and Args carry them.
	Name   string `json:"-"`
	Values []any  `json:"-"`
}

var (
	errorSel = [4]byte{0x08, 0xc3, 0x79, 0xa0} // Error(string)
	panicSel = [4]byte{0x4e, 0x48, 0x7b, 0x71} // Panic(uint256)

	// ErrorArgs and PanicArgs are the parameters of Error(string) and
	// Panic(uint256).
	ErrorArgs = abi.Arguments{{Name: "message", Type: mustType("string")}}
	PanicArgs = abi.Arguments{{Name: "code", Type: mustType("uint256")}}
)

func mustType(t string) abi.Type {
	ty, err := abi.NewType(t, "", nil)
	if err != nil {
		panic(err)
	}
	return ty
}

// panicReasons are Solidity's panic codes.
var panicReasons = map[uint64]string{
	0x00: "generic compiler panic",
	0x01: "assertion failed",
	0x11: "arithmetic overflow or underflow",
	0x12: "division or modulo by zero",
	0x21: "invalid enum value",
	0x22: "invalid storage byte array encoding",
	0x31: "pop on an empty array",
	0x32: "array index out of bounds",
	0x41: "out of memory",
	0x51: "call of an uninitialised internal function",
}

// DecodeRevert decodes the revert data of a call to the contract at at, with
// the ABIs of reg (nil: none):
//
//   - Error(string), and Panic(uint256) with Solidity's name for its code;
//   - a custom error by the ABI of the contract reg binds to at first, so
//     that an error several contracts declare alike (from a shared base
//     contract, say) is named after the contract that reverted, then by
//     every other registered ABI with the selector, in registration order.
//     The first whose arguments re-encode to exactly the data wins; other
//     signatures that also decode are listed in Collisions;
//   - anything else stays raw Data, with Error saying why it did not decode.
//
// Revert data is untrusted: DecodeRevert never fails and never panics.
func DecodeRevert(reg *Registry, data []byte, at common.Address) *Revert {
	if reg == nil {
		reg = emptyRegistry
	}
	rv := &Revert{Data: common.CopyBytes(data)}
	if len(data) == 0 {
		rv.Kind, rv.Reason = "empty", "execution reverted without data"
		return rv
	}
	if len(data) < 4 {
		rv.Kind, rv.Error = "custom", fmt.Sprintf("%d bytes of revert data, no selector", len(data))
		rv.Reason = "malformed revert data " + hexutil.Encode(data)
		return rv
	}
	sel := [4]byte(data[:4])
	switch sel {
	case errorSel:
		rv.Kind, rv.Signature = "error", "Error(string)"
		args, vals, canon, err := decodeArgs(ErrorArgs, data[4:])
		if err != nil {
			rv.Error = "Error(string) does not decode: " + err.Error()
			rv.Reason = "malformed Error(string)"
			return rv
		}
		rv.Name, rv.Args, rv.Values = "Error", args, vals
		rv.Reason = vals[0].(string)
		if !canon {
			rv.Error = "non-canonical encoding"
		}
		return rv
	case panicSel:
		rv.Kind, rv.Signature = "panic", "Panic(uint256)"
		args, vals, _, err := decodeArgs(PanicArgs, data[4:])
		if err != nil {
			rv.Error = "Panic(uint256) does not decode: " + err.Error()
			rv.Reason = "malformed Panic(uint256)"
			return rv
		}
		rv.Name, rv.Args, rv.Values = "Panic", args, vals
		code := vals[0].(*big.Int)
		desc := "unknown panic code"
		if code.IsUint64() {
			if s, ok := panicReasons[code.Uint64()]; ok {
				desc = s
			}
		}
		rv.Reason = fmt.Sprintf("panic 0x%x: %s", code, desc)
		return rv
	}
	rv.Kind = "custom"
	cands := reg.errorsAt(sel, at)
	if len(cands) == 0 {
		rv.Error = noErrorABI(sel)
		rv.Reason = "custom error " + hexutil.Encode(sel[:])
		return rv
	}
	var firstErr error
	for _, d := range cands {
		args, vals, canon, err := decodeArgs(d.Error.Inputs, data[4:])
		if err != nil || !canon {
			if firstErr == nil {
				if err == nil {
					err = errors.New("does not re-encode to the same bytes")
				}
				firstErr = fmt.Errorf("%s: %w", d.Error.Sig, err)
			}
			continue
		}
		if rv.Name == "" {
			rv.Name, rv.Signature, rv.Contract, rv.Args, rv.Values = d.Error.Name, d.Error.Sig, d.Contract, args, vals
			rv.Reason = formatCall(d.Error.Name, args)
		} else {
			rv.Collisions = append(rv.Collisions, d.Error.Sig)
		}
	}
	if rv.Name == "" {
		rv.Error = "custom error does not decode: " + firstErr.Error()
		rv.Reason = "custom error " + hexutil.Encode(sel[:])
	}
	return rv
}

// noErrorABI is Revert.Error for a selector no registered ABI has.
func noErrorABI(sel [4]byte) string {
	return (&ABINotFoundError{What: "error", Key: hexutil.Encode(sel[:])}).Error()
}

// String renders the revert as Name(arg=value, …): Error(message="…"),
// Panic(code=0x11: arithmetic overflow or underflow), or a custom error with
// its arguments. Data that did not decode is described instead: "no revert
// data", "malformed revert data 0x…" (shorter than a selector), "unknown
// revert data 0x… (…)" (a selector no ABI has) or "undecodable revert data
// 0x… (…)" (with Error).
func (r *Revert) String() string {
	switch {
	case len(r.Data) == 0:
		return "no revert data"
	case len(r.Data) < 4:
		return "malformed revert data " + hexutil.Encode(r.Data)
	case r.Name == "" && r.Error == noErrorABI([4]byte(r.Data[:4])):
		return fmt.Sprintf("unknown revert data %s (no known contract has an error with selector %s)", hexutil.Encode(r.Data), hexutil.Encode(r.Data[:4]))
	case r.Name == "":
		return fmt.Sprintf("undecodable revert data %s (%s)", hexutil.Encode(r.Data), r.Error)
	case r.Kind == "error":
		return fmt.Sprintf("Error(%s=%s)", r.Args[0].Name, strconv.Quote(r.Reason))
	case r.Kind == "panic":
		return fmt.Sprintf("Panic(%s=%s)", r.Args[0].Name, strings.TrimPrefix(r.Reason, "panic "))
	}
	return formatCall(r.Name, r.Args)
}

// Qualified is String with the name of the contract that defines the error
// in front (Vault.NotOwner(…)); Error and Panic have none.
func (r *Revert) Qualified() string {
	if r.Contract == "" {
		return r.String()
	}
	return r.Contract + "." + r.String()
}

// formatCall renders name(arg=value, ...).
func formatCall(name string, args []Arg) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		if s, ok := a.Value.(string); ok {
			fmt.Fprintf(&b, "%s=%s", a.Name, s)
		} else {
			fmt.Fprintf(&b, "%s=%s", a.Name, Normalize(a.Value))
		}
	}
	b.WriteByte(')')
	return b.String()
}
