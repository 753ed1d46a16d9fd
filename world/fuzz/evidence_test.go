package fuzz_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/world/fuzz"
)

// TestViolationRecord: the shrunk bump(1000), replayed from the
// campaign's starting state, is recorded as one intent and one outcome
// (with count's storage change) and an observation naming the broken
// invariant; the sealed, anchored log verifies, and a copy with one
// record byte flipped does not.
func TestViolationRecord(t *testing.T) {
	ctx := context.Background()
	w, a := counterWorld(t)
	if _, err := (&fuzz.Violation{}).Record(ctx, w); err == nil || !strings.Contains(err.Error(), "no starting state") {
		t.Errorf("Record of a violation not from Invariants: %v", err)
	}
	v, err := fuzz.Invariants(ctx, t, w, counterCampaign(w, a))
	if err != nil || v == nil {
		t.Fatalf("Invariants = %v, %v; want a violation", v, err)
	}
	before := w.Position().Next
	att, err := v.Record(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if att.Verification.Verdict != verifier.Verified {
		t.Fatalf("verdict %s, want verified: %+v", att.Verification.Verdict, att.Verification.Findings)
	}
	if n := count(ctx, t, w, a); n.Int64() != 1000 {
		t.Errorf("count after Record = %s, want 1000 (the World as the attack left it)", n)
	}
	if got, want := w.Position().Next-before, uint64(2*len(v.Calls)+1); got != want {
		t.Errorf("Record wrote %d events, want %d (intent and outcome per call, the invariant)", got, want)
	}
	if len(att.Calls) != len(v.Calls) {
		t.Fatalf("%d calls recorded, want %d", len(att.Calls), len(v.Calls))
	}
	ix, err := w.Index()
	if err != nil {
		t.Fatal(err)
	}
	out, ok := ix.Event(att.Calls[0].Outcome.Seq)
	if !ok || out.Envelope.Kind != format.KindChainTx || out.Payload.Execution.Status != format.StatusOK || !changesStorageOf(out.Payload, w.Counter().Bytes()) {
		t.Errorf("outcome of bump(1000): %+v; want a chain_tx, status ok, a storage change of Counter", out)
	}
	inv, ok := ix.Event(att.Broken.Seq)
	if !ok || inv.Envelope.Kind != format.KindObservation || inv.Envelope.Tool != fuzz.ToolInvariant ||
		inv.Payload.Ext[fuzz.ExtInvariant] != "count below 1000" || !strings.Contains(inv.Payload.Content.Text, "count = 1000") ||
		len(inv.Payload.Context.Parents) != 1 || inv.Payload.Context.Parents[0] != att.Calls[0].Outcome.Seq {
		t.Errorf("invariant event: %+v, payload %+v", inv, inv.Payload)
	}

	img, err := w.LogImage()
	if err != nil {
		t.Fatal(err)
	}
	if err := img.FlipRecordByte(int(att.Calls[0].Outcome.Seq)); err != nil {
		t.Fatal(err)
	}
	tampered, err := w.VerifyImage(ctx, img, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tampered.Verdict != verifier.Tampered {
		t.Errorf("a flipped record byte: verdict %s, want tampered", tampered.Verdict)
	}
}

// changesStorageOf reports whether p's effects change a storage slot of
// the contract at addr.
func changesStorageOf(p *format.Payload, addr []byte) bool {
	for _, e := range p.Effects {
		if cs := e.ChainState; cs != nil && len(cs.Slot) > 0 && string(cs.Address) == string(addr) {
			return true
		}
	}
	return false
}
