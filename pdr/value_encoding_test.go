package pdr_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
)

// TestValueRangeEncodings: the JSON and CBOR encoders refuse to write a value that is not a
// uint256, and the decoders of PDRs, signed PDRs, delegations, signed delegations and policies
// refuse to read one.
func TestValueRangeEncodings(t *testing.T) {
	good := samplePDR(t)
	for _, c := range badValues {
		p := good.PDR
		p.Value = c.v
		refused(t, "format.Marshal(PDR) "+c.desc, func() error { _, err := format.Marshal(p); return err })
		refused(t, "json.Marshal(PDR) "+c.desc, func() error { _, err := json.Marshal(p); return err })
		d := good.Delegations[0].Delegation
		d.MaxValueTotal = c.v
		refused(t, "format.Marshal(Delegation) "+c.desc, func() error { _, err := format.Marshal(d); return err })
		refused(t, "json.Marshal(Delegation) "+c.desc, func() error { _, err := json.Marshal(d); return err })

		// Decoding: the CBOR and JSON of the same records with the bad value written by hand.
		for _, in := range badCBOR(t, good, c.v) {
			refused(t, "DecodeCBOR "+in.what+" "+c.desc, func() error { return pdr.DecodeCBOR(in.data, in.into) })
		}
		for _, in := range badJSON(t, good, c.v) {
			refusedAny(t, "json.Unmarshal "+in.what+" "+c.desc, func() error { return json.Unmarshal(in.data, in.into) })
		}
	}
	// Policies: wei amounts and integer conditions out of range for their type are refused
	// by Validate and by both decoders; the boundaries are accepted.
	rule := func(mutate func(r *pdr.Rule)) pdr.Policy {
		r := pdr.Rule{Name: "r", Effect: format.DecisionAllow, Method: "f(uint256,int8,uint8)"}
		mutate(&r)
		return pdr.Policy{Name: "p", Rules: []pdr.Rule{r}}
	}
	for _, c := range []struct {
		desc string
		pol  pdr.Policy
	}{
		{"max_value -1", rule(func(r *pdr.Rule) { r.MaxValue = "-1" })},
		{"max_value 2^256", rule(func(r *pdr.Rule) { r.MaxValue = two256.String() })},
		{"approval_above -10 ETH", rule(func(r *pdr.Rule) { r.ApprovalAbove = eth(-10).String() })},
		{"approval_above 2^256", rule(func(r *pdr.Rule) { r.ApprovalAbove = two256.String() })},
		{"uint256 arg ge -1", rule(func(r *pdr.Rule) { r.Args = []pdr.Condition{{Arg: 0, Op: "ge", Value: "-1"}} })},
		{"uint256 arg le 2^256", rule(func(r *pdr.Rule) { r.Args = []pdr.Condition{{Arg: 0, Op: "le", Value: two256.String()}} })},
		{"uint256 arg in 1,2^256", rule(func(r *pdr.Rule) { r.Args = []pdr.Condition{{Arg: 0, Op: "in", Value: "1," + two256.String()}} })},
		{"int8 arg lt -129", rule(func(r *pdr.Rule) { r.Args = []pdr.Condition{{Arg: 1, Op: "lt", Value: "-129"}} })},
		{"int8 arg gt 128", rule(func(r *pdr.Rule) { r.ApprovalIf = []pdr.Condition{{Arg: 1, Op: "gt", Value: "128"}} })},
		{"uint8 arg le 256", rule(func(r *pdr.Rule) { r.Args = []pdr.Condition{{Arg: 2, Op: "le", Value: "256"}} })},
	} {
		refused(t, "Validate policy "+c.desc, c.pol.Validate)
		js, err := json.Marshal(c.pol)
		if err != nil {
			t.Fatal(err)
		}
		var p pdr.Policy
		refused(t, "json.Unmarshal policy "+c.desc, func() error { return json.Unmarshal(js, &p) })
		refused(t, "DecodeCBOR policy "+c.desc, func() error {
			enc, err := format.Marshal(c.pol)
			if err != nil {
				return err // the encoder may refuse first; then nothing can be decoded
			}
			return pdr.DecodeCBOR(enc, &p)
		})
	}
	for _, c := range []struct {
		desc string
		pol  pdr.Policy
	}{
		{"max_value 2^256-1", rule(func(r *pdr.Rule) { r.MaxValue = maxUint256.String() })},
		{"approval_above 0", rule(func(r *pdr.Rule) { r.ApprovalAbove = "0" })},
		{"uint256 arg le 2^256-1, ge 0", rule(func(r *pdr.Rule) {
			r.Args = []pdr.Condition{{Arg: 0, Op: "le", Value: maxUint256.String()}, {Arg: 0, Op: "ge", Value: "0"}}
		})},
		{"int8 arg -128..127", rule(func(r *pdr.Rule) {
			r.Args = []pdr.Condition{{Arg: 1, Op: "ge", Value: "-128"}, {Arg: 1, Op: "in", Value: "-128, 0, 127"}}
		})},
		{"uint8 arg le 255", rule(func(r *pdr.Rule) { r.ApprovalIf = []pdr.Condition{{Arg: 2, Op: "le", Value: "255"}} })},
	} {
		accepted(t, "Validate policy "+c.desc, c.pol.Validate)
		js, err := json.Marshal(c.pol)
		if err != nil {
			t.Fatal(err)
		}
		var p pdr.Policy
		accepted(t, "json.Unmarshal policy "+c.desc, func() error { return json.Unmarshal(js, &p) })
		enc, err := format.Marshal(c.pol)
		if err != nil {
			t.Fatal(err)
		}
		accepted(t, "DecodeCBOR policy "+c.desc, func() error { return pdr.DecodeCBOR(enc, &p) })
	}
}

type badInput struct {
	what string
	data []byte
	into any
}

// badCBOR returns the CBOR of a PDR, a signed PDR, a delegation and a signed delegation whose
// value (caps) is v, written with the wire structs' layout (integer keys, big.Int values).
func badCBOR(t *testing.T, good pdr.SignedPDR, v *big.Int) []badInput {
	t.Helper()
	type pdrWire struct {
		ChainID          uint64         `cbor:"1,keyasint"`
		Account          common.Address `cbor:"2,keyasint"`
		Nonce            uint64         `cbor:"3,keyasint"`
		Target           common.Address `cbor:"4,keyasint"`
		Value            *big.Int       `cbor:"5,keyasint"`
		DataHash         common.Hash    `cbor:"6,keyasint"`
		PolicyID         common.Hash    `cbor:"7,keyasint"`
		Decision         uint8          `cbor:"8,keyasint"`
		ApprovalRequired bool           `cbor:"9,keyasint"`
		Expiry           uint64         `cbor:"10,keyasint"`
		EventID          common.Hash    `cbor:"11,keyasint"`
	}
	type delegationWire struct {
		Delegator       common.Address   `cbor:"1,keyasint"`
		Delegate        common.Address   `cbor:"2,keyasint"`
		Parent          common.Hash      `cbor:"3,keyasint"`
		Targets         []common.Address `cbor:"4,keyasint"`
		Selectors       [][4]byte        `cbor:"5,keyasint"`
		MaxValuePerCall *big.Int         `cbor:"6,keyasint"`
		MaxValueTotal   *big.Int         `cbor:"7,keyasint"`
		Expiry          uint64           `cbor:"8,keyasint"`
		Salt            common.Hash      `cbor:"9,keyasint"`
	}
	type signedDelegationWire struct {
		Delegation delegationWire `cbor:"1,keyasint"`
		Signature  pdr.Signature  `cbor:"2,keyasint"`
	}
	type signedPDRWire struct {
		PDR         pdrWire                `cbor:"1,keyasint"`
		Signature   pdr.Signature          `cbor:"2,keyasint"`
		Approvals   []pdr.Signature        `cbor:"3,keyasint"`
		Delegations []signedDelegationWire `cbor:"4,keyasint"`
	}
	p := good.PDR
	pw := pdrWire{p.ChainID, p.Account, p.Nonce, p.Target, v, p.DataHash, p.PolicyID, pdr.ChainDecision(p.Decision), p.ApprovalRequired, p.Expiry, p.EventID}
	dl := good.Delegations[0].Delegation
	dw := delegationWire{dl.Delegator, dl.Delegate, dl.Parent, dl.Targets, dl.Selectors, dl.MaxValuePerCall, v, dl.Expiry, dl.Salt}
	dwPerCall := dw
	dwPerCall.MaxValuePerCall, dwPerCall.MaxValueTotal = v, dl.MaxValueTotal
	goodPW := pw
	goodPW.Value = p.Value
	enc := func(x any) []byte {
		b, err := format.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	sig := good.Signature
	return []badInput{
		{"PDR", enc(pw), new(pdr.PDR)},
		{"SignedPDR", enc(signedPDRWire{pw, sig, good.Approvals, nil}), new(pdr.SignedPDR)},
		{"SignedPDR (delegation cap)", enc(signedPDRWire{goodPW, sig, good.Approvals, []signedDelegationWire{{dw, sig}}}), new(pdr.SignedPDR)},
		{"Delegation (total cap)", enc(dw), new(pdr.Delegation)},
		{"Delegation (per-call cap)", enc(dwPerCall), new(pdr.Delegation)},
		{"SignedDelegation", enc(signedDelegationWire{dw, sig}), new(pdr.SignedDelegation)},
	}
}

// badJSON returns the JSON of the same records with value v written as a hex quantity (what a
// careless encoder would produce: "-0x…" or more than 64 digits).
func badJSON(t *testing.T, good pdr.SignedPDR, v *big.Int) []badInput {
	t.Helper()
	q := fmt.Sprintf("%#x", v)
	if v.Sign() < 0 {
		q = "-" + fmt.Sprintf("%#x", new(big.Int).Neg(v))
	}
	js, err := json.Marshal(good)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	m["pdr"].(map[string]any)["value"] = q
	signed, _ := json.Marshal(m)
	p, _ := json.Marshal(m["pdr"])
	m["pdr"].(map[string]any)["value"] = "0x1"
	link := m["delegations"].([]any)[0].(map[string]any)["Delegation"].(map[string]any)
	link["max_value_per_call"] = q
	withLink, _ := json.Marshal(m)
	d, _ := json.Marshal(link)
	return []badInput{
		{"PDR", p, new(pdr.PDR)},
		{"SignedPDR", signed, new(pdr.SignedPDR)},
		{"SignedPDR (delegation cap)", withLink, new(pdr.SignedPDR)},
		{"Delegation", d, new(pdr.Delegation)},
	}
}
