package verifier_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// conflicts returns the epochs of the anchor_conflict findings for anchors
// checked against an empty log.
func conflicts(t *testing.T, as ...format.Anchor) []uint64 {
	t.Helper()
	rep, err := verifier.VerifyLog(context.Background(), &tamper.Image{}, verifier.AnchorList(as), verifier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for _, f := range rep.Findings {
		if f.Kind == verifier.KindAnchorConflict {
			out = append(out, *f.Epoch)
		}
	}
	return out
}

func TestAnchorDuplicatesAndEpochZero(t *testing.T) {
	r := func(b byte) format.Digest { return format.Digest{b} }
	a0, a1, a2 := format.Anchor{Epoch: 0, Root: r(1)}, format.Anchor{Epoch: 1, Root: r(2), PrevRoot: r(1)}, format.Anchor{Epoch: 2, Root: r(3), PrevRoot: r(2)}
	clean := [][]format.Anchor{
		{a0, a1, a2},
		{a2, a0, a1},         // any order
		{a0, a1, a1, a2, a0}, // the same anchor listed twice (two sources)
	}
	for i, as := range clean {
		if got := conflicts(t, as...); len(got) != 0 {
			t.Errorf("clean set %d: anchor_conflict at epochs %v", i, got)
		}
	}
	for _, at := range []format.Anchor{a0, a1, a2} {
		otherRoot, otherPrev := at, at
		otherRoot.Root[31] ^= 1
		otherPrev.PrevRoot[31] ^= 1
		for name, dup := range map[string]format.Anchor{"root": otherRoot, "prev_root": otherPrev} {
			if got := conflicts(t, a0, a1, a2, dup); !slices.Contains(got, at.Epoch) {
				t.Errorf("epoch %d anchored twice with another %s: conflicts at %v", at.Epoch, name, got)
			}
		}
	}
	bad0 := a0
	bad0.PrevRoot = r(9)
	if got := conflicts(t, bad0, a1, a2); !slices.Contains(got, 0) {
		t.Errorf("epoch 0 with a non-zero prev_root: conflicts at %v", got)
	}
}

// TestAnchorEpochsAreUntrusted: epoch numbers come from anchors files and
// nodes; a verifier never does work in proportion to one (an anchor for
// epoch 2^64−1 against an empty log is one gap, reported once, at once).
func TestAnchorEpochsAreUntrusted(t *testing.T) {
	for _, e := range []uint64{1 << 40, 1<<64 - 1} {
		done := make(chan []uint64, 1)
		go func() { done <- conflicts(t, format.Anchor{Epoch: e, Root: format.Digest{1}}) }()
		select {
		case got := <-done:
			if len(got) != 1 || got[0] != 0 {
				t.Errorf("anchor for epoch %d alone: anchor_conflict at %v, want one gap from epoch 0", e, got)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("anchor for epoch %d: verification still running after 10s", e)
		}
	}
}
