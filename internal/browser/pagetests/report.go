package pagetests

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/internal/browser"
)

// ReportWant is what a forensic report page must show. The DOM contract:
// <section id="verdict" data-verdict="…">; <li class="finding"
// data-kind="…"> per finding; <div id="summary" data-events data-epochs>;
// <div id="timeline" data-rows>, data-rows the number of events that pass
// the filters, of which only those in view are in the document, each an
// element of class event with data-seq, data-kind and data-agent, inside
// the scrolling element #rows; window.afrShow(seq), which scrolls the
// timeline to the event, marks its row selected and shows it in
// <section id="detail" data-seq>, which gets data-loaded="1" once it holds
// the event's payload and, when it has an inclusion proof, a <div
// class="proof" data-verified="true|false">; a search
// input (type search or text) and one select[data-filter=NAME] per filter
// (at least kind and agent; also run, tool, status) whose option values are
// the rows' data-NAME values; with a
// causal event, <svg id="causal"> with <g class="node" data-seq> per event
// of the chain.
type ReportWant struct {
	Verdict      string   // verified, tampered or incomplete
	Events       int      // rows of the timeline, and the summary's data-events
	Epochs       int      // the summary's data-epochs
	FindingKinds []string // data-kind of every finding, in any order
	Causal       []int    // seqs of the causal graph's nodes, in any order; nil: the page has no graph
	Probe        bool     // the text of event ProbeSeq is XSSProbe and must be shown literally
	ProbeSeq     int
	Proofs       map[int]bool // events to open, and whether each one's proof must verify
	Search       string       // typed into the search input, it leaves SearchHits rows
	SearchHits   int
	Screenshot   string // name of the screenshot (without .png)
}

// CheckReportPage opens the report page html from a file, as a reader
// does, checks it against want and takes a full-page screenshot. It
// returns the time from opening the page to its verdict and first rows
// shown.
func CheckReportPage(t *testing.T, b *browser.Browser, html []byte, want ReportWant) time.Duration {
	t.Helper()
	start := time.Now()
	p := b.OpenHTML(t, "report.html", html)
	got := WaitReport(p, want.Events)
	elapsed := time.Since(start)
	if got != want.Verdict {
		t.Errorf("verdict %q, want %q", got, want.Verdict)
	}
	if got := p.Attr("#summary", "data-events"); got != strconv.Itoa(want.Events) {
		t.Errorf("summary data-events %q, want %d", got, want.Events)
	}
	if got := p.Attr("#summary", "data-epochs"); got != strconv.Itoa(want.Epochs) {
		t.Errorf("summary data-epochs %q, want %d", got, want.Epochs)
	}
	if n := p.Count("#timeline .event"); n < min(want.Events, minRows) || n > want.Events {
		t.Errorf("%d rows in the document, want at least %d (those in view) and at most %d", n, min(want.Events, minRows), want.Events)
	}
	sameKinds(t, "findings", kinds(p, "#findings li.finding"), want.FindingKinds)
	if want.Causal != nil {
		seqs := browser.Eval[[]int](p, `[...document.querySelectorAll("#causal g.node")].map(g => Number(g.dataset.seq))`)
		slices.Sort(seqs)
		w := slices.Clone(want.Causal)
		slices.Sort(w)
		if !slices.Equal(seqs, w) {
			t.Errorf("causal graph nodes %v, want %v", seqs, w)
		}
	}
	if want.Probe {
		Show(t, p, want.ProbeSeq)
	}
	checkProbe(t, p, "#timeline .event, #detail", want.Probe)
	for seq, ok := range want.Proofs {
		Show(t, p, seq)
		if got := p.Attr("#detail .proof", "data-verified"); got != strconv.FormatBool(ok) {
			t.Errorf("event %d: proof data-verified %q, want %v (%s)", seq, got, ok, p.Text("#detail"))
		}
	}
	if want.Screenshot != "" {
		p.Screenshot(want.Screenshot)
	}
	checkFilters(t, p, want)
	return elapsed
}

// minRows is the fewest rows a report page has in the document when it
// holds that many: those that fill its timeline's view.
const minRows = 10

// WaitReport waits until the report page p shows its verdict and its
// timeline holds rows events (data-rows), with its first rows in the
// document, and returns the verdict.
func WaitReport(p *browser.Page, rows int) string {
	v := p.WaitAttr("#verdict", "data-verdict")
	waitRows(p, rows)
	if rows > 0 {
		p.WaitVisible("#timeline .event")
	}
	return v
}

// Show opens event seq of the report page p (window.afrShow), waits until
// the detail pane shows it, and checks that the selected row is its.
func Show(t *testing.T, p *browser.Page, seq int) {
	t.Helper()
	s := strconv.Itoa(seq)
	browser.Eval[bool](p, `(window.afrShow(`+s+`), true)`)
	p.WaitJS(`document.querySelector('#detail[data-seq="`+s+`"][data-loaded="1"]') ? "yes" : ""`, "event "+s+" shown in #detail")
	if got := p.Attr("#timeline .event.selected", "data-seq"); got != strconv.Itoa(seq) {
		t.Errorf("after afrShow(%d), the selected row is %q", seq, got)
	}
}

// waitRows waits until the timeline's data-rows is n.
func waitRows(p *browser.Page, n int) {
	p.WaitJS(`(e => e && e.dataset.rows === "`+strconv.Itoa(n)+`" ? "yes" : "")(document.getElementById("timeline"))`,
		"#timeline[data-rows="+strconv.Itoa(n)+"]")
}

// checkFilters types want.Search into the search input, then tries every
// filter (select[data-filter=NAME]): its first non-empty option must leave
// some rows, every row shown having that value as its data-NAME, and
// clearing it all rows.
func checkFilters(t *testing.T, p *browser.Page, want ReportWant) {
	t.Helper()
	const search = `input[type=search], input[type=text]`
	if want.Search != "" {
		p.Type(search, want.Search)
		waitRows(p, want.SearchHits)
		browser.Eval[bool](p, `(e => { e.value = ""; e.dispatchEvent(new Event("input", {bubbles: true})); return true })(document.querySelector(`+quote(search)+`))`)
		waitRows(p, want.Events)
	}
	names := browser.Eval[[]string](p, `[...document.querySelectorAll("select[data-filter]")].map(s => s.dataset.filter)`)
	if len(names) < 2 {
		t.Errorf("filters %q: want at least kind and agent", names)
	}
	for _, name := range names {
		sel := `document.querySelector("select[data-filter=` + name + `]")`
		set := func(value string) {
			browser.Eval[bool](p, `(s => { s.value = `+quote(value)+`; s.dispatchEvent(new Event("change", {bubbles: true})); return true })(`+sel+`)`)
		}
		value := browser.Eval[string](p, `([...`+sel+`.options].find(o => o.value) || {value: ""}).value`)
		if value == "" {
			t.Errorf("filter %s has no option to filter by", name)
			continue
		}
		set(value)
		rows := browser.Eval[int](p, `Number(document.getElementById("timeline").dataset.rows)`)
		other := browser.Eval[int](p, `[...document.querySelectorAll("#timeline .event")].filter(r => r.getClientRects().length > 0 && r.dataset[`+quote(name)+`] !== `+quote(value)+`).length`)
		if rows == 0 || rows > want.Events || other != 0 {
			t.Errorf("filter %s, option %q: %d rows of %d, %d rows in the document with another %s", name, value, rows, want.Events, other, name)
		}
		set("")
		waitRows(p, want.Events)
	}
}
