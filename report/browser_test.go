package report_test

import (
	"testing"

	"github.com/agentflightrecorder/afr/internal/browser"
	"github.com/agentflightrecorder/afr/internal/browser/pagetests"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// The report in a real browser (headless Chromium): the verdict, every
// event row and finding, the causal graph, filters that filter, the XSS
// probes inert, for an honest log and a tampered copy; screenshots in the
// test's artifact directory (docs/img with AFR_SCREENSHOTS=1).
func TestReportInABrowser(t *testing.T) {
	b := browser.Start(t)
	tl := newLog(t, 57)
	ix, err := verifier.IndexLog(tl.log, tl.keys)
	if err != nil {
		t.Fatal(err)
	}
	chain, _, err := ix.CausalChain(tl.execution)
	if err != nil {
		t.Fatal(err)
	}
	var causal []int
	for _, ev := range chain {
		causal = append(causal, int(ev.Seq))
	}
	page, _ := tl.page(t, tl.log, tl.anchors(t), &tl.execution)
	d := pagetests.CheckReportPage(t, b, []byte(page), pagetests.ReportWant{
		Verdict: "verified", Events: 60, Epochs: 6, Causal: causal, Probe: true, ProbeSeq: int(tl.delegation),
		Proofs: map[int]bool{0: true, 33: true, int(tl.execution): true},
		Search: "treasury", SearchHits: len(ix.Find(verifier.Query{Group: "treasury"})), Screenshot: "report",
	})
	t.Logf("time to verdict, 60 events: %v", d)

	img, err := tamper.Load(tl.log)
	if err != nil {
		t.Fatal(err)
	}
	if err := img.EditRecord(14); err != nil {
		t.Fatal(err)
	}
	page, rep := tl.page(t, img, tl.anchors(t), nil)
	var kinds []string
	for _, f := range rep.Findings {
		kinds = append(kinds, string(f.Kind))
	}
	// The edited record's epoch no longer has the header's Merkle root: its
	// proofs fail in the page, the other epochs' verify.
	pagetests.CheckReportPage(t, b, []byte(page), pagetests.ReportWant{
		Verdict: "tampered", Events: 60, Epochs: 6, FindingKinds: kinds, Probe: true, ProbeSeq: int(tl.delegation),
		Proofs: map[int]bool{14: false, 12: false, 25: true}, Screenshot: "report-tampered",
	})
}

// Time to verdict of a 1,000-event report in the browser: a new tab opens
// the saved page until the verdict and all 1,000 rows are there
// (docs/PERFORMANCE.md, Reports):
// go test -run '^$' -bench BenchmarkReportInABrowser -benchtime 5x ./report
func BenchmarkReportInABrowser(b *testing.B) {
	br := browser.Start(b)
	tl := newLog(b, 997)
	page, _ := tl.page(b, tl.log, tl.anchors(b), &tl.execution)
	b.ResetTimer()
	for range b.N {
		p := br.OpenHTML(b, "report.html", []byte(page))
		if v := p.WaitAttr("#verdict", "data-verdict"); v != "verified" {
			b.Fatalf("verdict %q", v)
		}
		p.WaitCount("tr.event", 1000, false)
	}
	b.ReportMetric(float64(len(page)), "page-bytes")
}
