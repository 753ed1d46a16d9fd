package pdr_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
)

// ChainDecision gives the contract's numbers (deny 0, allow 1) and is one to one on every
// uint8, with DecisionFromChain its inverse.
func TestChainDecision(t *testing.T) {
	for d, want := range map[format.Decision]uint8{format.DecisionAllow: 1, format.DecisionDeny: 0, 0: 2, format.DecisionAsk: 3, 255: 255} {
		if got := pdr.ChainDecision(d); got != want {
			t.Errorf("ChainDecision(%s) = %d, want %d", d, got, want)
		}
	}
	seen := map[format.Decision]bool{}
	for v := range 256 {
		d := pdr.DecisionFromChain(uint8(v))
		if pdr.ChainDecision(d) != uint8(v) || seen[d] {
			t.Fatalf("DecisionFromChain(%d) = %s: not the inverse of ChainDecision", v, d)
		}
		seen[d] = true
	}
}

// A PDR's digest, CBOR, ABI and compact calldata and JSON are those computed when PDRs had their
// own Decision type numbered as the contract numbers it (golden values from before format's
// Decision replaced it), for allow, deny and the chain values 2, 3 and 255.
func TestPDREncodingsUnchanged(t *testing.T) {
	key, _ := crypto.HexToECDSA("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
	dom := pdr.Domain{ChainID: 31337, Account: common.HexToAddress("0x00000000000000000000000000000000000000aa")}
	call := pdr.Call{Target: common.HexToAddress("0x00000000000000000000000000000000000000bb"), Value: big.NewInt(12345), Data: []byte{0xa9, 0x05, 0x9c, 0xbb, 1, 2}}
	sum := func(b []byte) string { return fmt.Sprintf("%x", sha256.Sum256(b)) }
	for _, c := range []struct {
		chain                            uint8
		digest, cbor, abi, compact, json string // SHA-256 of each encoding; json "" for none
	}{
		{1, "0x30fbe13a4ef04fb8bd9160ef04aacbf4bf1d41062d4e8f4755ac28e99296127f", "e8b1c97bccf342ce6d631fd85dbe84111cc430f47b399f37255481ac1c223f24", "3e0ef36930e6793ec352d6258a800fd019f70cab3087d3f594468c7f807b5a5e", "b00cf1db4f4a4c84392f27ca5522bb64758453f684316b1280689d73d90455f2", "3b38cf061ca8df48bb8603deaf3417299009e80eb1647fdf6f08448bd72743b1"},
		{0, "0x7b4f2d3c7dff26cc2a0b74a22067fc062044cfee8f60798eb336f6fd0a903edc", "f5e797c701f7a5c389f55e20897910efba195680b13c8e4533afe4df24220c4f", "1c10a972f20997605354494a02a29f8073f5db8bea0e6dbfd3ceb6df18abfd9b", "7852f50877b0737df509d876745dc4694b200e2dbb3c8c17056c177b465f4cc9", "e77852221dcfc1bee333e53f6afe31bf625e435ea3a88fcef1fadac59b2145f7"},
		{2, "0xccc62b456212a533e746840511044bd064cc94818de5d308aa2a80243f316cbf", "a91c5f6b166ae4adaa93c1bbdc424a41811efd837bc21e0d5f7ad84ef0a4c085", "3544cf1cb003f0fed594a3a3694486c96d839e5162baa5b619a47810597de043", "cb395012d4e499343cea127b87b5aa3439f33f044a2de8097ed48f108f5fadff", ""},
		{3, "0xab8ff02855813f3ec393bcbd64332c2662631253c349a34ae1a03346df8d7f59", "d0a7c46a9bb856c54e8af0a3aefd13b828dca5c0cef54be6729d3be960910095", "08dfa854ff565f81e6f082b91d4ba7f33189be2b2334559f46236cd518602019", "dc94fd726d75f1fc116b19b44435fcc00d950a9c82ac6065ceb68c98f57f6117", ""},
		{255, "0x730f7f388707b4f7989b48ac7a77b3ef800055b49b46077a2f69bb3e2ba3fac1", "15cd917f4e1979a0aae5a54db3b1afb1359d0674c6b9ba8a91ec739a15f7843b", "b75f8446aae930ad2f302b4b026ff8dba0aedb1faa376077a9838b6f8b4deecb", "5a704e40645fa34ac69fa64a271dde473a40e0a0804f2caf10dc1dc492845c89", ""},
	} {
		terms := pdr.Terms{Nonce: 7, PolicyID: crypto.Keccak256Hash([]byte("policy")), Decision: pdr.DecisionFromChain(c.chain),
			Expiry: 1900000000, EventID: crypto.Keccak256Hash([]byte("event"))}
		s, err := pdr.SignPDR(key, pdr.ForCall(dom, call, terms))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.PDR.Digest().Hex(); got != c.digest {
			t.Errorf("chain decision %d: digest %s, want %s", c.chain, got, c.digest)
		}
		enc, err := format.Marshal(s)
		if err != nil || sum(enc) != c.cbor {
			t.Errorf("chain decision %d: cbor %x (%v), want SHA-256 %s", c.chain, enc, err, c.cbor)
		}
		var back pdr.SignedPDR
		if err := pdr.DecodeCBOR(enc, &back); err != nil || back.PDR.Decision != terms.Decision {
			t.Errorf("chain decision %d: cbor decodes to decision %s (%v)", c.chain, back.PDR.Decision, err)
		}
		abi, err := s.Calldata(call)
		if err != nil || sum(abi) != c.abi {
			t.Errorf("chain decision %d: calldata %x (%v), want SHA-256 %s", c.chain, abi, err, c.abi)
		}
		compact, err := pdr.CompactCalldata(&s, call)
		if err != nil || sum(compact) != c.compact {
			t.Errorf("chain decision %d: compact calldata %x (%v), want SHA-256 %s", c.chain, compact, err, c.compact)
		}
		if parsed, _, err := pdr.ParseCompactCalldata(dom, compact); err != nil || parsed.PDR.Decision != terms.Decision {
			t.Errorf("chain decision %d: compact calldata parses to decision %s (%v)", c.chain, parsed.PDR.Decision, err)
		}
		js, err := json.Marshal(s)
		switch {
		case c.json == "" && err == nil:
			t.Errorf("chain decision %d: json %s, want none (only allow and deny have names)", c.chain, js)
		case c.json != "" && (err != nil || sum(js) != c.json):
			t.Errorf("chain decision %d: json %s (%v), want SHA-256 %s", c.chain, js, err, c.json)
		}
	}
}

// A PDR's JSON without a decision, or with a decision other than allow or deny, is refused.
func TestPDRJSONDecision(t *testing.T) {
	s := samplePDR(t)
	js, err := json.Marshal(s.PDR)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	for _, d := range []any{nil, "ask", "maybe", 1, "delete"} {
		if d == "delete" {
			delete(m, "decision")
		} else {
			m["decision"] = d
		}
		b, _ := json.Marshal(m)
		var p pdr.PDR
		if err := json.Unmarshal(b, &p); err == nil {
			t.Errorf("decision %v: accepted as %s", d, p.Decision)
		}
	}
}
