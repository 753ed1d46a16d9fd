package main

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/verifier/onchain"

	"github.com/agentflightrecorder/afr/calldata"

	"github.com/agentflightrecorder/afr/chain/backend"

	"github.com/agentflightrecorder/afr/format"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

// TestCompletenessEdgeCases checks the on-chain completeness check where it
// is easiest to fool: one recorded intent executed twice under two PDRs, an
// intent whose arguments differ from a call sent through the compact entry
// point, and a legitimate batch under one PDR (not a false finding).
func TestCompletenessEdgeCases(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	em, err := backend.NewEmbedded(backend.EmbeddedOptions{BlockPeriod: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer em.Close()
	c := em.Client()
	keys := em.Keys()
	p := demoParty{operator: keys[0], owner: keys[1], relayer: keys[2], policy: mustKey(), approver: mustKey()}
	dep, err := chain.Deploy(ctx, c, p.operator, &chain.PaceConfig{Owner: chain.Address(p.owner), PolicySigner: chain.Address(p.policy),
		Approvers: []common.Address{chain.Address(p.approver)}, Threshold: 1})
	if err != nil {
		t.Fatal(err)
	}
	acct := *dep.Pace
	if _, err := chain.Transact(ctx, c, p.owner, &acct, ether(5), nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r, err := recorder.Open(dir, recorder.Options{Recorder: "rv", EpochSize: 4, Sync: recorder.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	tr := &treasury{ctx: ctx, r: r, c: c, p: p, acct: acct, chainID: backend.EmbeddedChainID, reg: onchain.DefaultRegistry()}
	tr.policy = pdr.Policy{Name: "treasury", Rules: []pdr.Rule{
		{Name: "pay-vendor", Effect: "allow", Targets: []common.Address{vendor}, MaxValue: ether(10).String(), ApprovalAbove: ether(1).String()},
	}}
	// (1) one recorded intent, executed once properly ...
	da, err := tr.act("pay 0.05", vendor, ether(0.05))
	if err != nil {
		t.Fatal(err)
	}
	// ... and a second time with a fresh PDR bound to the same event id.
	if _, err := tr.execute(pdr.Call{Target: vendor, Value: ether(0.05)}, common.HexToHash(da.EventID), false); err != nil {
		t.Fatal(err)
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
	id, _ := tr.policy.ID()
	var compactSeq, batchSeq uint64
	for _, compact := range []bool{true} {
		intent := calldata.IntentOf(tr.reg, tr.chainID, acct, &tok, new(big.Int), dataA).Record()
		rc, err := r.Record(ctx, format.Event{Tool: "pace.execute", Kind: format.KindChainTx, Payload: format.Payload{Intent: &intent}})
		if err != nil {
			t.Fatal(err)
		}
		call := pdr.Call{Target: tok, Value: new(big.Int), Data: dataB}
		rec := pdr.ForCall(pdr.Domain{ChainID: tr.chainID, Account: acct}, call, pdr.Terms{Nonce: tr.nonce, PolicyID: id, Decision: pdr.Allow,
			Expiry: uint64(time.Now().Add(time.Hour).Unix()), EventID: common.Hash(rc.Digest)})
		s, err := pdr.SignPDR(p.policy, rec)
		if err != nil {
			t.Fatal(err)
		}
		cd := s.Calldata(call)
		if compact {
			if cd, err = pdr.CompactCalldata(&s, call); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := chain.Transact(ctx, c, p.relayer, &acct, nil, cd); err != nil {
			t.Fatal(err)
		}
		tr.nonce++
		compactSeq = rc.Seq
	}
	// (3) a legitimate batch: two payments under one PDR and event id.
	{
		calls := []pdr.Call{{Target: vendor, Value: ether(0.01)}, {Target: vendor, Value: ether(0.02)}}
		bintent := calldata.IntentOf(tr.reg, tr.chainID, acct, &calls[0].Target, calls[0].Value, nil).Record()
		rc, err := r.Record(ctx, format.Event{Tool: "pace.executeBatch", Kind: format.KindChainTx, Payload: format.Payload{Intent: &bintent}})
		if err != nil {
			t.Fatal(err)
		}
		rec := pdr.ForBatch(pdr.Domain{ChainID: tr.chainID, Account: acct}, calls, pdr.Terms{Nonce: tr.nonce, PolicyID: id, Decision: pdr.Allow,
			Expiry: uint64(time.Now().Add(time.Hour).Unix()), EventID: common.Hash(rc.Digest)})
		s, err := pdr.SignPDR(p.policy, rec)
		if err != nil {
			t.Fatal(err)
		}
		var bc []bindings.PaceSmartAccountCall
		for _, c := range calls {
			bc = append(bc, c.Binding())
		}
		cd := bindings.NewPaceSmartAccount().PackExecuteBatch(bc, s.PDR.Terms().Binding(), s.Signature.Binding(), nil)
		if _, err := chain.Transact(ctx, c, p.relayer, &acct, nil, cd); err != nil {
			t.Fatal(err)
		}
		tr.nonce++
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
