package report_test

import (
	"fmt"
	"slices"
	"strconv"
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

// The timeline is a virtual list: of a 500-event log only the rows in
// view are in the document, and scrolling brings in the rows of the new
// position (in the page's time order) and drops the old ones.
func TestReportScrolls(t *testing.T) {
	b := browser.Start(t)
	tl := newLog(t, 497)
	page, _ := tl.page(t, tl.log, tl.anchors(t), nil)
	order := dataOf(t, page).Events
	p := b.OpenHTML(t, "report.html", []byte(page))
	pagetests.WaitReport(p, len(order))
	rowsAt := func(i int) []int {
		t.Helper()
		// Scrolls the timeline to row i and waits until that row is drawn.
		browser.Eval[bool](p, `(document.getElementById("rows").scrollTop = `+strconv.Itoa(i)+` * 26, true)`)
		p.WaitJS(`document.querySelector('#timeline .event[data-seq="`+strconv.FormatUint(order[i].Seq, 10)+`"]') ? "yes" : ""`,
			fmt.Sprintf("row %d (event %d) drawn", i, order[i].Seq))
		return browser.Eval[[]int](p, `[...document.querySelectorAll("#timeline .event")].map(r => Number(r.dataset.seq))`)
	}
	for _, i := range []int{0, 250, len(order) - 1} {
		seqs := rowsAt(i)
		if len(seqs) == 0 || len(seqs) > 100 {
			t.Fatalf("at row %d: %d rows in the document, want only those in view", i, len(seqs))
		}
		// The rows drawn are consecutive rows of the time order, around i.
		first := slices.IndexFunc(order, func(r row) bool { return r.Seq == uint64(seqs[0]) })
		for j, s := range seqs {
			if first+j >= len(order) || order[first+j].Seq != uint64(s) {
				t.Fatalf("at row %d: rows drawn %v are not rows %d… of the timeline", i, seqs, first)
			}
		}
		if i < first || i >= first+len(seqs) {
			t.Errorf("at row %d: rows %d–%d drawn", i, first, first+len(seqs)-1)
		}
	}
}

// Time to verdict and first rows of a 100,000-event report (epochs of
// 100, the recorder's default) in the browser: a new tab opens the saved
// page until the verdict and the timeline's first rows are there
// (ns/op, from the test's side, which also waits for the browser to finish
// reading the page before its checks get their turn). The page's own
// clock gives rows-ms, from the start of navigation to the first rows
// drawn (the page marks "afr-rows"), and loaded-ms, to the whole page read
// (DOMContentLoaded). docs/PERFORMANCE.md, Reports:
// go test -run '^$' -bench BenchmarkReportInABrowser -benchtime 3x ./report
func BenchmarkReportInABrowser(b *testing.B) {
	br := browser.Start(b)
	tl := newLogOf(b, 99_997, 100)
	page, _ := tl.page(b, tl.log, tl.anchors(b), &tl.execution)
	var rows, loaded float64
	b.ResetTimer()
	for range b.N {
		p := br.OpenHTML(b, "report.html", []byte(page))
		if v := pagetests.WaitReport(p, 100_000); v != "verified" {
			b.Fatalf("verdict %q", v)
		}
		rows += browser.Eval[float64](p, `performance.getEntriesByName("afr-rows")[0].startTime`)
		loaded += browser.Eval[float64](p, `performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd`)
	}
	b.ReportMetric(float64(len(page)), "page-bytes")
	b.ReportMetric(rows/float64(b.N), "rows-ms")
	b.ReportMetric(loaded/float64(b.N), "loaded-ms")
}
