package fuzz

import (
	"bytes"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"pgregory.net/rapid"
)

// args builds abi.Arguments of the given types (one argument each, named
// a0, a1…); a tuple's components are given as "tuple(uint8 x,bytes y)".
func args(t *testing.T, types ...string) abi.Arguments {
	t.Helper()
	var out abi.Arguments
	for i, s := range types {
		var typ abi.Type
		var err error
		if inner, ok := strings.CutPrefix(s, "tuple("); ok {
			inner, suffix, _ := strings.Cut(inner, ")")
			var comps []abi.ArgumentMarshaling
			for _, c := range strings.Split(inner, ",") {
				ty, name, _ := strings.Cut(c, " ")
				comps = append(comps, abi.ArgumentMarshaling{Name: name, Type: ty})
			}
			typ, err = abi.NewType("tuple"+suffix, "struct S", comps)
		} else {
			typ, err = abi.NewType(s, "", nil)
		}
		if err != nil {
			t.Fatalf("type %s: %v", s, err)
		}
		out = append(out, abi.Argument{Name: "a" + string(rune('0'+i)), Type: typ})
	}
	return out
}

// TestInputsPackAndRoundTrip draws arguments of a table of ABI types: Pack
// takes every value and Unpack gives it back.
func TestInputsPackAndRoundTrip(t *testing.T) {
	for _, types := range [][]string{
		{"uint8", "uint16", "uint32", "uint64", "uint24", "uint128", "uint256"},
		{"int8", "int16", "int32", "int64", "int40", "int256"},
		{"bool", "address", "bytes1", "bytes20", "bytes32"},
		{"bytes", "string"},
		{"uint256[3]", "address[]", "bytes32[2][]", "string[]"},
		{"tuple(uint8 x,bytes y,address z)", "tuple(uint256 a,bool b)[]", "tuple(int16 c,string d)[2]"},
	} {
		in := args(t, types...)
		gens, err := NewInputs(in, Domain{Addresses: []common.Address{{1}, {2}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Run(strings.Join(types, ","), func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				vals := gens.Draw(rt)
				packed, err := in.Pack(vals...)
				if err != nil {
					rt.Fatalf("pack %v: %v", vals, err)
				}
				back, err := in.Unpack(packed)
				if err != nil {
					rt.Fatalf("unpack: %v", err)
				}
				// big.Int and empty slices have several Go forms of one
				// value: compare what the values print and pack to.
				if got, want := fmt.Sprint(back...), fmt.Sprint(vals...); got != want {
					rt.Fatalf("round trip: got %s, want %s", got, want)
				}
				if again, err := in.Pack(back...); err != nil || !bytes.Equal(again, packed) {
					rt.Fatalf("packing the unpacked values: %x, %v; want %x", again, err, packed)
				}
			})
		})
	}
}

// TestInputsBounds keeps bounded integers within their bound and draws
// both ends.
func TestInputsBounds(t *testing.T) {
	in := args(t, "uint256", "int64", "int256")
	b := map[string]Bound{
		"a0": {Min: big.NewInt(10), Max: big.NewInt(20)},
		"a1": {Min: big.NewInt(-5), Max: big.NewInt(5)},
		"a2": {Max: big.NewInt(-7)},
	}
	gens, err := NewInputs(in, Domain{Bounds: b})
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(rt *rapid.T) {
		v := gens.Draw(rt)
		x, y, z := v[0].(*big.Int), v[1].(int64), v[2].(*big.Int)
		if x.Int64() < 10 || x.Int64() > 20 || y < -5 || y > 5 || z.Cmp(big.NewInt(-7)) > 0 {
			rt.Fatalf("out of bounds: %v %v %v", x, y, z)
		}
	})
	seen := map[string]bool{}
	for seed := range 500 { // Example draws the same value for a seed every run
		seen[gens.gens[0].Example(seed).(*big.Int).String()] = true
	}
	if !seen["10"] || !seen["20"] || len(seen) != 11 {
		t.Errorf("drew %v from [10, 20], want all 11 values", seen)
	}
}

// TestInputsAddresses draws addresses mostly from the domain's, and
// sometimes any other.
func TestInputsAddresses(t *testing.T) {
	known := []common.Address{{1}, {2}, {3}}
	gens, err := NewInputs(args(t, "address"), Domain{Addresses: known})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[common.Address]int{}
	for seed := range 500 {
		counts[gens.gens[0].Example(seed).(common.Address)]++
	}
	other := 500
	for _, a := range known {
		if counts[a] < 50 {
			t.Errorf("%s drawn %d times in 500, want about 150", a, counts[a])
		}
		other -= counts[a]
	}
	if other < 10 || other > 100 {
		t.Errorf("%d of 500 addresses outside the domain, want about 50", other)
	}
}

// TestNewInputsRejects refuses what it cannot draw, with the reason.
func TestNewInputsRejects(t *testing.T) {
	for _, c := range []struct {
		in     abi.Arguments
		bounds map[string]Bound
		want   string
	}{
		{args(t, "function"), nil, "cannot draw ABI type function"},
		{args(t, "bool"), map[string]Bound{"a0": {}}, "only integers can be bounded"},
		{args(t, "uint8"), map[string]Bound{"a0": {Max: big.NewInt(256)}}, "bound max 256 outside uint8"},
		{args(t, "int8"), map[string]Bound{"a0": {Min: big.NewInt(-129)}}, "bound min -129 outside int8"},
		{args(t, "uint8"), map[string]Bound{"amount": {}}, `bound on "amount": the method has no argument of that name`},
	} {
		_, err := NewInputs(c.in, Domain{Bounds: c.bounds})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with %v: got %v, want an error with %q", c.in[0].Type, c.bounds, err, c.want)
		}
	}
}
