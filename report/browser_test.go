package report_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/importer"
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
// drawn (the page marks "afr-rows"), of which decode-ms is decoding the
// rows' data (the marks "afr-script" to "afr-data"), and loaded-ms, to the
// whole page read (DOMContentLoaded). floor-ms is the same page without its
// script, read in the same run: what reading those bytes alone costs this
// browser on this machine now (docs/PERFORMANCE.md, Reports):
// go test -run '^$' -bench BenchmarkReportInABrowser -benchtime 3x ./report
func BenchmarkReportInABrowser(b *testing.B) {
	br := browser.Start(b)
	tl := newLogOf(b, 99_997, 100)
	page, _ := tl.page(b, tl.log, tl.anchors(b), &tl.execution)
	start, end := strings.Index(page, "<script>\n"), strings.Index(page, "})();\n</script>")
	if start < 0 || end < 0 {
		b.Fatal("the page's script is not where the benchmark looks for it")
	}
	floor := page[:start] + "<script>" + page[end+len("})();\n"):]
	var rows, decode, loaded, floorLoaded float64
	mark := func(p *browser.Page, name string) float64 {
		return browser.Eval[float64](p, `performance.getEntriesByName("`+name+`")[0].startTime`)
	}
	const domLoaded = `performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd`
	b.ResetTimer()
	for range b.N {
		p := br.OpenHTML(b, "report.html", []byte(page))
		if v := pagetests.WaitReport(p, 100_000); v != "verified" {
			b.Fatalf("verdict %q", v)
		}
		rows += mark(p, "afr-rows")
		decode += mark(p, "afr-data") - mark(p, "afr-script")
		loaded += browser.Eval[float64](p, domLoaded)
		b.StopTimer()
		f := br.OpenHTML(b, "floor.html", []byte(floor))
		f.WaitJS(`document.readyState === "complete" ? "yes" : ""`, "the page without its script read")
		floorLoaded += browser.Eval[float64](f, domLoaded)
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(float64(len(page)), "page-bytes")
	b.ReportMetric(rows/n, "rows-ms")
	b.ReportMetric(decode/n, "decode-ms")
	b.ReportMetric(loaded/n, "loaded-ms")
	b.ReportMetric(floorLoaded/n, "floor-ms")
}

// A tool call's intent and outcome make one row with its status and
// duration when "one row per call" is on; every row says whether it was
// imported or observed; an opened event shows its call's events.
func TestReportPairsCalls(t *testing.T) {
	b := browser.Start(t)
	ms := int64(1e6)
	evs := []format.Event{
		{Tool: "fetch", Kind: format.KindToolCall, Payload: format.Payload{Intent: &format.Intent{Tool: "fetch", Args: map[string]any{"url": "https://example.org"}}, Ext: map[string]any{"mcp.request_id": 7}}},
		{Tool: "fetch", Kind: format.KindToolCall, Payload: format.Payload{Context: &format.ContextProvenance{Parents: []uint64{0}},
			Execution: &format.Execution{Status: format.StatusOK, Start: 1_000 * ms, End: 1_250 * ms, Output: format.NewText([]byte(`{"rows":3}`))}}},
		{Tool: "cat", Kind: format.KindToolCall, Payload: format.Payload{Intent: &format.Intent{Tool: "cat"},
			Execution: &format.Execution{Status: format.StatusOK}, Ext: map[string]any{importer.ExtKey: map[string]any{"format": "swe-agent"}}}},
		{Tool: "only", Kind: format.KindToolCall, Payload: format.Payload{Intent: &format.Intent{Tool: "only"}}},
		{Tool: "read", Kind: format.KindObservation, Payload: format.Payload{Content: format.NewText([]byte("hello"))}},
	}
	p := b.OpenHTML(t, "report.html", timelinePage(t, evs))
	pagetests.WaitReport(p, 5)
	text := func(seq int) string {
		r := `#timeline .event[data-seq="` + strconv.Itoa(seq) + `"]`
		return p.Text(r+` .call`) + " | " + p.Text(r+` .what`)
	}
	if got := text(0); !strings.Contains(got, "ok, 250 ms") || !strings.Contains(got, "observed") {
		t.Errorf("the intent's row says %q, want its call's status and duration, observed", got)
	}
	if got := text(1); !strings.Contains(got, "call of 0") {
		t.Errorf("the outcome's row says %q, want it part of the call of event 0", got)
	}
	if got := text(2); !strings.Contains(got, "imported") || !strings.Contains(got, "ok |") {
		t.Errorf("the imported call's row says %q", got)
	}
	if got := text(3); !strings.Contains(got, "no outcome recorded") {
		t.Errorf("the lone intent's row says %q", got)
	}
	browser.Eval[bool](p, `(c => { c.checked = true; c.dispatchEvent(new Event("change")); return true })(document.getElementById("f-calls"))`)
	pagetests.WaitReport(p, 4) // the outcome's row folds into its intent's
	if n := p.Count(`#timeline .event[data-seq="1"]`); n != 0 {
		t.Errorf("with one row per call, the outcome still has a row")
	}
	pagetests.Show(t, p, 1)
	if got := browser.Eval[[]string](p, `[...document.querySelectorAll("#detail .callinfo button")].map(b => b.textContent)`); !slices.Equal(got, []string{"0", "1"}) {
		t.Errorf("the outcome's call lists events %q, want 0 and 1", got)
	}
	if in, out := p.Text("#detail pre.input"), p.Text("#detail pre.output"); !strings.Contains(in, `"url": "https://example.org"`) || !strings.Contains(out, `"rows": 3`) {
		t.Errorf("input pane %q, output pane %q: want the intent's arguments and the outcome's output, pretty", in, out)
	}
	pagetests.Show(t, p, 3)
	if got := p.Text("#detail .io"); !strings.Contains(got, "No outcome recorded") {
		t.Errorf("the lone intent's panes say %q", got)
	}
}
