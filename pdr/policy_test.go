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

	"github.com/agentflightrecorder/afr/format"
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
		{Name: "usdc-to-treasury", Effect: format.DecisionAllow, Targets: []common.Address{usdc}, Method: "transfer(address,uint256)",
			Args:       []pdr.Condition{{Arg: 0, Op: "in", Value: treasury.Hex()}, {Arg: 1, Op: "le", Value: "1000000"}},
			ApprovalIf: []pdr.Condition{{Arg: 1, Op: "gt", Value: "100000"}}},
		{Name: "no-eth-out", Effect: format.DecisionDeny, MaxValue: "", Targets: []common.Address{stranger}},
	}}
}

func TestPolicyEvaluate(t *testing.T) {
	p := treasuryPolicy()
	dom := pdr.Domain{ChainID: 1, Account: common.Address{0xac}}
	cases := []struct {
		desc     string
		call     pdr.Call
		decision format.Decision
		approval bool
		reason   string
	}{
		{"small transfer to treasury", pdr.Call{Target: usdc, Data: transfer(treasury, 5)}, format.DecisionAllow, false, "within rule"},
		{"large transfer needs approval", pdr.Call{Target: usdc, Data: transfer(treasury, 500000)}, format.DecisionAllow, true, "approval conditions hold"},
		{"over the cap", pdr.Call{Target: usdc, Data: transfer(treasury, 2000000)}, format.DecisionDeny, false, "no rule allows"},
		{"to a stranger", pdr.Call{Target: usdc, Data: transfer(stranger, 5)}, format.DecisionDeny, false, "argument 0"},
		{"other method", pdr.Call{Target: usdc, Data: []byte{1, 2, 3, 4}}, format.DecisionDeny, false, "selector is not"},
		{"denied target", pdr.Call{Target: stranger}, format.DecisionDeny, false, "deny rule matched"},
	}
	for _, c := range cases {
		ev, err := p.Evaluate(pdr.Request{Domain: dom, Call: c.call})
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
		{Name: "effect", Effect: format.Decision(7)},
		{Name: "method", Effect: format.DecisionAllow, Method: "transfer"},
		{Name: "arg range", Effect: format.DecisionAllow, Method: "f(uint256)", Args: []pdr.Condition{{Arg: 1, Op: "eq", Value: "1"}}},
		{Name: "op on address", Effect: format.DecisionAllow, Method: "f(address)", Args: []pdr.Condition{{Arg: 0, Op: "lt", Value: "0x01"}}},
		{Name: "wei", Effect: format.DecisionAllow, MaxValue: "-1"},
		{Name: "args without method", Effect: format.DecisionAllow, Args: []pdr.Condition{{Arg: 0, Op: "eq", Value: "1"}}},
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
	in := pdr.Request{
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

// The typed Decision encodes as the text it replaced: policy JSON, policy CBOR (and so policy
// ids) and evaluations are byte-identical to those of the string-typed fields (golden values
// from before the change).
func TestPolicyEncodingsUnchanged(t *testing.T) {
	p := treasuryPolicy()
	const (
		wantID       = "0xfa34b821064860cba3c9817289269035c9e3c64b01ad4f9278374b307bd58a50"
		wantCBOR     = "a2016874726561737572790282a60170757364632d746f2d74726561737572790265616c6c6f77038154a0b86991c6218b36c1d19d4a2e9eb0ce3606eb480478197472616e7366657228616464726573732c75696e74323536290682a301000262696e03782a307831313131313131313131313131313131313131313131313131313131313131313131313131313131a3010102626c650367313030303030300981a30101026267740366313030303030a3016a6e6f2d6574682d6f7574026464656e790381542222222222222222222222222222222222222222"
		wantJSON     = `{"name":"treasury","rules":[{"name":"usdc-to-treasury","effect":"allow","targets":["0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"],"method":"transfer(address,uint256)","args":[{"arg":0,"op":"in","value":"0x1111111111111111111111111111111111111111"},{"arg":1,"op":"le","value":"1000000"}],"approval_if":[{"arg":1,"op":"gt","value":"100000"}]},{"name":"no-eth-out","effect":"deny","targets":["0x2222222222222222222222222222222222222222"]}]}`
		wantEval     = `{"policy_id":"0xfa34b821064860cba3c9817289269035c9e3c64b01ad4f9278374b307bd58a50","decision":"deny","approval_required":false,"reasons":[{"rule":"usdc-to-treasury","matched":false,"detail":"target 0x2222222222222222222222222222222222222222 not listed"},{"rule":"no-eth-out","matched":true,"detail":"target and value within rule"},{"rule":"","matched":false,"detail":"denied: a deny rule matched"}]}`
		wantEvalCBOR = "a4015820fa34b821064860cba3c9817289269035c9e3c64b01ad4f9278374b307bd58a50026464656e7903f40483a30170757364632d746f2d747265617375727902f403783c74617267657420307832323232323232323232323232323232323232323232323232323232323232323232323232323232206e6f74206c6973746564a3016a6e6f2d6574682d6f757402f503781c74617267657420616e642076616c75652077697468696e2072756c65a3016002f403781b64656e6965643a20612064656e792072756c65206d617463686564"
	)
	id, err := p.ID()
	if err != nil || id.Hex() != wantID {
		t.Fatalf("policy id %s (%v), want %s", id.Hex(), err, wantID)
	}
	enc, err := format.Marshal(&p)
	if err != nil || fmt.Sprintf("%x", enc) != wantCBOR {
		t.Fatalf("policy cbor %x (%v), want %s", enc, err, wantCBOR)
	}
	js, err := json.Marshal(p)
	if err != nil || string(js) != wantJSON {
		t.Fatalf("policy json %s (%v), want %s", js, err, wantJSON)
	}
	ev, err := p.Evaluate(pdr.Request{Call: pdr.Call{Target: stranger}})
	if err != nil {
		t.Fatal(err)
	}
	ej, _ := json.Marshal(ev)
	ec, _ := format.Marshal(ev)
	if string(ej) != wantEval || fmt.Sprintf("%x", ec) != wantEvalCBOR {
		t.Fatalf("evaluation json %s cbor %x; want %s and %s", ej, ec, wantEval, wantEvalCBOR)
	}
	// Both decode back to the same policy and evaluation.
	var fromJSON, fromCBOR pdr.Policy
	if err := json.Unmarshal(js, &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := pdr.DecodeCBOR(enc, &fromCBOR); err != nil {
		t.Fatal(err)
	}
	for _, q := range []pdr.Policy{fromJSON, fromCBOR} {
		if qid, _ := q.ID(); qid != id || q.Rules[0].Effect != format.DecisionAllow || q.Rules[1].Effect != format.DecisionDeny {
			t.Fatalf("decoded policy %+v, id %s", q, qid.Hex())
		}
	}
	var evBack pdr.Evaluation
	if err := pdr.DecodeCBOR(ec, &evBack); err != nil || evBack.Decision != format.DecisionDeny || evBack.Allowed() {
		t.Fatalf("decoded evaluation %+v (%v)", evBack, err)
	}
	if err := json.Unmarshal(ej, &evBack); err != nil || evBack.Decision != format.DecisionDeny {
		t.Fatalf("decoded evaluation %+v (%v)", evBack, err)
	}
}

// A rule without an effect, or with an unknown one, is refused when it is decoded: Deny is the
// zero Decision, and a rule must not deny (or allow) by omission.
func TestPolicyRuleEffectRequired(t *testing.T) {
	for _, c := range []struct{ desc, json, err string }{
		{"no effect", `{"name":"p","rules":[{"name":"r","targets":[]}]}`, `rule "r" has no effect, want allow or deny`},
		{"null effect", `{"name":"p","rules":[{"name":"r","effect":null}]}`, `rule "r" has no effect`},
		{"unknown effect", `{"name":"p","rules":[{"name":"r","effect":"maybe"}]}`, `decision "maybe", want "allow" or "deny"`},
		{"numeric effect", `{"name":"p","rules":[{"name":"r","effect":1}]}`, `unmarshal JSON number into Go`},
	} {
		var p pdr.Policy
		err := json.Unmarshal([]byte(c.json), &p)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: json error %v, want %q", c.desc, err, c.err)
		}
	}
	// CBOR: the rule {1: "r"} without key 2, and {1: "r", 2: "maybe"}.
	type noEffect struct {
		Name string `cbor:"1,keyasint"`
	}
	type textEffect struct {
		Name   string `cbor:"1,keyasint"`
		Effect string `cbor:"2,keyasint"`
	}
	for _, c := range []struct {
		desc string
		rule any
		err  string
	}{
		{"no effect", noEffect{"r"}, `rule "r" has no effect`},
		{"unknown effect", textEffect{"r", "maybe"}, `decision "maybe"`},
		{"empty effect", textEffect{"r", ""}, `decision ""`},
	} {
		enc, err := format.Marshal(struct {
			Name  string `cbor:"1,keyasint"`
			Rules []any  `cbor:"2,keyasint"`
		}{"p", []any{c.rule}})
		if err != nil {
			t.Fatal(err)
		}
		var p pdr.Policy
		if err := pdr.DecodeCBOR(enc, &p); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: cbor error %v, want %q", c.desc, err, c.err)
		}
	}
	// A rule built in Go with an out-of-range effect fails validation and encoding.
	bad := pdr.Policy{Name: "p", Rules: []pdr.Rule{{Name: "r", Effect: format.Decision(7)}}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "effect decision(7), want allow or deny") {
		t.Errorf("validate: %v", err)
	}
	if _, err := bad.ID(); err == nil {
		t.Error("a policy with effect decision(7) has an id")
	}
}
