package fuzz

import (
	"fmt"
	"math/big"
	"reflect"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"pgregory.net/rapid"
)

// Bound limits an integer argument to [Min, Max], both included, as forge's
// bound(x, min, max) does; a nil end is the type's own limit. Cases shrink
// toward the end nearest zero.
type Bound struct {
	Min, Max *big.Int
}

// Domain says where arguments are drawn from.
type Domain struct {
	// Addresses are the addresses an address argument is drawn from nine
	// times in ten (the World's actors and contracts); otherwise, and
	// always when Addresses is empty, it is any 20 bytes.
	Addresses []common.Address
	// Bounds limit integer arguments, by argument name (top-level
	// arguments only).
	Bounds map[string]Bound
	// MaxLen is the longest bytes, string or dynamic array drawn
	// (default 32).
	MaxLen int
}

// Inputs draws the arguments of an ABI method (abi.Method.Inputs), each
// value of the Go type abi.Arguments.Pack wants for its ABI type.
type Inputs struct {
	args    abi.Arguments
	gens    []*rapid.Generator[any]
	origins []*big.Int // an integer argument's value nearest zero, else nil
}

// NewInputs builds the generators of args. It fails on an ABI type it
// cannot draw (function, fixed-point), on a bound for an argument that is
// not an integer or that does not fit its type, or on a bound naming no
// argument.
func NewInputs(args abi.Arguments, d Domain) (*Inputs, error) {
	if d.MaxLen <= 0 {
		d.MaxLen = 32
	}
	in := &Inputs{args: args}
	named := map[string]bool{}
	for i, a := range args {
		named[a.Name] = true
		b, hasBound := d.Bounds[a.Name]
		if hasBound && a.Type.T != abi.IntTy && a.Type.T != abi.UintTy {
			return nil, fmt.Errorf("fuzz: bound on argument %q of type %s: only integers can be bounded", a.Name, a.Type)
		}
		var g *rapid.Generator[any]
		var err error
		if hasBound {
			g, err = intGen(a.Type, b)
		} else {
			g, err = gen(a.Type, d)
		}
		if err != nil {
			return nil, fmt.Errorf("fuzz: argument %d (%s %s): %w", i, a.Type, a.Name, err)
		}
		in.gens = append(in.gens, g)
		var origin *big.Int
		if a.Type.T == abi.IntTy || a.Type.T == abi.UintTy {
			lo, hi, _ := bounded(a.Type, b) // checked by intGen
			origin = originOf(lo, hi)
		}
		in.origins = append(in.origins, origin)
	}
	for name := range d.Bounds {
		if !named[name] {
			return nil, fmt.Errorf("fuzz: bound on %q: the method has no argument of that name", name)
		}
	}
	return in, nil
}

// Draw draws one value per argument, labelled with the argument's name in
// rapid's report.
func (in *Inputs) Draw(t *rapid.T) []any {
	vals := make([]any, len(in.gens))
	for i, g := range in.gens {
		vals[i] = g.Draw(t, in.label(i))
	}
	return vals
}

func (in *Inputs) label(i int) string {
	if n := in.args[i].Name; n != "" {
		return n
	}
	return fmt.Sprintf("arg%d", i)
}

// gen is the generator of ABI type t with the type's full range.
func gen(t abi.Type, d Domain) (*rapid.Generator[any], error) {
	switch t.T {
	case abi.IntTy, abi.UintTy:
		return intGen(t, Bound{})
	case abi.BoolTy:
		return anyOf(rapid.Bool()), nil
	case abi.AddressTy:
		return anyOf(addressGen(d.Addresses)), nil
	case abi.FixedBytesTy:
		return reflected(t, func(rt *rapid.T, v reflect.Value) {
			reflect.Copy(v, reflect.ValueOf(rapid.SliceOfN(rapid.Byte(), t.Size, t.Size).Draw(rt, "bytes")))
		}), nil
	case abi.BytesTy:
		return anyOf(rapid.SliceOfN(rapid.Byte(), 0, d.MaxLen)), nil
	case abi.StringTy:
		return anyOf(rapid.StringN(0, d.MaxLen, d.MaxLen)), nil
	case abi.ArrayTy, abi.SliceTy:
		elem, err := gen(*t.Elem, d)
		if err != nil {
			return nil, err
		}
		return reflected(t, func(rt *rapid.T, v reflect.Value) {
			if t.T == abi.SliceTy {
				n := rapid.IntRange(0, d.MaxLen).Draw(rt, "len")
				v.Set(reflect.MakeSlice(v.Type(), n, n))
			}
			for i := range v.Len() {
				v.Index(i).Set(reflect.ValueOf(elem.Draw(rt, "elem")))
			}
		}), nil
	case abi.TupleTy:
		fields := make([]*rapid.Generator[any], len(t.TupleElems))
		for i, e := range t.TupleElems {
			g, err := gen(*e, d)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", t.TupleRawNames[i], err)
			}
			fields[i] = g
		}
		return reflected(t, func(rt *rapid.T, v reflect.Value) {
			for i, g := range fields {
				v.Field(i).Set(reflect.ValueOf(g.Draw(rt, t.TupleRawNames[i])))
			}
		}), nil
	}
	return nil, fmt.Errorf("cannot draw ABI type %s", t)
}

// anyOf makes a typed generator one of any.
func anyOf[V any](g *rapid.Generator[V]) *rapid.Generator[any] {
	return rapid.Map(g, func(v V) any { return v })
}

// reflected draws a value of t's Go type (an array, slice or struct)
// filled in by fill.
func reflected(t abi.Type, fill func(*rapid.T, reflect.Value)) *rapid.Generator[any] {
	typ := t.GetType()
	return rapid.Custom(func(rt *rapid.T) any {
		v := reflect.New(typ).Elem()
		fill(rt, v)
		return v.Interface()
	})
}

// addressGen draws from known nine times in ten, else any address.
func addressGen(known []common.Address) *rapid.Generator[common.Address] {
	return rapid.Custom(func(rt *rapid.T) common.Address {
		if len(known) > 0 && rapid.IntRange(0, 9).Draw(rt, "any") < 9 {
			return rapid.SampledFrom(known).Draw(rt, "known")
		}
		return common.Address(rapid.SliceOfN(rapid.Byte(), 20, 20).Draw(rt, "address"))
	})
}

// intGen draws an integer of t (intN or uintN) within b, as the Go type
// Pack wants: uint8…uint64 and int8…int64 for those sizes, else *big.Int.
// One case in ten is an end of the range (forge also favours edges); the
// rest are drawn by upTo as a distance from the value of the range nearest
// zero (both sides of zero when the range holds it), where they shrink to.
func intGen(t abi.Type, b Bound) (*rapid.Generator[any], error) {
	lo, hi, err := bounded(t, b)
	if err != nil {
		return nil, err
	}
	// x = origin + sign·d with d in [0, span]; both sides of zero when the
	// range holds it.
	var up, down *big.Int // the largest d upward and downward
	origin := originOf(lo, hi)
	switch {
	case lo.Sign() >= 0:
		up = new(big.Int).Sub(hi, lo)
	case hi.Sign() <= 0:
		down = new(big.Int).Sub(hi, lo)
	default:
		up, down = new(big.Int).Set(hi), new(big.Int).Neg(lo)
	}
	typ := t.GetType()
	return rapid.Custom(func(rt *rapid.T) any {
		var x *big.Int
		switch edge := rapid.IntRange(0, 19).Draw(rt, "edge"); {
		case edge == 1:
			x = lo
		case edge == 2:
			x = hi
		default:
			neg := down != nil && (up == nil || rapid.Bool().Draw(rt, "negative"))
			if neg {
				x = new(big.Int).Sub(origin, upTo(rt, down))
			} else {
				x = new(big.Int).Add(origin, upTo(rt, up))
			}
		}
		return goValue(typ, x)
	}), nil
}

// upTo draws an integer in [0, max]: first how many 64-bit limbs it has
// (rapid favours few, so values that fit 64 bits are common), then each
// limb, the highest one non-zero. rapid shrinks each limb on its own and
// can stop at a limb boundary; Inputs.narrow finishes the job.
func upTo(rt *rapid.T, max *big.Int) *big.Int {
	limbs := (max.BitLen() + 63) / 64
	if limbs <= 1 {
		return new(big.Int).SetUint64(rapid.Uint64Range(0, max.Uint64()).Draw(rt, "limb"))
	}
	k := rapid.IntRange(1, limbs).Draw(rt, "limbs")
	n := new(big.Int)
	for i := k - 1; i >= 0; i-- {
		lo, hi := uint64(0), ^uint64(0)
		if i == k-1 && k > 1 {
			lo = 1
		}
		if i == limbs-1 {
			hi = new(big.Int).Rsh(max, uint(64*i)).Uint64()
		}
		n.Lsh(n, 64).Or(n, new(big.Int).SetUint64(rapid.Uint64Range(lo, hi).Draw(rt, "limb")))
	}
	if n.Cmp(max) > 0 { // only when the top limb is at its maximum
		n.Mod(n, new(big.Int).Add(max, big.NewInt(1)))
	}
	return n
}

// bounded is the range of intN or uintN t within b.
func bounded(t abi.Type, b Bound) (lo, hi *big.Int, err error) {
	lo, hi = typeRange(t)
	if b.Min != nil {
		if b.Min.Cmp(lo) < 0 || b.Min.Cmp(hi) > 0 {
			return nil, nil, fmt.Errorf("bound min %s outside %s", b.Min, t)
		}
		lo = b.Min
	}
	if b.Max != nil {
		if b.Max.Cmp(lo) < 0 || b.Max.Cmp(hi) > 0 {
			return nil, nil, fmt.Errorf("bound max %s outside %s or below min %s", b.Max, t, lo)
		}
		hi = b.Max
	}
	return lo, hi, nil
}

// originOf is the value of [lo, hi] nearest zero, where cases shrink to.
func originOf(lo, hi *big.Int) *big.Int {
	switch {
	case lo.Sign() >= 0:
		return new(big.Int).Set(lo)
	case hi.Sign() <= 0:
		return new(big.Int).Set(hi)
	}
	return new(big.Int)
}

// typeRange is the smallest and largest value of intN or uintN.
func typeRange(t abi.Type) (lo, hi *big.Int) {
	if t.T == abi.UintTy {
		return new(big.Int), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(t.Size)), big.NewInt(1))
	}
	half := new(big.Int).Lsh(big.NewInt(1), uint(t.Size-1))
	return new(big.Int).Neg(half), new(big.Int).Sub(half, big.NewInt(1))
}

// goValue converts x to typ: *big.Int, or a sized Go integer.
func goValue(typ reflect.Type, x *big.Int) any {
	if typ == reflect.TypeFor[*big.Int]() {
		return new(big.Int).Set(x)
	}
	v := reflect.New(typ).Elem()
	if k := typ.Kind(); k >= reflect.Int && k <= reflect.Int64 {
		v.SetInt(x.Int64())
	} else {
		v.SetUint(x.Uint64())
	}
	return v.Interface()
}

// narrow lowers each integer argument of a failing case toward its origin
// by binary search while fails still holds, the others kept: rapid shrinks
// each 64-bit limb on its own and can stop at a limb boundary (2^64 where
// 1000 fails too). It returns the narrowed arguments, or nil when none
// moved. It assumes failure is monotone in each argument between its
// origin and its value; where it is not, the result still fails, if not
// minimal.
func (in *Inputs) narrow(args []any, fails func([]any) (bool, string)) []any {
	out := append([]any(nil), args...)
	moved := false
	for i, origin := range in.origins {
		if origin == nil {
			continue
		}
		typ := reflect.TypeOf(out[i])
		x := bigOf(out[i])
		dist := new(big.Int).Sub(x, origin)
		sign := dist.Sign()
		hi, lo := dist.Abs(dist), big.NewInt(-1) // hi fails; lo is below what is tried
		at := func(d *big.Int) []any {
			try := append([]any(nil), out...)
			v := new(big.Int).Mul(d, big.NewInt(int64(sign)))
			try[i] = goValue(typ, v.Add(v, origin))
			return try
		}
		for new(big.Int).Sub(hi, lo).Cmp(big.NewInt(1)) > 0 {
			mid := new(big.Int).Add(hi, lo)
			mid.Rsh(mid, 1)
			if ok, _ := fails(at(mid)); ok {
				hi = mid
			} else {
				lo = mid
			}
		}
		if next := at(hi); bigOf(next[i]).Cmp(x) != 0 {
			out, moved = next, true
		}
	}
	if !moved {
		return nil
	}
	return out
}

// bigOf is an integer argument (*big.Int or a sized Go integer) as a
// *big.Int.
func bigOf(v any) *big.Int {
	if b, ok := v.(*big.Int); ok {
		return new(big.Int).Set(b)
	}
	rv := reflect.ValueOf(v)
	if k := rv.Kind(); k >= reflect.Int && k <= reflect.Int64 {
		return big.NewInt(rv.Int())
	}
	return new(big.Int).SetUint64(rv.Uint())
}
