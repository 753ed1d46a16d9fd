package onchain_test

import (
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
)

// Anyone can anchor under any log id from their own address. When the
// verifier's --operator has no anchors for a log, the unanchored finding
// tells the user to "verify with --operator <first address that anchored
// this log id per log>". An attacker who anchored fake roots for the id is
// then recommended — the honest operator, anchoring in batches only, is
// never named (batches are not searched).
//
// (Found by an outside review: the hint said "verify with --operator ATTACKER".)
func TestWrongOperatorHintRecommendsNoOne(t *testing.T) {
	w := newBatchWorld(t)
	a := w.eps[0]
	honest, attacker, wrong := w.operator(), w.operator(), w.operator()
	honest.batch(true, a[0], a[1], a[2]) // the fleet default: batches only
	fake := a[0]
	fake.Root = format.Digest{0xba, 0xd0}
	attacker.anchor(0, fake) // 1 tx, no privilege: the log id is public

	expect(t, "honest operator", honest.verify(0, nil), verifier.Verified, "")
	rep := wrong.verify(0, nil) // a typo'd / stale --operator
	for _, f := range rep.Findings {
		if strings.Contains(f.Detail, "--operator "+attacker.addr().Hex()) {
			// Following the hint: the honest log is now reported tampered.
			followed := attacker.verify(0, nil)
			t.Fatalf("hint recommends the attacker %s (never the honest batch operator %s): %q; following it gives %s %v",
				attacker.addr(), honest.addr(), f.Detail, followed.Verdict, kinds(followed))
		}
	}
}
