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
// data-kind="…"> per finding; <tr class="event" data-seq data-kind
// data-agent> per event of <table id="timeline">; <div id="summary"
// data-events data-epochs>; a search input (type search or text) and one
// select per filter (kind, agent) whose option values are the rows'
// data-kind or data-agent values; with a causal event, <svg id="causal">
// with <g class="node" data-seq> per event of the chain.
type ReportWant struct {
	Verdict      string   // verified, tampered or incomplete
	Events       int      // rows of the timeline, and the summary's data-events
	Epochs       int      // the summary's data-epochs
	FindingKinds []string // data-kind of every finding, in any order
	Causal       []int    // seqs of the causal graph's nodes, in any order; nil: the page has no graph
	Probe        bool     // an event's text is XSSProbe and must be shown literally
	Search       string   // typed into the search input, it leaves SearchHits rows shown
	SearchHits   int
	Screenshot   string // name of the screenshot (without .png)
}

// CheckReportPage opens the report page html from a file, as a reader
// does, checks it against want and takes a full-page screenshot. It
// returns the time from opening the page to its verdict shown.
func CheckReportPage(t *testing.T, b *browser.Browser, html []byte, want ReportWant) time.Duration {
	t.Helper()
	start := time.Now()
	p := b.OpenHTML(t, "report.html", html)
	got := p.WaitAttr("#verdict", "data-verdict")
	elapsed := time.Since(start)
	if got != want.Verdict {
		t.Errorf("verdict %q, want %q", got, want.Verdict)
	}
	p.WaitCount("tr.event", want.Events, false)
	if got := p.Attr("#summary", "data-events"); got != strconv.Itoa(want.Events) {
		t.Errorf("summary data-events %q, want %d", got, want.Events)
	}
	if got := p.Attr("#summary", "data-epochs"); got != strconv.Itoa(want.Epochs) {
		t.Errorf("summary data-epochs %q, want %d", got, want.Epochs)
	}
	sameKinds(t, "findings", kinds(p, "#findings li.finding"), want.FindingKinds)
	if got := p.Count("#timeline tr.event details"); got != want.Events {
		t.Errorf("%d expandable events, want one per event (%d)", got, want.Events)
	}
	if want.Causal != nil {
		seqs := browser.Eval[[]int](p, `[...document.querySelectorAll("#causal g.node")].map(g => Number(g.dataset.seq))`)
		slices.Sort(seqs)
		w := slices.Clone(want.Causal)
		slices.Sort(w)
		if !slices.Equal(seqs, w) {
			t.Errorf("causal graph nodes %v, want %v", seqs, w)
		}
	}
	checkProbe(t, p, "#timeline tr.event", want.Probe)
	if want.Screenshot != "" {
		p.Screenshot(want.Screenshot)
	}
	checkFilters(t, p, want)
	return elapsed
}

// checkFilters types want.Search into the search input, then tries every
// select: its first non-empty option must leave shown exactly the rows
// whose data-kind or data-agent is that value, and clearing it all rows.
func checkFilters(t *testing.T, p *browser.Page, want ReportWant) {
	t.Helper()
	const search = `input[type=search], input[type=text]`
	if want.Search != "" {
		p.Type(search, want.Search)
		p.WaitCount("tr.event", want.SearchHits, true)
		browser.Eval[bool](p, `(e => { e.value = ""; e.dispatchEvent(new Event("input", {bubbles: true})); return true })(document.querySelector(`+quote(search)+`))`)
		p.WaitCount("tr.event", want.Events, true)
	}
	for i := range p.Count("select") {
		set := func(value string) int {
			// Selects the value as a user does, and returns the number of
			// rows with that kind or agent.
			return browser.Eval[int](p, `(s => {
  s.value = `+quote(value)+`; s.dispatchEvent(new Event("change", {bubbles: true}));
  return [...document.querySelectorAll("tr.event")].filter(r => r.dataset.kind === s.value || r.dataset.agent === s.value).length;
})(document.querySelectorAll("select")[`+strconv.Itoa(i)+`])`)
		}
		value := browser.Eval[string](p, `([...document.querySelectorAll("select")[`+strconv.Itoa(i)+`].options].find(o => o.value) || {value: ""}).value`)
		if value == "" {
			t.Errorf("select %d has no option to filter by", i)
			continue
		}
		matching := set(value)
		if matching == 0 {
			t.Errorf("select %d: option %q matches no row's data-kind or data-agent", i, value)
		}
		p.WaitCount("tr.event", matching, true)
		set("")
		p.WaitCount("tr.event", want.Events, true)
	}
}
