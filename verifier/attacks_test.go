package verifier_test

import (
	"testing"

	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// runAttack applies one attack class of tamper.Attacks at position pos (a
// record, or an epoch for header attacks) of a copy of a clean, fully
// anchored log, and checks the verdict and finding it must have, the same
// with one worker as with several (sameWithWorkers).
func runAttack(t *testing.T, lg *testLog, a tamper.Attack, pos int) {
	t.Helper()
	img := lg.img.Clone()
	anchors, err := a.Apply(img, pos, lg.other)
	if err != nil {
		t.Fatalf("%s at %d: %v", a.Name, pos, err)
	}
	if anchors == nil {
		anchors = lg.anchors
	}
	rep := sameWithWorkers(t, a.Name, img, anchors, verifier.Options{})
	if testing.Verbose() && pos == 5 {
		t.Logf("%s at %d: %s", a.Name, pos, rep.Verdict)
		for _, f := range rep.Findings {
			t.Logf("  %s", f)
		}
	}
	want, err := a.Expect(lg.img, pos)
	if err != nil {
		t.Fatal(err)
	}
	if err := want.Check(rep); err != nil {
		t.Fatalf("%s at %d: %v", a.Name, pos, err)
	}
}

// Every attack class at every position of a 200-event log (epochs of 16):
// 100% detected, with the right verdict and class.
func TestAttacksEveryPosition(t *testing.T) {
	lg := makeLog(t, 200, 16, 2, 42)
	lg.other = makeLog(t, 200, 16, 1, 43).img
	detected := 0
	for _, a := range tamper.Attacks {
		t.Run(a.Name, func(t *testing.T) {
			n := len(lg.img.RecordFrames)
			if a.Epochs {
				n = len(lg.img.HeaderFrames)
			}
			for pos := 0; pos < n; pos++ {
				runAttack(t, lg, a, pos)
				detected++
			}
		})
	}
	if !t.Failed() {
		t.Logf("%d attacks at every position, all detected", detected)
	}
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
	for _, a := range tamper.Attacks {
		t.Run(a.Name, func(t *testing.T) {
			for _, pos := range positions {
				if a.Epochs {
					pos = pos / 100
				}
				runAttack(t, lg, a, pos)
			}
		})
	}
}
