package pdr_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/pdr"
)

var (
	usdc     = common.HexToAddress("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48")
	treasury = common.HexToAddress("0x1111111111111111111111111111111111111111")
	stranger = common.HexToAddress("0x2222222222222222222222222222222222222222")
)

func transfer(to common.Address, amount int64) []byte {
	addrT, u256 := mustType("address"), mustType("uint256")
	enc, _ := abi.Arguments{{Type: addrT}, {Type: u256}}.Pack(to, big.NewInt(amount))
	return append(crypto.Keccak256([]byte("transfer(address,uint256)"))[:4], enc...)
}

func mustType(s string) abi.Type {
	t, err := abi.NewType(s, "", nil)
	if err != nil {
		panic(err)
	}
	return t
}

func treasuryPolicy() pdr.Policy {
	return pdr.Policy{Name: "treasury", Rules: []pdr.Rule{
		{Name: "usdc-to-treasury", Effect: "allow", Targets: []common.Address{usdc}, Method: "transfer(address,uint256)",
			Args:       []pdr.Condition{{Arg: 0, Op: "in", Value: treasury.Hex()}, {Arg: 1, Op: "le", Value: "1000000"}},
			ApprovalIf: []pdr.Condition{{Arg: 1, Op: "gt", Value: "100000"}}},
		{Name: "no-eth-out", Effect: "deny", MaxValue: "", Targets: []common.Address{stranger}},
	}}
}

func TestPolicyEvaluate(t *testing.T) {
	p := treasuryPolicy()
	dom := pdr.Domain{ChainID: 1, Account: common.Address{0xac}}
	cases := []struct {
		desc     string
		call     pdr.Call
		decision string
		approval bool
		reason   string
	}{
		{"small transfer to treasury", pdr.Call{Target: usdc, Data: transfer(treasury, 5)}, "allow", false, "within rule"},
		{"large transfer needs approval", pdr.Call{Target: usdc, Data: transfer(treasury, 500000)}, "allow", true, "approval conditions hold"},
		{"over the cap", pdr.Call{Target: usdc, Data: transfer(treasury, 2000000)}, "deny", false, "no rule allows"},
		{"to a stranger", pdr.Call{Target: usdc, Data: transfer(stranger, 5)}, "deny", false, "argument 0"},
		{"other method", pdr.Call{Target: usdc, Data: []byte{1, 2, 3, 4}}, "deny", false, "selector is not"},
		{"denied target", pdr.Call{Target: stranger}, "deny", false, "deny rule matched"},
	}
	for _, c := range cases {
		ev, err := p.Evaluate(pdr.Intent{Domain: dom, Call: c.call})
		if err != nil {
			t.Fatalf("%s: %v", c.desc, err)
		}
		all, _ := json.Marshal(ev.Reasons)
		if ev.Decision != c.decision || ev.ApprovalRequired != c.approval || !strings.Contains(string(all), c.reason) {
			t.Errorf("%s: got %s approval=%v reasons %s; want %s approval=%v reason %q", c.desc, ev.Decision, ev.ApprovalRequired, all, c.decision, c.approval, c.reason)
		}
	}
}

func TestPolicyValidate(t *testing.T) {
	bad := []pdr.Rule{
		{Name: "effect", Effect: "maybe"},
		{Name: "method", Effect: "allow", Method: "transfer"},
		{Name: "arg range", Effect: "allow", Method: "f(uint256)", Args: []pdr.Condition{{Arg: 1, Op: "eq", Value: "1"}}},
		{Name: "op on address", Effect: "allow", Method: "f(address)", Args: []pdr.Condition{{Arg: 0, Op: "lt", Value: "0x01"}}},
		{Name: "wei", Effect: "allow", MaxValue: "-1"},
		{Name: "args without method", Effect: "allow", Args: []pdr.Condition{{Arg: 0, Op: "eq", Value: "1"}}},
	}
	for _, r := range bad {
		p := pdr.Policy{Name: "p", Rules: []pdr.Rule{r}}
		if err := p.Validate(); err == nil {
			t.Errorf("rule %q accepted", r.Name)
		}
	}
}

func TestPolicyIDIsContentHash(t *testing.T) {
	a, b := treasuryPolicy(), treasuryPolicy()
	ia, _ := a.ID()
	ib, _ := b.ID()
	b.Rules[0].Args[1].Value = "1000001"
	ic, _ := b.ID()
	if ia != ib || ia == ic {
		t.Fatalf("policy ids: %x %x %x", ia, ib, ic)
	}
}

// ExamplePolicy_Decide evaluates an intent and signs the resulting PDR.
func ExamplePolicy_Decide() {
	key, _ := crypto.HexToECDSA("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
	p := treasuryPolicy()
	in := pdr.Intent{
		Domain:  pdr.Domain{ChainID: 1, Account: common.HexToAddress("0x00000000000000000000000000000000000000ac")},
		Call:    pdr.Call{Target: usdc, Data: transfer(treasury, 500000)},
		EventID: crypto.Keccak256Hash([]byte("event 42")),
	}
	signed, ev, err := p.Decide(in, 0, 1_900_000_000, key)
	if err != nil {
		panic(err)
	}
	signer, _ := signed.Signature.Recover(signed.PDR.Digest())
	fmt.Println(ev.Decision, ev.ApprovalRequired, signed.PDR.Decision, signer == crypto.PubkeyToAddress(key.PublicKey))
	// Output: allow true allow true
}
