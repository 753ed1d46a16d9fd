package verifier_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/verifier"
)

// TestVerifyBundleLinear: the work of verifying a bundle grows with its
// size, not with its headers times its events. A bundle within the 64 MiB
// limit that repeats one header and one event 100,000 times each (each
// event then searched against every header) took minutes before; the
// bound below is far above what the linear reading takes on a loaded
// machine and far below what the quadratic one took.
func TestVerifyBundleLinear(t *testing.T) {
	lg := makeLog(t, 4, 4, 1, 61)
	b := disclose(t, lg, []uint64{2}, false)
	const n = 100_000
	b.Headers = slices.Repeat(b.Headers, n)
	b.Events = slices.Repeat(b.Events, n)
	if enc, err := b.Encode(); err != nil || len(enc) > verifier.MaxBundleSize {
		t.Fatalf("the bundle is %d bytes (%v), over the limit", len(enc), err)
	}
	start := time.Now()
	rep, err := verifier.VerifyBundle(context.Background(), b, verifier.AnchorList(lg.anchors), verifier.Options{Payloads: verifier.PayloadsDigest})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Has(verifier.KindBundleOrder) || rep.Verdict != verifier.Tampered {
		t.Fatalf("%s %v", rep.Verdict, rep.Findings[:3])
	}
	verifier.IndexBundle(b)
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("verifying and indexing a bundle of %d headers and %d events took %v", n, n, d)
	}
}
