// Package show formats values for the messages of the World and of the spec
// matchers: arguments, gas figures and addresses, the same way in both.
package show

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/calldata"
)

// Arg formats a decoded ABI value: addresses and hashes in hex, byte
// strings as 0x…, integers in decimal.
func Arg(a any) string {
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

// Commas formats n with thousands separators (39,657).
func Commas(n uint64) string {
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

// Address names addr by its label in reg (an actor of the World: "alice
// (0x…)"), else by the contract reg binds to it ("Vault (0x…)"), else it is
// the address alone.
func Address(reg *calldata.Registry, addr common.Address) string {
	if reg != nil {
		if n, ok := reg.Label(addr); ok {
			return fmt.Sprintf("%s (%s)", n, addr.Hex())
		}
		if n, ok := reg.BoundTo(addr); ok {
			return fmt.Sprintf("%s (%s)", n, addr.Hex())
		}
	}
	return addr.Hex()
}

// Value is Arg with addresses named as Address names them.
func Value(reg *calldata.Registry, a any) string {
	switch v := a.(type) {
	case common.Address:
		return Address(reg, v)
	case *common.Address:
		if v != nil {
			return Address(reg, *v)
		}
	}
	return Arg(a)
}
