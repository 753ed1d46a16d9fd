package report_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/report"
	"github.com/agentflightrecorder/afr/verifier"
)

// BenchmarkReport100k renders the report of a verified 100,000-event log
// (epochs of 100, the recorder's default, payloads opened) with a causal
// graph; bytes/page is the page's weight. Verification and indexing are
// not timed.
func BenchmarkReport100k(b *testing.B) {
	tl := newLogOf(b, 99_997, 100)
	rep, err := verifier.VerifyLog(context.Background(), tl.log, tl.anchors(b), verifier.Options{Payloads: verifier.PayloadsOpen, Keys: tl.keys})
	if err != nil || rep.Verdict != verifier.Verified || rep.Events != 100_000 {
		b.Fatalf("%v: %s, %d events", err, rep.Verdict, rep.Events)
	}
	ix, err := verifier.IndexLog(tl.log, tl.keys)
	if err != nil {
		b.Fatal(err)
	}
	in := report.Input{Report: rep, Index: ix, Causal: &tl.execution, Generated: time.Unix(0, 0)}
	var page bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		page.Reset()
		if err := report.Write(&page, in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(page.Len()), "bytes/page")
}
