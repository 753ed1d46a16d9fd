package verifier_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

// Anchored history rewritten and passed off as an unsealed tail (headers
// dropped from the rewritten epoch on) is tampered, also when written to
// disk with fresh checksums; the same rewrite of history nobody anchored
// yet is only incomplete: nothing external committed to it.
func TestRewrittenAnchoredTailIsTampered(t *testing.T) {
	lg := makeLog(t, 100, 10, 1, 21)
	for _, i := range []int{0, 9, 10, 45, 90, 99} {
		ep := i / 10
		img := lg.img.Clone()
		must(t, img.RewriteTail(i))
		rep := verify(t, img, lg.anchors, verifier.Options{})
		if rep.Verdict != verifier.Tampered || !locates(rep, verifier.KindEpochMissing, uint64(i)) {
			t.Fatalf("rewrite from %d, anchored: %s %v", i, rep.Verdict, rep.Findings)
		}
		rep = verify(t, img, lg.anchors[:ep], verifier.Options{})
		if rep.Verdict != verifier.Incomplete || !rep.Has(verifier.KindUnsealed) {
			t.Fatalf("rewrite from %d, never anchored: %s %v", i, rep.Verdict, rep.Findings)
		}
	}
	dir := t.TempDir()
	img := lg.img.Clone()
	must(t, img.RewriteTail(55))
	must(t, img.WriteStreams(dir))
	man, err := os.ReadFile(filepath.Join(lg.dir, "MANIFEST"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "MANIFEST"), man, 0o600))
	l, err := recorder.OpenLog(dir)
	must(t, err)
	if rep := verify(t, l, lg.anchors, verifier.Options{}); rep.Verdict != verifier.Tampered || !rep.Has(verifier.KindEpochMissing) {
		t.Fatalf("on disk: %s %v", rep.Verdict, rep.Findings)
	}
}

// What a crash or an older copy leaves is never tampered: headers lost
// after the last anchor leave unsealed events, and a copy that ends at an
// epoch boundary before later anchors is truncated.
func TestCrashAndOldCopyAreIncomplete(t *testing.T) {
	lg := makeLog(t, 100, 10, 1, 22)
	for cut := 0; cut <= 10; cut++ {
		want := verifier.Incomplete
		if cut == 10 {
			want = verifier.Verified
		}
		crashed := lg.img.Clone()
		crashed.HeaderFrames = crashed.HeaderFrames[:cut]
		rep := verify(t, crashed, lg.anchors[:cut], verifier.Options{})
		if rep.Verdict != want || (cut < 10 && !rep.Has(verifier.KindUnsealed)) {
			t.Fatalf("headers from epoch %d lost before anchoring: %s %v", cut, rep.Verdict, rep.Findings)
		}
		old := lg.img.Clone()
		must(t, old.Truncate(10*cut))
		rep = verify(t, old, lg.anchors, verifier.Options{})
		if rep.Verdict != want || (cut < 10 && !rep.Has(verifier.KindTruncated)) {
			t.Fatalf("copy of epochs 0..%d: %s %v", cut-1, rep.Verdict, rep.Findings)
		}
	}
}

// locates reports whether a finding of kind k covers record seq.
func locates(rep *verifier.Report, k verifier.FindingKind, seq uint64) bool {
	for _, f := range rep.Findings {
		if f.Kind == k && f.Seq != nil && *f.Seq <= seq && seq < *f.Seq+max(f.Count, 1) {
			return true
		}
	}
	return false
}
