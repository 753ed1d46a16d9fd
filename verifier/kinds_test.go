package verifier_test

import (
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// Each check of the verifier is the only guard against some tampering:
// these cases target one check each and require its own finding kind, so
// disabling any check fails a test (failure classes stay apart).
func TestEveryCheckHasItsFinding(t *testing.T) {
	// 40 events in epochs of 8; anchors only for epochs 0–2, so epochs 3–4
	// and a tail are guarded by the log's own links alone.
	base := makeLog(t, 40, 8, 1, 11)
	other := makeLog(t, 40, 8, 1, 12)
	unsealedTail := func(img *tamper.Image) { img.HeaderFrames = img.HeaderFrames[:4] } // events 32–39 in no epoch
	cases := []struct {
		name    string
		anchors int // anchored epochs
		mutate  func(t *testing.T, img *tamper.Image)
		kind    verifier.FindingKind
	}{
		{"chain_break in the unsealed tail", 3, func(t *testing.T, img *tamper.Image) {
			unsealedTail(img)
			must(t, img.EditRecord(35))
		}, verifier.KindChainBreak},
		{"epoch_link of an unanchored epoch", 3, func(t *testing.T, img *tamper.Image) {
			must(t, img.ReplaceHeader(3))
		}, verifier.KindEpochLink},
		{"epoch_sequence after a dropped header", 5, func(t *testing.T, img *tamper.Image) {
			must(t, img.DropHeader(2))
		}, verifier.KindEpochSequence},
		{"clock that does not increase", 5, func(t *testing.T, img *tamper.Image) {
			e, _ := format.DecodeEnvelope(img.RecordFrames[20])
			prev, _ := format.DecodeEnvelope(img.RecordFrames[19])
			e.Clock = prev.Clock
			b, err := format.EncodeEnvelope(e)
			must(t, err)
			img.RecordFrames[20] = b
		}, verifier.KindClock},
		{"epoch header of another session", 3, func(t *testing.T, img *tamper.Image) {
			img.HeaderFrames[4] = other.img.HeaderFrames[4]
		}, verifier.KindForeignRecord},
		{"sequence number off its position", 5, func(t *testing.T, img *tamper.Image) {
			must(t, img.SwapRecords(10, 11))
		}, verifier.KindSequence},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img := base.img.Clone()
			c.mutate(t, img)
			rep := verify(t, img, base.anchors[:c.anchors], verifier.Options{})
			if rep.Verdict != verifier.Tampered || !rep.Has(c.kind) {
				t.Fatalf("verdict %s, want tampered with %s: %v", rep.Verdict, c.kind, rep.Findings)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
