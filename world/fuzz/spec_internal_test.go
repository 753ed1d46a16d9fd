package fuzz

import (
	"go/parser"
	"math/big"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// TestSpecLiterals: every type NewInputs draws is written as a Go
// expression of that type that parses, integers exactly and addresses by
// the suite's names where it has them.
func TestSpecLiterals(t *testing.T) {
	pool := common.HexToAddress("0x00000000000000000000000000000000000aD111")
	huge, _ := new(big.Int).SetString("-57896044618658097711785492504343953926634992332820282019728792003956564819968", 10)
	g := &specWriter{addrs: map[common.Address]string{pool: "pool"}, imports: map[string]bool{}}
	for _, c := range []struct {
		v    any
		want string
	}{
		{big.NewInt(-7), "big.NewInt(-7)"},
		{huge, `func() *big.Int { n, _ := new(big.Int).SetString("-57896044618658097711785492504343953926634992332820282019728792003956564819968", 10); return n }()`},
		{uint8(255), "uint8(255)"},
		{int64(-3), "int64(-3)"},
		{true, "true"},
		{"a\"b", `"a\"b"`},
		{pool, "pool"},
		{common.HexToAddress("0x01"), `common.HexToAddress("0x0000000000000000000000000000000000000001")`},
		{[]byte{1, 0xab}, `common.FromHex("0x01ab")`},
		{[2]byte{1, 2}, "[2]uint8{0x01, 0x02}"},
		{[]*big.Int{big.NewInt(1)}, "[]*big.Int{big.NewInt(1)}"},
		{[]struct {
			A   *big.Int
			Who common.Address
		}{{big.NewInt(2), pool}}, "[]struct { A *big.Int; Who common.Address }{struct { A *big.Int; Who common.Address }{A: big.NewInt(2), Who: pool}}"},
	} {
		got, err := g.literal(reflect.ValueOf(c.v))
		if err != nil || got != c.want {
			t.Errorf("literal(%#v) = %s, %v; want %s", c.v, got, err, c.want)
			continue
		}
		if _, err := parser.ParseExpr(got); err != nil {
			t.Errorf("literal %s does not parse: %v", got, err)
		}
	}
	if _, err := g.literal(reflect.ValueOf(1.5)); err == nil {
		t.Error("a float64 was written")
	}
	if !g.imports["math/big"] || !g.imports["github.com/ethereum/go-ethereum/common"] {
		t.Errorf("imports %v, want math/big and common", g.imports)
	}
}
