package pdr_test

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
)

// Values crossing into pdr (issue 12, findings 1 and 10): every *big.Int an agent, a policy
// author or a decoder hands to pdr must be a uint256 (0 ≤ v ≤ 2^256 − 1) or be refused. A
// negative value used to be hashed as its absolute value (common.BigToHash), so −10 ETH passed
// a 1 ETH cap without approval while the signed digest authorised +10 ETH on chain; 2^256 was
// hashed (and packed) as 0.

var (
	ether      = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	two256     = new(big.Int).Lsh(big.NewInt(1), 256)
	maxUint256 = new(big.Int).Sub(two256, big.NewInt(1))
)

func eth(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), ether) }

// badValues are the values no entry point may accept.
var badValues = []struct {
	desc string
	v    *big.Int
}{
	{"-1", big.NewInt(-1)},
	{"-10 ETH", eth(-10)},
	{"-(2^256-1)", new(big.Int).Neg(maxUint256)},
	{"2^256", two256},
	{"2^256+1", new(big.Int).Add(two256, big.NewInt(1))},
	{"2^300", new(big.Int).Lsh(big.NewInt(1), 300)},
}

// goodValues are the boundary values every entry point must accept (nil means zero).
var goodValues = []struct {
	desc string
	v    *big.Int
}{
	{"nil", nil},
	{"0", new(big.Int)},
	{"1", big.NewInt(1)},
	{"10 ETH", eth(10)},
	{"2^255", new(big.Int).Lsh(big.NewInt(1), 255)},
	{"2^256-1", maxUint256},
}

// attempt runs f and turns a panic into an error, so a table reports which entry point
// panicked instead of stopping.
func attempt(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

// refused fails the test unless f returned an error without panicking.
func refused(t *testing.T, what string, f func() error) {
	t.Helper()
	err := attempt(f)
	switch {
	case err == nil:
		t.Errorf("%s: accepted, want an error", what)
	case strings.HasPrefix(err.Error(), "panic: "):
		t.Errorf("%s: %v, want an error", what, err)
	case !isValueRange(err):
		t.Errorf("%s: %v, want a value-range error", what, err)
	}
}

// panics fails the test unless f panics with a message naming the uint256 range: the hashes
// have no error result, and must not map the value to another one.
func panics(t *testing.T, what string, f func()) {
	t.Helper()
	err := attempt(func() error { f(); return nil })
	if err == nil || !strings.Contains(err.Error(), pdr.ErrValueRange.Error()) {
		t.Errorf("%s: %v, want a panic about the uint256 range", what, err)
	}
}

func isValueRange(err error) bool { return errors.Is(err, pdr.ErrValueRange) }

// refusedAny is refused for decoders that refuse the input before pdr sees the value (hexutil
// refuses "-0x…" and more than 256 bits itself).
func refusedAny(t *testing.T, what string, f func() error) {
	t.Helper()
	if err := attempt(f); err == nil || strings.HasPrefix(err.Error(), "panic: ") {
		t.Errorf("%s: %v, want an error", what, err)
	}
}

// accepted fails the test unless f returned nil.
func accepted(t *testing.T, what string, f func() error) {
	t.Helper()
	if err := attempt(f); err != nil {
		t.Errorf("%s: %v, want accepted", what, err)
	}
}

// ethPolicy allows ETH transfers to treasury up to 1 ETH, with approval above 0.5 ETH.
func ethPolicy() pdr.Policy {
	return pdr.Policy{Name: "eth", Rules: []pdr.Rule{
		{Name: "small-eth", Effect: format.DecisionAllow, Targets: []common.Address{treasury},
			MaxValue: ether.String(), ApprovalAbove: new(big.Int).Div(ether, big.NewInt(2)).String()},
	}}
}

// TestValueRangeEvaluate: Evaluate and Decide refuse a call value that is not a uint256 (it
// used to pass MaxValue and ApprovalAbove: −10 ETH is "under" 1 ETH), and decide the clean
// values as before, up to 2^256 − 1.
func TestValueRangeEvaluate(t *testing.T) {
	key := mustKey(t)
	dom := pdr.Domain{ChainID: 1, Account: common.Address{0xac}}
	pol := ethPolicy()
	for _, c := range badValues {
		in := pdr.Request{Domain: dom, Call: pdr.Call{Target: treasury, Value: c.v}}
		refused(t, "Evaluate "+c.desc, func() error {
			ev, err := pol.Evaluate(in)
			if err == nil {
				t.Logf("Evaluate %s: %s, approval %v", c.desc, ev.Decision, ev.ApprovalRequired)
			}
			return err
		})
		refused(t, "Decide "+c.desc, func() error {
			s, ev, err := pol.Decide(in, 0, 100, key)
			if err == nil {
				t.Logf("Decide %s: %s, approval %v, signed PDR value %v", c.desc, ev.Decision, ev.ApprovalRequired, s.PDR.Value)
			}
			return err
		})
	}
	// Clean cases: the cap and the approval threshold still work, at every boundary.
	noCap := pdr.Policy{Name: "nocap", Rules: []pdr.Rule{{Name: "any", Effect: format.DecisionAllow, ApprovalAbove: "0"}}}
	for _, c := range []struct {
		desc     string
		pol      pdr.Policy
		v        *big.Int
		decision format.Decision
		approval bool
	}{
		{"nil", pol, nil, format.DecisionAllow, false},
		{"0", pol, new(big.Int), format.DecisionAllow, false},
		{"0.5 ETH", pol, new(big.Int).Div(ether, big.NewInt(2)), format.DecisionAllow, false},
		{"0.5 ETH + 1", pol, new(big.Int).Add(new(big.Int).Div(ether, big.NewInt(2)), big.NewInt(1)), format.DecisionAllow, true},
		{"1 ETH", pol, ether, format.DecisionAllow, true},
		{"1 ETH + 1", pol, new(big.Int).Add(ether, big.NewInt(1)), format.DecisionDeny, false},
		{"10 ETH", pol, eth(10), format.DecisionDeny, false},
		{"2^256-1 over the cap", pol, maxUint256, format.DecisionDeny, false},
		{"2^256-1 without cap", noCap, maxUint256, format.DecisionAllow, true},
		{"0 without cap", noCap, nil, format.DecisionAllow, false},
	} {
		in := pdr.Request{Domain: dom, Call: pdr.Call{Target: treasury, Value: c.v}}
		s, ev, err := c.pol.Decide(in, 0, 100, key)
		if err != nil {
			t.Errorf("Decide %s: %v", c.desc, err)
			continue
		}
		if ev.Decision != c.decision || ev.ApprovalRequired != c.approval {
			t.Errorf("Decide %s: %s approval %v, want %s approval %v", c.desc, ev.Decision, ev.ApprovalRequired, c.decision, c.approval)
		}
		if want := valueOrZero(c.v); s.PDR.Value.Cmp(want) != 0 {
			t.Errorf("Decide %s: PDR value %v, want %v", c.desc, s.PDR.Value, want)
		}
	}
}

func valueOrZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}

// TestValueRangeSignVerify: SignPDR, Approve, Digest and Verify refuse a PDR or call value that
// is not a uint256; in particular a PDR signed for +v no longer verifies for a call of −v, nor a
// PDR signed for 0 for a call of 2^256. Values up to 2^256 − 1 sign and verify.
func TestValueRangeSignVerify(t *testing.T) {
	policy, approver := mustKey(t), mustKey(t)
	dom := pdr.Domain{ChainID: 1, Account: common.Address{0xac}}
	st := &pdr.State{PolicySigner: crypto.PubkeyToAddress(policy.PublicKey),
		Approvers: map[common.Address]bool{crypto.PubkeyToAddress(approver.PublicKey): true}, Threshold: 1}
	terms := pdr.Terms{Decision: format.DecisionAllow, Expiry: 100}
	for _, c := range badValues {
		call := pdr.Call{Target: treasury, Value: c.v, Data: []byte{1, 2, 3, 4}}
		p := pdr.ForCall(dom, call, terms)
		refused(t, "SignPDR "+c.desc, func() error { _, err := pdr.SignPDR(policy, p); return err })
		panics(t, "Digest "+c.desc, func() { p.Digest() })
		// The attack: the PDR signed for the uint256 the bad value used to be hashed as
		// (|v| or v mod 2^256) must not verify for the bad call.
		mapped := new(big.Int).Abs(c.v)
		mapped.Mod(mapped, two256)
		s, err := pdr.SignPDR(policy, pdr.ForCall(dom, pdr.Call{Target: treasury, Value: mapped, Data: call.Data}, terms))
		if err != nil {
			t.Fatal(err)
		}
		refused(t, "Verify "+c.desc+" with the PDR for "+mapped.String(), func() error { return pdr.Verify(st, &s, call, 100, false) })
		refused(t, "Verify (with approvals) "+c.desc, func() error { return pdr.Verify(st, &s, call, 100, true) })
		if s.PDR.Matches(call) {
			t.Errorf("Matches %s: the PDR for %v matches", c.desc, mapped)
		}
		// A signed PDR carrying a bad value (tampered or decoded elsewhere) is refused too, even
		// for an in-range call, and cannot be approved.
		bad := s
		bad.PDR.Value = c.v
		refused(t, "Verify of a SignedPDR with value "+c.desc, func() error {
			return pdr.Verify(st, &bad, pdr.Call{Target: treasury, Value: mapped, Data: call.Data}, 100, false)
		})
		refused(t, "Approve "+c.desc, func() error { return bad.Approve(approver) })
		if bad.PDR.Matches(call) {
			t.Errorf("Matches %s: a PDR with value %v matches a call with the same value", c.desc, c.v)
		}
	}
	for _, c := range goodValues {
		call := pdr.Call{Target: treasury, Value: c.v, Data: []byte{1, 2, 3, 4}}
		p := pdr.ForCall(dom, call, pdr.Terms{Decision: format.DecisionAllow, ApprovalRequired: true, Expiry: 100})
		s, err := pdr.SignPDR(policy, p)
		if err != nil {
			t.Errorf("SignPDR %s: %v", c.desc, err)
			continue
		}
		accepted(t, "Approve "+c.desc, func() error { return s.Approve(approver) })
		accepted(t, "Verify "+c.desc, func() error { return pdr.Verify(st, &s, call, 100, true) })
		if !s.PDR.Matches(call) {
			t.Errorf("Matches %s: false", c.desc)
		}
	}
}

var errNoRefusal = fmt.Errorf("not refused")

// TestValueRangeDelegation: delegation caps and the spent totals of the state are uint256s;
// SignDelegation, Digest and Verify (executeDelegated) refuse anything else.
func TestValueRangeDelegation(t *testing.T) {
	owner, delegate := mustKey(t), mustKey(t)
	dom := pdr.Domain{ChainID: 1, Account: common.Address{0xac}}
	call := pdr.Call{Target: treasury, Value: eth(1), Data: []byte{1, 2, 3, 4}}
	st := &pdr.State{Owner: crypto.PubkeyToAddress(owner.PublicKey)}
	scope := func(perCall, total *big.Int) pdr.Delegation {
		return pdr.Delegation{Delegator: st.Owner, Delegate: crypto.PubkeyToAddress(delegate.PublicKey),
			Targets: []common.Address{treasury}, Selectors: [][4]byte{call.Selector()}, MaxValuePerCall: perCall, MaxValueTotal: total, Expiry: 100}
	}
	signed := func(chain ...pdr.SignedDelegation) pdr.SignedPDR {
		s, err := pdr.SignDelegatedPDR(delegate, pdr.ForCall(dom, call, pdr.Terms{Decision: format.DecisionAllow, Expiry: 100}), chain)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, c := range badValues {
		for _, d := range []struct {
			field string
			d     pdr.Delegation
		}{
			{"max_value_per_call", scope(c.v, maxUint256)},
			{"max_value_total", scope(maxUint256, c.v)},
		} {
			what := d.field + " " + c.desc
			refused(t, "SignDelegation "+what, func() error { _, err := pdr.SignDelegation(owner, dom, d.d); return err })
			panics(t, "Delegation.Digest "+what, func() { d.d.Digest(dom) })
			// The link as its owner would have signed it for the value it used to be hashed as.
			link := pdr.SignedDelegation{Delegation: d.d}
			mapped := d.d
			for _, f := range []**big.Int{&mapped.MaxValuePerCall, &mapped.MaxValueTotal} {
				m := new(big.Int).Abs(*f)
				*f = m.Mod(m, two256)
			}
			if sig, err := pdr.Sign(owner, mapped.Digest(dom)); err == nil {
				link.Signature = sig
			}
			s := signed(link)
			refused(t, "Verify delegated, "+what, func() error { return pdr.Verify(st, &s, call, 100, false) })
		}
		// A spent total that is not a uint256 (a broken state snapshot): a negative one used to
		// widen the total cap.
		ok, err := pdr.SignDelegation(owner, dom, scope(eth(10), eth(10)))
		if err != nil {
			t.Fatal(err)
		}
		s := signed(ok)
		bad := *st
		bad.Spent = map[common.Hash]*big.Int{ok.Delegation.Digest(dom): c.v}
		refused(t, "Verify delegated, spent "+c.desc, func() error { return pdr.Verify(&bad, &s, call, 100, false) })
	}
	// Clean cases: caps at every boundary, spent up to the cap.
	for _, c := range []struct {
		desc          string
		perCall, tot  *big.Int
		spent         *big.Int
		wantOverTotal bool
	}{
		{"caps 2^256-1", maxUint256, maxUint256, nil, false},
		{"caps exact", eth(1), eth(1), nil, false},
		{"spent 0", eth(1), eth(2), new(big.Int), false},
		{"spent to the cap", eth(1), eth(2), eth(1), false},
		{"spent over", eth(1), eth(2), new(big.Int).Add(eth(1), big.NewInt(1)), true},
	} {
		link, err := pdr.SignDelegation(owner, dom, scope(c.perCall, c.tot))
		if err != nil {
			t.Errorf("SignDelegation %s: %v", c.desc, err)
			continue
		}
		s := signed(link)
		st2 := *st
		st2.Spent = map[common.Hash]*big.Int{link.Delegation.Digest(dom): c.spent}
		err = pdr.Verify(&st2, &s, call, 100, false)
		if c.wantOverTotal {
			if !isErr(err, pdr.ErrValueOverTotalCap) {
				t.Errorf("Verify %s: %v, want ValueOverTotalCap", c.desc, err)
			}
		} else if err != nil {
			t.Errorf("Verify %s: %v", c.desc, err)
		}
	}
}

func isErr(err error, target *pdr.Error) bool {
	e, ok := err.(*pdr.Error)
	return ok && e.Is(target)
}

// TestValueRangeBatch: every value in a batch and their sum must be uint256s (finding 10: a
// batch summing to 2^256 was signed as value 0 — the contract's checked sum panics — and the
// signed PDR failed Go's own CBOR decoding). A sum of exactly 2^256 − 1 is fine.
func TestValueRangeBatch(t *testing.T) {
	policy := mustKey(t)
	dom := pdr.Domain{ChainID: 1, Account: common.Address{0xac}}
	st := &pdr.State{PolicySigner: crypto.PubkeyToAddress(policy.PublicKey)}
	terms := pdr.Terms{Decision: format.DecisionAllow, Expiry: 100}
	half := new(big.Int).Lsh(big.NewInt(1), 255)
	batch := func(vs ...*big.Int) []pdr.Call {
		var calls []pdr.Call
		for i, v := range vs {
			calls = append(calls, pdr.Call{Target: common.Address{byte(i + 1)}, Value: v, Data: []byte{byte(i)}})
		}
		return calls
	}
	for _, c := range []struct {
		desc  string
		calls []pdr.Call
	}{
		{"sum 2^256", batch(half, half)},
		{"sum 2^256 in three", batch(maxUint256, big.NewInt(1), nil)},
		{"sum 2^257-2", batch(maxUint256, maxUint256)},
		{"negative call, positive sum", batch(eth(10), eth(-5))},
		{"negative call, zero sum", batch(eth(5), eth(-5))},
		{"call of 2^256", batch(two256)},
		{"call of -1", batch(big.NewInt(-1))},
	} {
		refused(t, "SignPDR(ForBatch) "+c.desc, func() error { _, err := pdr.SignPDR(policy, pdr.ForBatch(dom, c.calls, terms)); return err })
		if c.desc[:3] != "sum" { // the sum is not BatchDataHash's concern
			panics(t, "BatchDataHash "+c.desc, func() { pdr.BatchDataHash(c.calls) })
		}
		// Whatever uint256 the batch used to be hashed as, its PDR must not verify.
		s, err := pdr.SignPDR(policy, pdr.ForCall(dom, pdr.Call{}, terms))
		if err != nil {
			t.Fatal(err)
		}
		refused(t, "VerifyBatch "+c.desc, func() error { return pdr.VerifyBatch(st, &s, c.calls, 100) })
	}
	// Sum 2^256 signed the way it used to be (value 0 with the batch's data hash): VerifyBatch
	// must refuse it, not accept it.
	overflow := batch(half, half)
	zeroSum := pdr.PDR{Domain: dom, Target: dom.Account, Value: new(big.Int), PolicyID: terms.PolicyID, Decision: format.DecisionAllow, Expiry: 100}
	if h, err := batchHashOf(overflow); err == nil {
		zeroSum.DataHash = h
		s, err := pdr.SignPDR(policy, zeroSum)
		if err != nil {
			t.Fatal(err)
		}
		refused(t, "VerifyBatch sum 2^256 with the PDR for value 0", func() error { return pdr.VerifyBatch(st, &s, overflow, 100) })
	}
	for _, c := range []struct {
		desc  string
		calls []pdr.Call
	}{
		{"sum 2^256-1", batch(half, new(big.Int).Sub(half, big.NewInt(1)))},
		{"sum 2^256-1 in three", batch(new(big.Int).Sub(maxUint256, big.NewInt(1)), big.NewInt(1), nil)},
		{"one call of 2^256-1", batch(maxUint256)},
		{"zeros and nils", batch(nil, new(big.Int))},
		{"empty", nil},
	} {
		s, err := pdr.SignPDR(policy, pdr.ForBatch(dom, c.calls, terms))
		if err != nil {
			t.Errorf("SignPDR(ForBatch) %s: %v", c.desc, err)
			continue
		}
		accepted(t, "VerifyBatch "+c.desc, func() error { return pdr.VerifyBatch(st, &s, c.calls, 100) })
		enc, err := format.Marshal(s)
		if err != nil {
			t.Errorf("format.Marshal %s: %v", c.desc, err)
			continue
		}
		var back pdr.SignedPDR
		if err := pdr.DecodeCBOR(enc, &back); err != nil {
			t.Errorf("DecodeCBOR %s: %v", c.desc, err)
		}
	}
}

// batchHashOf is BatchDataHash with the values reduced mod 2^256 (what the hash used to
// encode), or an error for negative values.
func batchHashOf(calls []pdr.Call) (h common.Hash, err error) {
	red := make([]pdr.Call, len(calls))
	for i, c := range calls {
		if c.Value != nil && c.Value.Sign() < 0 {
			return h, errNoRefusal
		}
		red[i] = c
		if c.Value != nil {
			red[i].Value = new(big.Int).Mod(c.Value, two256)
		}
	}
	return pdr.BatchDataHash(red), nil
}

// TestValueRangeCalldata: the ABI cannot carry a negative value and packs 2^256 as 0, so
// Calldata (every entry point) and CompactCalldata refuse what is not a uint256, and pack the
// boundary 2^256 − 1.
func TestValueRangeCalldata(t *testing.T) {
	good := samplePDR(t)
	undelegated := good
	undelegated.Delegations = nil
	noApproval := undelegated
	noApproval.PDR.ApprovalRequired = false
	forms := []struct {
		desc string
		s    pdr.SignedPDR
	}{{"executeDelegated", good}, {"executeWithApprovals", undelegated}, {"execute", noApproval}}
	for _, c := range badValues {
		call := pdr.Call{Target: good.PDR.Target, Value: c.v, Data: []byte{1, 2, 3, 4, 5}}
		for _, f := range forms {
			refused(t, "Calldata ("+f.desc+") "+c.desc, func() error { _, err := f.s.Calldata(call); return err })
		}
		refused(t, "CompactCalldata "+c.desc, func() error { _, err := pdr.CompactCalldata(&undelegated, call); return err })
		bad := good
		bad.Delegations = []pdr.SignedDelegation{good.Delegations[0]}
		bad.Delegations[0].Delegation.MaxValuePerCall = c.v
		refused(t, "Calldata (delegation cap) "+c.desc, func() error { _, err := bad.Calldata(pdr.Call{Target: good.PDR.Target}); return err })
	}
	for _, c := range goodValues {
		call := pdr.Call{Target: good.PDR.Target, Value: c.v, Data: []byte{1, 2, 3, 4, 5}}
		for _, f := range forms {
			accepted(t, "Calldata ("+f.desc+") "+c.desc, func() error { _, err := f.s.Calldata(call); return err })
		}
		accepted(t, "CompactCalldata "+c.desc, func() error { _, err := pdr.CompactCalldata(&undelegated, call); return err })
	}
}

// FuzzValueRange: for any value (the bytes' magnitude, negated when neg) and a second call
// value, every entry point accepts exactly the uint256s — and a batch exactly when the sum is
// one too — and what it accepts hashes the value itself (the PDR signed for it verifies for the
// call, and only for that call's value).
func FuzzValueRange(f *testing.F) {
	max := maxUint256.Bytes()
	f.Add([]byte{1}, false, []byte{})
	f.Add([]byte{1}, true, []byte{})
	f.Add(max, false, []byte{1})
	f.Add(max, false, []byte{})
	f.Add(two256.Bytes(), false, []byte{})
	f.Add(eth(10).Bytes(), true, eth(1).Bytes())
	f.Add(new(big.Int).Lsh(big.NewInt(1), 255).Bytes(), false, new(big.Int).Lsh(big.NewInt(1), 255).Bytes())
	key := mustKey(f)
	dom := pdr.Domain{ChainID: 1, Account: common.Address{0xac}}
	st := &pdr.State{PolicySigner: crypto.PubkeyToAddress(key.PublicKey)}
	terms := pdr.Terms{Decision: format.DecisionAllow, Expiry: 100}
	pol := pdr.Policy{Name: "p", Rules: []pdr.Rule{{Name: "cap", Effect: format.DecisionAllow, MaxValue: ether.String()}}}
	f.Fuzz(func(t *testing.T, mag []byte, neg bool, other []byte) {
		if len(mag) > 64 || len(other) > 40 {
			return
		}
		v := new(big.Int).SetBytes(mag)
		if neg {
			v.Neg(v)
		}
		ok := v.Sign() >= 0 && v.BitLen() <= 256
		call := pdr.Call{Target: treasury, Value: v, Data: []byte{9}}
		check := func(what string, err error) {
			t.Helper()
			if ok && err != nil {
				t.Fatalf("%s %v: %v", what, v, err)
			}
			if !ok && !errors.Is(err, pdr.ErrValueRange) {
				t.Fatalf("%s %v: %v, want ErrValueRange", what, v, err)
			}
		}
		ev, err := pol.Evaluate(pdr.Request{Domain: dom, Call: call})
		check("Evaluate", err)
		if ok && ev.Allowed() != (v.Cmp(ether) <= 0) {
			t.Fatalf("Evaluate %v: %s under a 1 ETH cap", v, ev.Decision)
		}
		s, err := pdr.SignPDR(key, pdr.ForCall(dom, call, terms))
		check("SignPDR", err)
		_, err = pdr.SignDelegation(key, dom, pdr.Delegation{MaxValuePerCall: v, MaxValueTotal: v})
		check("SignDelegation", err)
		_, err = format.Marshal(pdr.PDR{Value: v})
		check("format.Marshal", err)
		if ok {
			check("Verify", pdr.Verify(st, &s, call, 100, false))
			var back pdr.PDR
			enc, _ := format.Marshal(s.PDR)
			check("DecodeCBOR", pdr.DecodeCBOR(enc, &back))
			if back.Value.Cmp(v) != 0 || back.Digest() != s.PDR.Digest() {
				t.Fatalf("CBOR round trip of %v: %v", v, back.Value)
			}
			// Another value (v ± 2^256, −v, v + 1) never verifies: nothing maps onto v.
			for _, w := range []*big.Int{new(big.Int).Add(v, two256), new(big.Int).Sub(v, two256), new(big.Int).Neg(v), new(big.Int).Add(v, big.NewInt(1))} {
				if w.Cmp(v) != 0 && pdr.Verify(st, &s, pdr.Call{Target: treasury, Value: w, Data: []byte{9}}, 100, false) == nil {
					t.Fatalf("the PDR for %v verifies for %v", v, w)
				}
			}
		} else {
			check("Verify", pdr.Verify(st, &pdr.SignedPDR{PDR: pdr.ForCall(dom, pdr.Call{}, terms)}, call, 100, false))
		}
		// Batches: [v, other] is accepted iff both are uint256s and so is their sum.
		o := new(big.Int).SetBytes(other)
		calls := []pdr.Call{{Target: treasury, Value: v}, {Target: usdc, Value: o}}
		sum := new(big.Int).Add(v, o)
		bok := ok && sum.BitLen() <= 256
		b, err := pdr.SignPDR(key, pdr.ForBatch(dom, calls, terms))
		if bok != (err == nil) || (!bok && !errors.Is(err, pdr.ErrValueRange)) {
			t.Fatalf("SignPDR(ForBatch(%v, %v)): %v", v, o, err)
		}
		if bok {
			if err := pdr.VerifyBatch(st, &b, calls, 100); err != nil {
				t.Fatalf("VerifyBatch(%v, %v): %v", v, o, err)
			}
		} else if err := pdr.VerifyBatch(st, &pdr.SignedPDR{PDR: pdr.ForCall(dom, pdr.Call{}, terms)}, calls, 100); !errors.Is(err, pdr.ErrValueRange) {
			t.Fatalf("VerifyBatch(%v, %v): %v, want ErrValueRange", v, o, err)
		}
	})
}
