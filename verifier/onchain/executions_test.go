package onchain_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/embedded"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/pace"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

var vendor = common.HexToAddress("0x000000000000000000000000000000000000bEEF")

func milliEther(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e15)) }

func newKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestCompletenessEdgeCases checks the on-chain completeness check where it
// is easiest to fool: one recorded intent executed twice under two PDRs, an
// intent whose arguments differ from a call sent through the compact entry
// point, and a legitimate batch under one PDR (not a false finding).
func TestCompletenessEdgeCases(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	em, err := embedded.New(backend.EmbeddedOptions{BlockPeriod: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer em.Close()
	c := em.Client()
	keys := em.Keys()
	operator, owner, relayer, policyKey, approver := keys[0], keys[1], keys[2], newKey(t), newKey(t)
	dep, err := chain.Deploy(ctx, c, operator, &chain.PaceConfig{Owner: chain.Address(owner), PolicySigner: chain.Address(policyKey),
		Approvers: []common.Address{chain.Address(approver)}, Threshold: 1})
	if err != nil {
		t.Fatal(err)
	}
	acct := *dep.Pace
	if _, err := chain.Transact(ctx, c, owner, &acct, milliEther(5000), nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := logtest.Open(t, dir, recorder.Options{Recorder: "rv", EpochSize: 4, Sync: recorder.SyncNone})
	a := &pace.Agent{Recorder: r, Client: c, Domain: pdr.Domain{ChainID: backend.EmbeddedChainID, Account: acct}, Registry: onchain.DefaultRegistry(),
		Policy: &pdr.Policy{Name: "treasury", Rules: []pdr.Rule{
			{Name: "pay-vendor", Effect: format.DecisionAllow, Targets: []common.Address{vendor}, MaxValue: milliEther(10000).String(), ApprovalAbove: milliEther(1000).String()},
		}},
		PolicySigner: policyKey, Name: "treasury-agent/1.0", Group: "treasury"}
	// signed returns a PDR allowing rec's call (or batch), bound to eventID,
	// signed by the policy signer outside the policy: a compromised agent.
	signed := func(eventID common.Hash, rec func(pdr.Terms) pdr.PDR) pdr.SignedPDR {
		t.Helper()
		terms, err := a.NextTerms(ctx, eventID)
		if err != nil {
			t.Fatal(err)
		}
		terms.Decision = format.DecisionAllow
		s, err := pdr.SignPDR(policyKey, rec(terms))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	// (1) one recorded intent, executed once properly ...
	pay := pdr.Call{Target: vendor, Value: milliEther(50)}
	p, err := a.Propose(ctx, pay)
	if err != nil {
		t.Fatal(err)
	}
	res := a.Execute(ctx, p, relayer)
	if !res.Succeeded() {
		t.Fatal(res.Err)
	}
	if _, err := a.RecordOutcome(ctx, p, res); err != nil {
		t.Fatal(err)
	}
	// ... and a second time with a fresh PDR bound to the same event id.
	again := signed(p.EventID(), func(t pdr.Terms) pdr.PDR { return pdr.ForCall(a.Domain, pay, t) })
	if res := a.Submit(ctx, relayer, &again, pay); !res.Succeeded() {
		t.Fatal(res.Err)
	}

	// (2) an intent for token.transfer(A, 1), executed as
	// token.transfer(B, 10^24) through compact calldata.
	tok := common.HexToAddress("0x00000000000000000000000000000000000070C0")
	sel := crypto.Keccak256([]byte("transfer(address,uint256)"))[:4]
	enc := func(to common.Address, amt *big.Int) []byte {
		return append(append(append([]byte{}, sel...), common.LeftPadBytes(to[:], 32)...), common.LeftPadBytes(amt.Bytes(), 32)...)
	}
	dataA := enc(common.HexToAddress("0xAAAA"), big.NewInt(1))
	dataB := enc(common.HexToAddress("0xBBBB"), new(big.Int).Exp(big.NewInt(10), big.NewInt(24), nil))
	var compactSeq, batchSeq uint64
	{
		intent := calldata.IntentOf(a.Registry, a.Domain.ChainID, acct, &tok, new(big.Int), dataA).Record()
		rc, err := r.Record(ctx, format.Event{Tool: pace.ToolPace, Kind: format.KindChainTx, Payload: format.Payload{Intent: &intent}})
		if err != nil {
			t.Fatal(err)
		}
		call := pdr.Call{Target: tok, Value: new(big.Int), Data: dataB}
		s := signed(common.Hash(rc.Digest), func(t pdr.Terms) pdr.PDR { return pdr.ForCall(a.Domain, call, t) })
		cd, err := pdr.CompactCalldata(&s, call)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := chain.Transact(ctx, c, relayer, &acct, nil, cd); err != nil {
			t.Fatal(err)
		}
		compactSeq = rc.Seq
	}
	// (3) a legitimate batch: two payments under one PDR and event id.
	{
		calls := []pdr.Call{{Target: vendor, Value: milliEther(10)}, {Target: vendor, Value: milliEther(20)}}
		bintent := calldata.IntentOf(a.Registry, a.Domain.ChainID, acct, &calls[0].Target, calls[0].Value, nil).Record()
		rc, err := r.Record(ctx, format.Event{Tool: "pace.executeBatch", Kind: format.KindChainTx, Payload: format.Payload{Intent: &bintent}})
		if err != nil {
			t.Fatal(err)
		}
		s := signed(common.Hash(rc.Digest), func(t pdr.Terms) pdr.PDR { return pdr.ForBatch(a.Domain, calls, t) })
		var bc []bindings.IPaceSmartAccountCall
		for _, c := range calls {
			bc = append(bc, c.Binding())
		}
		cd := bindings.NewPaceSmartAccount().PackExecuteBatch(bc, s.PDR.Terms().Binding(), s.Signature.Binding(), nil)
		if _, err := chain.Transact(ctx, c, relayer, &acct, nil, cd); err != nil {
			t.Fatal(err)
		}
		batchSeq = rc.Seq
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	anchors, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verifier.VerifyLog(ctx, l, verifier.AnchorList(anchors),
		verifier.Options{Completeness: onchain.Executions{Client: c, Account: acct, FromBlock: dep.Block}})
	if err != nil {
		t.Fatal(err)
	}
	xr := rep.Executions
	var twice, compactDiff int
	for _, f := range rep.Findings {
		if f.Kind != verifier.KindExecMismatch {
			continue
		}
		switch {
		case strings.Contains(f.Detail, "several PDRs"):
			twice++
		case f.Seq != nil && *f.Seq == compactSeq:
			compactDiff++
		case f.Seq != nil && *f.Seq == batchSeq:
			t.Errorf("false finding for a legitimate batch: %s", f)
		}
	}
	if rep.Verdict != verifier.Tampered || twice != 2 || compactDiff != 1 || xr.Unchecked != 2 {
		t.Fatalf("verdict %s, executed-twice findings %d (want 2), compact mismatches %d (want 1), batch calls unchecked %d (want 2); executions %+v; findings %v",
			rep.Verdict, twice, compactDiff, xr.Unchecked, *xr, rep.Findings)
	}
}
