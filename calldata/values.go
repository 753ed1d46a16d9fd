package calldata

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strconv"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Dec is an integer that encodes as a decimal string in JSON (so values above
// 2^53 survive JavaScript and jq).
type Dec big.Int

// NewDec returns v as a *Dec (nil for nil).
func NewDec(v *big.Int) *Dec {
	if v == nil {
		return nil
	}
	return (*Dec)(new(big.Int).Set(v))
}

// Big returns the value as a *big.Int (zero for nil).
func (d *Dec) Big() *big.Int {
	if d == nil {
		return new(big.Int)
	}
	return (*big.Int)(d)
}

func (d *Dec) String() string { return d.Big().String() }

// MarshalText implements encoding.TextMarshaler.
func (d *Dec) MarshalText() ([]byte, error) { return []byte(d.Big().String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler (decimal, or 0x-hex).
func (d *Dec) UnmarshalText(b []byte) error {
	v, ok := new(big.Int).SetString(string(b), 0)
	if !ok {
		return fmt.Errorf("tracesim: %q is not an integer", b)
	}
	*d = Dec(*v)
	return nil
}

// Arg is one decoded argument. Value is in canonical form, the same in Go,
// JSON and the recorder's CBOR:
//
//   - integers (intN, uintN): decimal string
//   - address: EIP-55 checksummed 0x-hex string
//   - bool: bool; string: string
//   - bytes, bytesN, function: 0x-hex string (lowercase)
//   - arrays and slices: []any of element values
//   - tuples: map[string]any by component name ("0", "1", ... when unnamed)
//
// An indexed event argument of a dynamic type (string, bytes, array, tuple)
// is only present as its keccak256 in the topic: Value is the topic as 0x-hex
// and Hashed is set.
type Arg struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Value   any    `json:"value"`
	Indexed bool   `json:"indexed,omitempty"`
	Hashed  bool   `json:"hashed,omitempty"`
}

// canonical converts a value unpacked by go-ethereum's abi package.
func canonical(t abi.Type, v any) (any, error) {
	rv := reflect.ValueOf(v)
	return canonicalValue(t, rv)
}

func canonicalValue(t abi.Type, rv reflect.Value) (any, error) {
	for rv.Kind() == reflect.Interface || (rv.Kind() == reflect.Pointer && t.T != abi.IntTy && t.T != abi.UintTy) {
		if rv.IsNil() {
			return nil, fmt.Errorf("nil value for %s", t.String())
		}
		rv = rv.Elem()
	}
	switch t.T {
	case abi.IntTy, abi.UintTy:
		if b, ok := rv.Interface().(*big.Int); ok {
			if b == nil {
				return nil, fmt.Errorf("nil integer for %s", t.String())
			}
			return b.String(), nil
		}
		switch rv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return strconv.FormatInt(rv.Int(), 10), nil
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			return strconv.FormatUint(rv.Uint(), 10), nil
		}
	case abi.BoolTy:
		if rv.Kind() == reflect.Bool {
			return rv.Bool(), nil
		}
	case abi.StringTy:
		if rv.Kind() == reflect.String {
			return rv.String(), nil
		}
	case abi.AddressTy:
		if a, ok := rv.Interface().(common.Address); ok {
			return a.Hex(), nil
		}
	case abi.BytesTy:
		if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
			return hexutil.Encode(rv.Bytes()), nil
		}
	case abi.FixedBytesTy, abi.FunctionTy, abi.HashTy:
		if rv.Kind() == reflect.Array && rv.Type().Elem().Kind() == reflect.Uint8 {
			b := make([]byte, rv.Len())
			reflect.Copy(reflect.ValueOf(b), rv)
			return hexutil.Encode(b), nil
		}
	case abi.SliceTy, abi.ArrayTy:
		if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
			out := make([]any, rv.Len())
			for i := range out {
				e, err := canonicalValue(*t.Elem, rv.Index(i))
				if err != nil {
					return nil, err
				}
				out[i] = e
			}
			return out, nil
		}
	case abi.TupleTy:
		if rv.Kind() == reflect.Struct && rv.NumField() == len(t.TupleElems) {
			out := make(map[string]any, len(t.TupleElems))
			for i, et := range t.TupleElems {
				e, err := canonicalValue(*et, rv.Field(i))
				if err != nil {
					return nil, err
				}
				out[tupleName(t, i)] = e
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("unexpected %s for ABI type %s", rv.Type(), t.String())
}

func tupleName(t abi.Type, i int) string {
	if i < len(t.TupleRawNames) && t.TupleRawNames[i] != "" {
		return t.TupleRawNames[i]
	}
	return strconv.Itoa(i)
}

func argName(a abi.Argument, i int) string {
	if a.Name != "" {
		return a.Name
	}
	return "arg" + strconv.Itoa(i)
}

// Normalize turns a value that went through JSON or CBOR (float64 or
// json.Number or uint64 numbers, []any, map[string]any, []byte) into a string
// usable to compare two argument values: canonical JSON with byte strings as
// 0x-hex and numbers as decimal strings, addresses and hex lowercased.
func Normalize(v any) string {
	b, err := json.Marshal(normalizeAny(v))
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

func normalizeAny(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if len(x) >= 2 && (x[:2] == "0x" || x[:2] == "0X") {
			return "0x" + lowerHex(x[2:])
		}
		return x
	case []byte:
		return hexutil.Encode(x)
	case bool:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case *big.Int:
		return x.String()
	case big.Int:
		return x.String()
	case common.Address:
		return "0x" + lowerHex(x.Hex()[2:])
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeAny(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeAny(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = normalizeAny(e)
		}
		return out
	}
	return fmt.Sprintf("%v", v)
}

func lowerHex(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'F' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
