package verifier_test

import (
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// attack is one attack class: apply it at position pos (a record, or an
// epoch for header attacks) of a copy of a clean, fully anchored log, and
// expect the verdict and at least one finding of the listed kinds.
type attack struct {
	name    string
	epochs  bool // pos ranges over epochs instead of records
	apply   func(lg *testLog, img *tamper.Image, pos int) ([]verifier.Anchor, error)
	verdict func(lg *testLog, pos int) verifier.Verdict
	kinds   func(lg *testLog, pos int) []verifier.FindingKind
}

func tampered(*testLog, int) verifier.Verdict { return verifier.Tampered }

func kinds(k ...verifier.FindingKind) func(*testLog, int) []verifier.FindingKind {
	return func(*testLog, int) []verifier.FindingKind { return k }
}

func keep(lg *testLog) []verifier.Anchor { return lg.anchors }

func lastRecord(lg *testLog) int { return len(lg.img.RecordFrames) - 1 }

// epochStart reports whether record i is the first of its epoch.
func epochStart(lg *testLog, i int) bool {
	t, err := lg.img.EpochOf(i)
	if err != nil {
		panic(err)
	}
	h, err := format.DecodeEpochHeader(lg.img.HeaderFrames[t])
	return err == nil && h.FirstSeq == uint64(i)
}

var attacks = []attack{
	{name: "edit-record", verdict: tampered, kinds: kinds(verifier.KindMerkleMismatch),
		apply: func(lg *testLog, img *tamper.Image, i int) ([]verifier.Anchor, error) {
			return keep(lg), img.EditRecord(i)
		}},
	{name: "flip-record-bit", verdict: tampered, kinds: kinds(verifier.KindRecordDecode, verifier.KindMerkleMismatch),
		apply: func(lg *testLog, img *tamper.Image, i int) ([]verifier.Anchor, error) {
			return keep(lg), img.FlipRecordByte(i)
		}},
	{name: "edit-payload", verdict: tampered, kinds: kinds(verifier.KindPayloadMismatch),
		apply: func(lg *testLog, img *tamper.Image, i int) ([]verifier.Anchor, error) {
			return keep(lg), img.EditPayload(i)
		}},
	{name: "delete-record", verdict: tampered,
		kinds: func(lg *testLog, i int) []verifier.FindingKind {
			if i == lastRecord(lg) {
				return []verifier.FindingKind{verifier.KindRecordsMissing}
			}
			return []verifier.FindingKind{verifier.KindSequence}
		},
		apply: func(lg *testLog, img *tamper.Image, i int) ([]verifier.Anchor, error) {
			return keep(lg), img.DeleteRecord(i)
		}},
	{name: "insert-record", verdict: tampered, kinds: kinds(verifier.KindSequence),
		apply: func(lg *testLog, img *tamper.Image, i int) ([]verifier.Anchor, error) {
			return keep(lg), img.InsertRecord(i)
		}},
	{name: "reorder", verdict: tampered, kinds: kinds(verifier.KindSequence),
		apply: func(lg *testLog, img *tamper.Image, i int) ([]verifier.Anchor, error) {
			j := i + 1
			if i == lastRecord(lg) {
				j = i - 1
			}
			return keep(lg), img.SwapRecords(i, j)
		}},
	{name: "payload-swap", verdict: tampered, kinds: kinds(verifier.KindPayloadMismatch),
		apply: func(lg *testLog, img *tamper.Image, i int) ([]verifier.Anchor, error) {
			j := (i + 1) % len(img.PayloadFrames)
			return keep(lg), img.SwapPayloads(i, j)
		}},
	{name: "cross-session-splice", verdict: tampered, kinds: kinds(verifier.KindForeignRecord),
		apply: func(lg *testLog, img *tamper.Image, i int) ([]verifier.Anchor, error) {
			return keep(lg), img.Splice(i, otherSession(lg))
		}},
	{name: "fork", verdict: tampered, kinds: kinds(verifier.KindAnchorMismatch),
		apply: func(lg *testLog, img *tamper.Image, i int) ([]verifier.Anchor, error) { return keep(lg), img.Fork(i) }},
	// A copy cut at an epoch boundary is an old or partial copy; cut inside
	// an anchored epoch, records of that epoch remain without the header
	// that was anchored, which no crash of an honest writer leaves.
	{name: "truncate",
		verdict: func(lg *testLog, i int) verifier.Verdict {
			if epochStart(lg, i) {
				return verifier.Incomplete
			}
			return verifier.Tampered
		},
		kinds: func(lg *testLog, i int) []verifier.FindingKind {
			if epochStart(lg, i) {
				return []verifier.FindingKind{verifier.KindTruncated}
			}
			return []verifier.FindingKind{verifier.KindEpochMissing}
		},
		apply: func(lg *testLog, img *tamper.Image, i int) ([]verifier.Anchor, error) {
			return keep(lg), img.Truncate(i)
		}},
	{name: "rewrite-tail", verdict: tampered, kinds: kinds(verifier.KindEpochMissing),
		apply: func(lg *testLog, img *tamper.Image, i int) ([]verifier.Anchor, error) {
			return keep(lg), img.RewriteTail(i)
		}},
	{name: "replace-header", epochs: true, verdict: tampered, kinds: kinds(verifier.KindAnchorMismatch),
		apply: func(lg *testLog, img *tamper.Image, t int) ([]verifier.Anchor, error) {
			return keep(lg), img.ReplaceHeader(t)
		}},
	// The records of a dropped last epoch are still there: not a truncated
	// copy.
	{name: "drop-epoch", epochs: true, verdict: tampered, kinds: kinds(verifier.KindEpochMissing),
		apply: func(lg *testLog, img *tamper.Image, t int) ([]verifier.Anchor, error) {
			return keep(lg), img.DropHeader(t)
		}},
	{name: "rollback", epochs: true, verdict: tampered, kinds: kinds(verifier.KindAnchorMismatch),
		apply: func(lg *testLog, img *tamper.Image, t int) ([]verifier.Anchor, error) {
			return keep(lg), img.Rollback(t)
		}},
	{name: "linear-fake", epochs: true, verdict: tampered, kinds: kinds(verifier.KindChainHeadMismatch),
		apply: func(lg *testLog, img *tamper.Image, t int) ([]verifier.Anchor, error) { return img.LinearFake(t) }},
}

// otherSession returns a log of another session, as long as lg.
func otherSession(lg *testLog) *tamper.Image { return lg.other }

func runAttack(t *testing.T, lg *testLog, a attack, pos int) {
	t.Helper()
	img := lg.img.Clone()
	anchors, err := a.apply(lg, img, pos)
	if err != nil {
		t.Fatalf("%s at %d: %v", a.name, pos, err)
	}
	rep := verify(t, img, anchors, verifier.Options{})
	if testing.Verbose() && pos == 5 {
		t.Logf("%s at %d: %s", a.name, pos, rep.Verdict)
		for _, f := range rep.Findings {
			t.Logf("  %s", f)
		}
	}
	want := a.verdict(lg, pos)
	if rep.Verdict != want {
		t.Fatalf("%s at %d: verdict %s, want %s; findings %v", a.name, pos, rep.Verdict, want, rep.Findings)
	}
	for _, k := range a.kinds(lg, pos) {
		if rep.Has(k) {
			return
		}
	}
	t.Fatalf("%s at %d: no finding of kind %v; findings %v", a.name, pos, a.kinds(lg, pos), rep.Findings)
}

// Every attack class at every position of a 200-event log (epochs of 16):
// 100% detected, with the right verdict and class.
func TestAttacksEveryPosition(t *testing.T) {
	lg := makeLog(t, 200, 16, 2, 42)
	lg.other = makeLog(t, 200, 16, 1, 43).img
	detected := 0
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			n := len(lg.img.RecordFrames)
			if a.epochs {
				n = len(lg.img.HeaderFrames)
			}
			for pos := 0; pos < n; pos++ {
				runAttack(t, lg, a, pos)
				detected++
			}
		})
	}
	t.Logf("%d attacks at every position, all detected", detected)
}

// The paper's ten positions of a 10,000-event log (8 spread + N−2, N−1),
// epochs of 100.
func TestAttacksPaperPositions(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000-event logs")
	}
	const n = 10000
	lg := makeLog(t, n, 100, 1, 42)
	lg.other = makeLog(t, n, 100, 1, 7).img
	var positions []int
	for k := 1; k <= 8; k++ {
		positions = append(positions, k*n/9)
	}
	positions = append(positions, n-2, n-1)
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			for _, pos := range positions {
				if a.epochs {
					pos = pos / 100
				}
				runAttack(t, lg, a, pos)
			}
		})
	}
}
