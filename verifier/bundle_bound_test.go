package verifier_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/agentflightrecorder/afr/verifier"
)

// repeatedBundle is a bundle within the 64 MiB limit that repeats one
// header and one event n times each: a reading that searched each event
// against every header would do n² work (it took minutes at 100,000).
func repeatedBundle(t testing.TB, n int) (*verifier.Bundle, verifier.AnchorList) {
	t.Helper()
	lg := makeLog(t, 4, 4, 1, 61)
	b := disclose(t, lg, []uint64{2}, false)
	b.Headers = slices.Repeat(b.Headers, n)
	b.Events = slices.Repeat(b.Events, n)
	if enc, err := b.Encode(); err != nil || len(enc) > verifier.MaxBundleSize {
		t.Fatalf("the bundle is %d bytes (%v), over the limit", len(enc), err)
	}
	return b, verifier.AnchorList(lg.anchors)
}

// A bundle of 100,000 repeated headers and events is tampered (its order
// is wrong) and is indexed; how long that takes, against 10,000 (linear:
// about ten times as long), is BenchmarkVerifyBundleRepeated's.
func TestVerifyBundleRepeated(t *testing.T) {
	b, anchors := repeatedBundle(t, 100_000)
	rep, err := verifier.VerifyBundle(context.Background(), b, anchors, verifier.Options{Payloads: verifier.PayloadsDigest})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Has(verifier.KindBundleOrder) || rep.Verdict != verifier.Tampered {
		t.Fatalf("%s %v", rep.Verdict, rep.Findings[:3])
	}
	verifier.IndexBundle(b)
}

// BenchmarkVerifyBundleRepeated verifies and indexes bundles of n repeated
// headers and events: the time grows with n, not n² (compare the sizes):
// go test -run '^$' -bench BenchmarkVerifyBundleRepeated -benchtime 3x ./verifier
func BenchmarkVerifyBundleRepeated(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			bundle, anchors := repeatedBundle(b, n)
			for b.Loop() {
				if _, err := verifier.VerifyBundle(context.Background(), bundle, anchors, verifier.Options{Payloads: verifier.PayloadsDigest}); err != nil {
					b.Fatal(err)
				}
				verifier.IndexBundle(bundle)
			}
		})
	}
}
