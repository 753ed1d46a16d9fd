package onchain_test

import (
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

// Since EpochAnchor v2 one operator key has two channels for one (log,
// epoch): its per-log slot and its batch chain. A reader of the per-log
// channel alone — onchain.ChainAnchors, and the page (light.AnchorsFromLogs
// filters operator+log id topics only) — reports Verified for a log whose
// epoch 1 the same operator also anchored with another root in a batch.
// It should at least not say Verified while the operator's batch chain is
// non-empty and unread (Partial / incomplete), as LogAnchors would say
// Tampered.
//
// (Found by an outside review: it said Verified.)
func TestPerLogReaderSeesBatchChain(t *testing.T) {
	w := newBatchWorld(t)
	a := w.eps[0]
	o := w.operator()
	for _, e := range a {
		o.anchor(0, e)
	}
	fork := a[1]
	fork.Root = format.Digest{0xf0, 0x4c}
	o.batch(true, fork) // published on chain, in BatchContents

	expect(t, "LogAnchors", o.verify(0, nil), verifier.Tampered, verifier.KindAnchorConflict)
	src := onchain.ChainAnchors{Client: w.c, Contract: w.dep.EpochAnchor, Operator: o.addr(), LogID: w.ids[0], FromBlock: w.dep.Block}
	rep, err := verifier.VerifyLog(w.ctx, w.logs[0], src, verifier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict == verifier.Verified {
		t.Fatalf("per-log reader: Verified although the operator anchored another root for epoch 1 in batch 0")
	}
}
