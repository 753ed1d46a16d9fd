package pdr_test

import (
	"bytes"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
)

// TestCompactSelectorIsLowest: executeCompact_dFki0 has selector pdr.CompactSelector, the
// lowest of the contract's functions, so Solidity's dispatcher tests it first (the gas figures
// depend on it) and no other function can take compact calldata.
func TestCompactSelectorIsLowest(t *testing.T) {
	a, err := bindings.PaceSmartAccountMetaData.ParseABI()
	if err != nil {
		t.Fatal(err)
	}
	m, ok := a.Methods["executeCompact_dFki0"]
	if !ok || [4]byte(m.ID) != pdr.CompactSelector {
		t.Fatalf("executeCompact_dFki0 selector %x, want %x", m.ID, pdr.CompactSelector)
	}
	for name, other := range a.Methods {
		if name != m.Name && bytes.Compare(other.ID, m.ID) <= 0 {
			t.Errorf("%s has selector %x, not above the compact selector %x", name, other.ID, m.ID)
		}
	}
}

func compactSample(t *testing.T, value *big.Int, approvers int, data []byte) (pdr.Domain, pdr.SignedPDR, pdr.Call) {
	t.Helper()
	dom := pdr.Domain{ChainID: 1, Account: common.HexToAddress("0x00000000000000000000000000000000000a11ce")}
	c := pdr.Call{Target: common.HexToAddress("0x5151515151515151515151515151515151515151"), Value: value, Data: data}
	terms := pdr.Terms{Nonce: 7, PolicyID: crypto.Keccak256Hash([]byte("p")), Decision: format.DecisionAllow, ApprovalRequired: approvers > 0, Expiry: 1 << 40, EventID: crypto.Keccak256Hash([]byte("e"))}
	s, err := pdr.SignPDR(mustKey(t), pdr.ForCall(dom, c, terms))
	if err != nil {
		t.Fatal(err)
	}
	for range approvers {
		if err := s.Approve(mustKey(t)); err != nil {
			t.Fatal(err)
		}
	}
	return dom, s, c
}

func TestCompactCalldataLayout(t *testing.T) {
	_, s, c := compactSample(t, big.NewInt(0x0102), 1, []byte{0xde, 0xad, 0xbe, 0xef})
	b, err := pdr.CompactCalldata(&s, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != pdr.CompactHeaderSize+64+2+4 {
		t.Fatalf("length %d", len(b))
	}
	for _, f := range []struct {
		name      string
		got, want []byte
	}{
		{"selector", b[0:4], []byte{0, 0, 0, 0x8d}},
		{"target", b[4:24], c.Target[:]},
		{"nonce", b[24:32], []byte{0, 0, 0, 0, 0, 0, 0, 7}},
		{"expiry", b[32:40], []byte{0, 0, 1, 0, 0, 0, 0, 0}},
		{"decision, approvalRequired, n, L", b[40:44], []byte{1, 1, 1, 2}},
		{"policyId", b[44:76], s.PDR.PolicyID[:]},
		{"eventId", b[76:108], s.PDR.EventID[:]},
		{"policy signature", b[108:172], s.Signature[:]},
		{"approval", b[172:236], s.Approvals[0][:]},
		{"value", b[236:238], []byte{1, 2}},
		{"data", b[238:], c.Data},
	} {
		if !bytes.Equal(f.got, f.want) {
			t.Errorf("%s: %x, want %x", f.name, f.got, f.want)
		}
	}
	s.Delegations = []pdr.SignedDelegation{{}}
	if _, err := pdr.CompactCalldata(&s, c); err == nil {
		t.Error("delegated PDR encoded")
	}
}

func TestParseCompactCalldataRejects(t *testing.T) {
	dom, s, c := compactSample(t, big.NewInt(5), 1, []byte{1, 2, 3, 4})
	good, err := pdr.CompactCalldata(&s, c)
	if err != nil {
		t.Fatal(err)
	}
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte{}, good...)) }
	for _, tc := range []struct {
		name      string
		b         []byte
		malformed bool
	}{
		{"empty", nil, false},
		{"selector", mut(func(b []byte) []byte { b[3] ^= 1; return b }), false},
		{"header cut", good[:100], true},
		{"approvals cut", good[:pdr.CompactHeaderSize+10], true},
		{"value cut", good[:pdr.CompactHeaderSize+64], true},
		{"approvalRequired 2", mut(func(b []byte) []byte { b[41] = 2; return b }), true},
		{"value length 33", mut(func(b []byte) []byte { b[43] = 33; return append(b, make([]byte, 40)...) }), true},
		{"value not minimal", mut(func(b []byte) []byte { b[pdr.CompactHeaderSize+64] = 0; return b }), true},
	} {
		_, _, err := pdr.ParseCompactCalldata(dom, tc.b)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
		} else if errors.Is(err, pdr.ErrMalformedCompactCall) != tc.malformed {
			t.Errorf("%s: %v, malformed %v", tc.name, err, tc.malformed)
		}
	}
}

// FuzzParseCompactCalldata: whatever ParseCompactCalldata accepts re-encodes to the same bytes
// (the compact encoding is canonical), and the result's digest is that of the call it returns.
func FuzzParseCompactCalldata(f *testing.F) {
	t := &testing.T{}
	for _, v := range []*big.Int{nil, big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 255)} {
		for n := range 3 {
			_, s, c := compactSample(t, v, n, []byte("data"))
			b, _ := pdr.CompactCalldata(&s, c)
			f.Add(b)
		}
	}
	dom := pdr.Domain{ChainID: 1, Account: common.HexToAddress("0x00000000000000000000000000000000000a11ce")}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, c, err := pdr.ParseCompactCalldata(dom, b)
		if err != nil {
			return
		}
		again, err := pdr.CompactCalldata(&s, c)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("not canonical:\n in  %x\n out %x", b, again)
		}
		want := pdr.ForCall(dom, c, s.PDR.Terms())
		if s.PDR.Digest() != want.Digest() {
			t.Fatal("digest does not match the call")
		}
	})
}
