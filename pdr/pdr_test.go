package pdr_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
)

// TestDigestMatchesGethTypedData cross-checks the hand-written EIP-712 hashing against
// go-ethereum's generic implementation (signer/core/apitypes).
func TestDigestMatchesGethTypedData(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 16 {
		dom := pdr.Domain{ChainID: r.Uint64N(1 << 40), Account: randAddr(r)}
		p := pdr.ForCall(dom, pdr.Call{Target: randAddr(r), Value: randUint256(r), Data: randBytes(r, 50)}, randTerms(r))
		d := randDelegation(r)
		pdrFields := []apitypes.Type{{Name: "nonce", Type: "uint64"}, {Name: "target", Type: "address"}, {Name: "value", Type: "uint256"}, {Name: "dataHash", Type: "bytes32"},
			{Name: "policyId", Type: "bytes32"}, {Name: "decision", Type: "uint8"}, {Name: "approvalRequired", Type: "bool"}, {Name: "expiry", Type: "uint64"}, {Name: "eventId", Type: "bytes32"}}
		types := apitypes.Types{
			"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "version", Type: "string"}, {Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}},
			"PDR":          pdrFields,
			"DelegatedPDR": pdrFields,
			"Delegation": {{Name: "delegator", Type: "address"}, {Name: "delegate", Type: "address"}, {Name: "parent", Type: "bytes32"}, {Name: "targets", Type: "address[]"},
				{Name: "selectors", Type: "bytes4[]"}, {Name: "maxValuePerCall", Type: "uint256"}, {Name: "maxValueTotal", Type: "uint256"}, {Name: "expiry", Type: "uint64"}, {Name: "salt", Type: "bytes32"}},
		}
		domain := apitypes.TypedDataDomain{Name: pdr.DomainName, Version: pdr.DomainVersion,
			ChainId: math.NewHexOrDecimal256(int64(dom.ChainID)), VerifyingContract: dom.Account.Hex()}
		msg := apitypes.TypedDataMessage{
			"nonce": new(big.Int).SetUint64(p.Nonce), "target": p.Target.Hex(), "value": p.Value, "dataHash": p.DataHash[:],
			"policyId": p.PolicyID[:], "decision": big.NewInt(int64(pdr.ChainDecision(p.Decision))), "approvalRequired": p.ApprovalRequired,
			"expiry": new(big.Int).SetUint64(p.Expiry), "eventId": p.EventID[:],
		}
		got, _, err := apitypes.TypedDataAndHash(apitypes.TypedData{Types: types, PrimaryType: "PDR", Domain: domain, Message: msg})
		if err != nil {
			t.Fatal(err)
		}
		if common.BytesToHash(got) != p.Digest() {
			t.Fatalf("PDR digest: geth %x, pdr %x", got, p.Digest())
		}
		got, _, err = apitypes.TypedDataAndHash(apitypes.TypedData{Types: types, PrimaryType: "DelegatedPDR", Domain: domain, Message: msg})
		if err != nil {
			t.Fatal(err)
		}
		if common.BytesToHash(got) != p.DelegatedDigest() {
			t.Fatalf("DelegatedPDR digest: geth %x, pdr %x", got, p.DelegatedDigest())
		}
		targets := make([]any, len(d.Targets))
		for i, a := range d.Targets {
			targets[i] = a.Hex()
		}
		sels := make([]any, len(d.Selectors))
		for i, s := range d.Selectors {
			sels[i] = s[:]
		}
		dmsg := apitypes.TypedDataMessage{"delegator": d.Delegator.Hex(), "delegate": d.Delegate.Hex(), "parent": d.Parent[:], "targets": targets,
			"selectors": sels, "maxValuePerCall": d.MaxValuePerCall, "maxValueTotal": d.MaxValueTotal, "expiry": new(big.Int).SetUint64(d.Expiry), "salt": d.Salt[:]}
		got, _, err = apitypes.TypedDataAndHash(apitypes.TypedData{Types: types, PrimaryType: "Delegation", Domain: domain, Message: dmsg})
		if err != nil {
			t.Fatal(err)
		}
		if common.BytesToHash(got) != d.Digest(dom) {
			t.Fatalf("delegation digest: geth %x, pdr %x", got, d.Digest(dom))
		}
	}
}

// TestTypeHashes pins the two PDR type hashes that docs/SPEC.md ("PACE PDR digests") gives.
func TestTypeHashes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want common.Hash
	}{
		{"PDR", pdr.PDRTypeHash, common.HexToHash("0x0071486a45a1589aa15196c44815c5236ce454fdb6a7bb8676534287cc1c1f80")},
		{"DelegatedPDR", pdr.DelegatedPDRTypeHash, common.HexToHash("0x96469a0fe3b25026bfff2a5dea8b4c96c364177a184c94308471d10facacbe64")},
	} {
		if c.got != c.want {
			t.Errorf("%s type hash %s, want %s", c.name, c.got.Hex(), c.want.Hex())
		}
	}
}

func TestSignatureForms(t *testing.T) {
	key, _ := crypto.GenerateKey()
	digest := crypto.Keccak256Hash([]byte("x"))
	s, err := pdr.Sign(key, digest)
	if err != nil {
		t.Fatal(err)
	}
	if a, err := s.Recover(digest); err != nil || a != crypto.PubkeyToAddress(key.PublicKey) {
		t.Fatalf("recover: %v %v", a, err)
	}
	back, err := pdr.FromRSV(s.RSV())
	if err != nil || back != s {
		t.Fatalf("rsv round trip: %v", err)
	}
	// The malleable twin (r, N−s, v^1) is refused in 65-byte form.
	rsv := s.RSV()
	sv := new(big.Int).SetBytes(rsv[32:64])
	new(big.Int).Sub(crypto.S256().Params().N, sv).FillBytes(rsv[32:64])
	rsv[64] = 55 - rsv[64] // 27 <-> 28
	if _, err := pdr.FromRSV(rsv); !errors.Is(err, pdr.ErrInvalidSignatureS) {
		t.Fatalf("malleable twin: %v, want ErrInvalidSignatureS", err)
	}
}

func samplePDR(t *testing.T) pdr.SignedPDR {
	t.Helper()
	delegate, _ := crypto.GenerateKey()
	approver, _ := crypto.GenerateKey()
	owner, _ := crypto.GenerateKey()
	dom := pdr.Domain{ChainID: 10, Account: common.HexToAddress("0x00000000000000000000000000000000000000aa")}
	call := pdr.Call{Target: common.HexToAddress("0xbb"), Value: big.NewInt(12345), Data: []byte{1, 2, 3, 4, 5}}
	d, err := pdr.SignDelegation(owner, dom, pdr.Delegation{Delegator: crypto.PubkeyToAddress(owner.PublicKey), Delegate: crypto.PubkeyToAddress(delegate.PublicKey),
		Targets: []common.Address{call.Target}, Selectors: [][4]byte{call.Selector()}, MaxValuePerCall: big.NewInt(5), MaxValueTotal: new(big.Int).Lsh(big.NewInt(1), 200), Expiry: 5})
	if err != nil {
		t.Fatal(err)
	}
	s, err := pdr.SignDelegatedPDR(delegate, pdr.ForCall(dom, call, pdr.Terms{Nonce: 7, PolicyID: common.Hash{1}, Decision: format.DecisionAllow, ApprovalRequired: true, Expiry: 99, EventID: common.Hash{2}}),
		[]pdr.SignedDelegation{d})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Approve(approver); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestEncodingsRoundTrip(t *testing.T) {
	s := samplePDR(t)
	enc, err := format.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back pdr.SignedPDR
	if err := pdr.DecodeCBOR(enc, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Fatalf("cbor round trip:\n got %+v\nwant %+v", back, s)
	}
	if back.PDR.Digest() != s.PDR.Digest() {
		t.Fatal("digest changed in cbor round trip")
	}
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON pdr.SignedPDR
	if err := json.Unmarshal(js, &fromJSON); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, s) {
		t.Fatalf("json round trip:\n got %+v\nwant %+v\n%s", fromJSON, s, js)
	}
	if !bytes.Contains(js, []byte(`"decision":"allow"`)) || !bytes.Contains(js, []byte(`"value":"0x3039"`)) {
		t.Fatalf("json shape: %s", js)
	}
}

func TestDecodeRejectsNonCanonicalCBOR(t *testing.T) {
	enc, err := format.Marshal(samplePDR(t).PDR)
	if err != nil {
		t.Fatal(err)
	}
	// Nonce 7 re-encoded in a longer form (0x18 0x07): same value, not canonical.
	i := bytes.Index(enc, []byte{0x03, 0x07})
	if i < 0 {
		t.Fatalf("nonce not found in %x", enc)
	}
	bad := append(append(append([]byte{}, enc[:i+1]...), 0x18, 0x07), enc[i+2:]...)
	var p pdr.PDR
	if err := pdr.DecodeCBOR(bad, &p); !errors.Is(err, format.ErrNonCanonical) {
		t.Fatalf("long-form nonce: %v, want ErrNonCanonical", err)
	}
	if err := pdr.DecodeCBOR(enc, &p); err != nil {
		t.Fatalf("canonical input rejected: %v", err)
	}
}

func FuzzDecodeCBOR(f *testing.F) {
	s := samplePDRForFuzz()
	enc, _ := format.Marshal(s)
	f.Add(enc)
	f.Fuzz(func(t *testing.T, data []byte) {
		var p pdr.SignedPDR
		if err := pdr.DecodeCBOR(data, &p); err != nil {
			return
		}
		again, err := format.Marshal(p)
		if err != nil {
			t.Fatalf("decoded value does not encode: %v", err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("accepted non-canonical input %x (re-encodes to %x)", data, again)
		}
	})
}

func samplePDRForFuzz() pdr.SignedPDR {
	return pdr.SignedPDR{PDR: pdr.PDR{Domain: pdr.Domain{ChainID: 1}, Nonce: 3, Value: big.NewInt(9), Decision: format.DecisionAllow, Expiry: 100}}
}

func TestVerifyRejectsPDRForOtherCall(t *testing.T) {
	policy, _ := crypto.GenerateKey()
	dom := pdr.Domain{ChainID: 1, Account: common.Address{9}}
	call := pdr.Call{Target: common.Address{1}, Data: []byte{1, 2, 3, 4}}
	s, _ := pdr.SignPDR(policy, pdr.ForCall(dom, call, pdr.Terms{Nonce: 0, Decision: format.DecisionAllow, Expiry: 10}))
	st := &pdr.State{PolicySigner: crypto.PubkeyToAddress(policy.PublicKey)}
	if err := pdr.Verify(st, &s, call, 10, false); err != nil {
		t.Fatalf("valid PDR rejected: %v", err)
	}
	other := call
	other.Data = []byte{1, 2, 3, 5}
	if err := pdr.Verify(st, &s, other, 10, false); !errors.Is(err, pdr.ErrUnauthorizedPolicySigner) {
		t.Fatalf("other calldata: %v", err)
	}
	if err := pdr.Verify(st, &s, call, 11, false); !errors.Is(err, pdr.ErrPDRExpired) {
		t.Fatalf("expired: %v", err)
	}
}

// TestVerifyRefusesPDRAsOtherType (issue 25): when the owner delegates to the policy signer's
// own key, a policy-signed PDR under that chain is refused as the contract's executeDelegated
// refuses it (UnauthorizedDelegate: it is signed as PDRType, not DelegatedPDRType), though its
// nonce is the delegated space's; and a delegated PDR signed by that key is refused as
// policy-signed once its chain is taken off (UnauthorizedPolicySigner). Approvals do not carry
// over between the two types either.
func TestVerifyRefusesPDRAsOtherType(t *testing.T) {
	owner, policy, approver := mustKey(t), mustKey(t), mustKey(t)
	dom := pdr.Domain{ChainID: 1, Account: common.Address{9}}
	call := pdr.Call{Target: common.Address{1}, Data: []byte{1, 2, 3, 4}}
	st := &pdr.State{Owner: crypto.PubkeyToAddress(owner.PublicKey), PolicySigner: crypto.PubkeyToAddress(policy.PublicKey),
		Approvers: map[common.Address]bool{crypto.PubkeyToAddress(approver.PublicKey): true}, Threshold: 1}
	link, err := pdr.SignDelegation(owner, dom, pdr.Delegation{Delegator: st.Owner, Delegate: st.PolicySigner,
		Targets: []common.Address{call.Target}, Selectors: [][4]byte{call.Selector()}, MaxValuePerCall: new(big.Int), MaxValueTotal: new(big.Int), Expiry: 10})
	if err != nil {
		t.Fatal(err)
	}
	chain := []pdr.SignedDelegation{link}
	for _, approval := range []bool{false, true} {
		p := pdr.ForCall(dom, call, pdr.Terms{Decision: format.DecisionAllow, ApprovalRequired: approval, Expiry: 10})
		policySigned, err := pdr.SignPDR(policy, p)
		if err != nil {
			t.Fatal(err)
		}
		delegated, err := pdr.SignDelegatedPDR(policy, p, chain)
		if err != nil {
			t.Fatal(err)
		}
		if approval {
			if err := policySigned.Approve(approver); err != nil {
				t.Fatal(err)
			}
			if err := delegated.Approve(approver); err != nil {
				t.Fatal(err)
			}
		}
		if err := pdr.Verify(st, &policySigned, call, 10, true); err != nil {
			t.Fatalf("approval %v: policy-signed PDR refused: %v", approval, err)
		}
		if err := pdr.Verify(st, &delegated, call, 10, true); err != nil {
			t.Fatalf("approval %v: delegated PDR refused: %v", approval, err)
		}
		replayed := policySigned
		replayed.Delegations = chain
		if err := pdr.Verify(st, &replayed, call, 10, true); !errors.Is(err, pdr.ErrUnauthorizedDelegate) {
			t.Errorf("approval %v: policy-signed PDR under a chain to the policy signer: %v, want UnauthorizedDelegate", approval, err)
		}
		unchained := delegated
		unchained.Delegations = nil
		if err := pdr.Verify(st, &unchained, call, 10, true); !errors.Is(err, pdr.ErrUnauthorizedPolicySigner) {
			t.Errorf("approval %v: delegated PDR without its chain: %v, want UnauthorizedPolicySigner", approval, err)
		}
		if approval { // the right signature, the other type's approvals
			mixed := delegated
			mixed.Approvals = policySigned.Approvals
			if err := pdr.Verify(st, &mixed, call, 10, true); !errors.Is(err, pdr.ErrNotApprover) {
				t.Errorf("policy PDR's approvals on the delegated PDR: %v, want NotApprover", err)
			}
		}
	}
	if _, err := pdr.SignDelegatedPDR(policy, pdr.ForCall(dom, call, pdr.Terms{Decision: format.DecisionAllow, Expiry: 10}), nil); !errors.Is(err, pdr.ErrEmptyDelegationChain) {
		t.Errorf("delegated PDR without a chain: %v, want EmptyDelegationChain", err)
	}
}

// TestVerifyRefusesSelfCall: a single call whose target is the account is
// refused after every other check, as the contract does (TargetIsAccount):
// a PDR with the account as target is a batch PDR (issue 12, finding 4).
func TestVerifyRefusesSelfCall(t *testing.T) {
	policy, _ := crypto.GenerateKey()
	dom := pdr.Domain{ChainID: 1, Account: common.Address{9}}
	st := &pdr.State{PolicySigner: crypto.PubkeyToAddress(policy.PublicKey)}
	for _, target := range []common.Address{dom.Account, {1}} {
		call := pdr.Call{Target: target, Data: []byte{1, 2, 3, 4}}
		s, _ := pdr.SignPDR(policy, pdr.ForCall(dom, call, pdr.Terms{Decision: format.DecisionAllow, Expiry: 10}))
		err := pdr.Verify(st, &s, call, 10, false)
		if want := target == dom.Account; errors.Is(err, pdr.ErrTargetIsAccount) != want || (!want && err != nil) {
			t.Errorf("target %s: %v", target, err)
		}
		// Other failures come first, as on chain.
		if err := pdr.Verify(st, &s, call, 11, false); !errors.Is(err, pdr.ErrPDRExpired) {
			t.Errorf("target %s, expired: %v", target, err)
		}
	}
}

func TestParseExecutedRejectsNonCanonical(t *testing.T) {
	word := make([]byte, 64)
	word[19], word[23], word[24] = 0x51, 0x01, 1
	l := &types.Log{Topics: []common.Hash{pdr.ExecutedTopic, {1}, {2}}, Data: word}
	if e, err := pdr.ParseExecuted(l); err != nil || !e.Success || e.Selector != [4]byte{0, 0, 0, 1} || e.Target != common.BytesToAddress([]byte{0x51}) {
		t.Fatalf("canonical log: %+v, %v", e, err)
	}
	for _, mutate := range []func(l *types.Log){
		func(l *types.Log) { l.Data[24] = 2 },
		func(l *types.Log) { l.Data[31] = 1 },
		func(l *types.Log) { l.Data = l.Data[:32] },
		func(l *types.Log) { l.Topics = l.Topics[:2] },
		func(l *types.Log) { l.Topics[0] = common.Hash{} },
	} {
		m := &types.Log{Topics: append([]common.Hash(nil), l.Topics...), Data: append([]byte(nil), l.Data...)}
		mutate(m)
		if _, err := pdr.ParseExecuted(m); err == nil {
			t.Errorf("mutated log %+v accepted", m)
		}
	}
}

// A PDR's JSON is read as every reader reads it (docs/SPEC.md, "Reading
// JSON"): a name given twice, or in two spellings equal under case folding,
// is refused, and names match exactly. Before, the last one won, matched
// case-insensitively: {"decision":"deny","Decision":"allow"} was an allow.
func TestJSONRefusesEqualNames(t *testing.T) {
	js, err := json.Marshal(samplePDR(t))
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string]string{
		"duplicate":    strings.Replace(string(js), `"decision":"allow"`, `"decision":"deny","decision":"allow"`, 1),
		"case-folded":  strings.Replace(string(js), `"decision":"allow"`, `"decision":"deny","Decision":"allow"`, 1),
		"upper-case":   strings.Replace(string(js), `"decision":"allow"`, `"DECISION":"allow"`, 1),
		"outer-folded": strings.Replace(string(js), `"approvals":`, `"Approvals":[],"approvals":`, 1),
	} {
		var back pdr.SignedPDR
		if err := json.Unmarshal([]byte(doc), &back); err == nil {
			t.Errorf("%s: read %+v", name, back.PDR)
		}
	}
	var p pdr.Policy
	if err := json.Unmarshal([]byte(`{"name":"p","rules":[{"name":"r","effect":"deny","EFFECT":"allow"}]}`), &p); err == nil {
		t.Errorf("a rule with two case-folded effects: read %+v", p)
	}
}
