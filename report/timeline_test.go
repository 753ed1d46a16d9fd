package report_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/browser"
	"github.com/agentflightrecorder/afr/internal/browser/pagetests"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/report"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// base is the time of the timeline tests' first event.
var base = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func at(s float64) int64 { return base.Add(time.Duration(s * float64(time.Second))).UnixNano() }

// timelineEvents are two agents' calls and events at known times (seconds
// after base), with parent links that make a tree:
//
//	seq 0  t=0   alice  intent fetch            call A: 0–4 s, outcome seq 2
//	seq 1  t=1   bob    intent grep             call B: 1–2 s, outcome seq 3
//	seq 2  t=4   alice  outcome of A            parent 0
//	seq 3  t=2   bob    outcome of B            parent 1
//	seq 4  t=6   bob    observation             parent 0
//	seq 5  t=8   alice  response                parent 4 (its tool a spreadsheet formula)
//	seq 6  t=10  alice  observation             no parent
func timelineEvents() []format.Event {
	ev := func(s float64, group, run, tool string, kind format.Kind, p format.Payload) format.Event {
		return format.Event{Tool: tool, Kind: kind, Group: group, Run: run, EventTime: at(s), Payload: p}
	}
	parent := func(seq uint64) *format.ContextProvenance { return &format.ContextProvenance{Parents: []uint64{seq}} }
	return []format.Event{
		ev(0, "alice", "r1", "fetch", format.KindToolCall, format.Payload{Intent: &format.Intent{Tool: "fetch", Args: map[string]any{"url": "https://example.org/a"}}}),
		ev(1, "bob", "r2", "grep", format.KindToolCall, format.Payload{Intent: &format.Intent{Tool: "grep", Args: map[string]any{"pattern": "needle"}}}),
		ev(4, "alice", "r1", "fetch", format.KindToolCall, format.Payload{Context: parent(0),
			Execution: &format.Execution{Status: format.StatusOK, Start: at(0), End: at(4), Output: format.NewText([]byte("=HYPERLINK(\"http://x\") " + strings.Repeat("padding ", 60) + "zebracorn"))}}),
		ev(2, "bob", "r2", "grep", format.KindToolCall, format.Payload{Context: parent(1),
			Execution: &format.Execution{Status: format.StatusFailed, Start: at(1), End: at(2), Error: "exit status 2"}}),
		ev(6, "bob", "r2", "read", format.KindObservation, format.Payload{Context: parent(0), Content: format.NewText([]byte("a page"))}),
		ev(8, "alice", "r1", "=SUM(1,1)", format.KindResponse, format.Payload{Context: parent(4), Content: format.NewText([]byte("done"))}),
		ev(10, "alice", "r3", "read", format.KindObservation, format.Payload{Content: format.NewText([]byte("later"))}),
	}
}

// timelinePage writes a log of evs and its report.
func timelinePage(t *testing.T, evs []format.Event) []byte {
	t.Helper()
	l := logtest.Write(t, recorder.Options{Recorder: "tl", EpochSize: 4, Sync: recorder.SyncNone}, evs)
	as, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verifier.VerifyLog(context.Background(), l, verifier.AnchorList(as), verifier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := verifier.IndexLog(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := report.Write(&page, report.Input{Report: rep, Index: ix}); err != nil {
		t.Fatal(err)
	}
	return page.Bytes()
}

// rect is an element's box in the viewport, after scrolling it into view.
type rect struct{ Left, Top, Width, Height float64 }

func boxOf(p *browser.Page, sel string) rect {
	return browser.Eval[rect](p, `(e => { e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect();
		return {Left: r.left, Top: r.top, Width: r.width, Height: r.height} })(document.querySelector(`+strconv.Quote(sel)+`))`)
}

// drawn is the seqs of the rows in the document, top to bottom.
func drawn(p *browser.Page) []int {
	return browser.Eval[[]int](p, `[...document.querySelectorAll("#timeline .event")].sort((a, b) => a.offsetTop - b.offsetTop).map(r => Number(r.dataset.seq))`)
}

func setSelect(p *browser.Page, id, value string) {
	browser.Eval[bool](p, `(s => { s.value = `+strconv.Quote(value)+`; s.dispatchEvent(new Event("change")); return true })(document.getElementById(`+strconv.Quote(id)+`))`)
}

// The lanes: one per agent (or per run), a call's bar as long as its
// duration, in the lanes and the waterfall alike; a drag brushes a time
// range the timeline then shows alone, a double click shows all again, the
// wheel zooms around the pointer, a click opens the event under it. The
// trace tree orders the rows by their parent links.
func TestReportTimeline(t *testing.T) {
	b := browser.Start(t)
	p := b.OpenHTML(t, "report.html", timelinePage(t, timelineEvents()))
	pagetests.WaitReport(p, 7)
	if got := drawn(p); !slices.Equal(got, []int{0, 1, 3, 2, 4, 5, 6}) {
		t.Errorf("rows %v, want the events in the order of their times", got)
	}
	lanes := func() []string {
		return browser.Eval[[]string](p, `[...document.querySelectorAll("#lane-labels .lane")].map(l => l.dataset.lane)`)
	}
	if got := lanes(); !slices.Equal(got, []string{"alice", "bob"}) || p.Attr("#lanes", "data-lanes") != "2" {
		t.Errorf("lanes %v (data-lanes %s), want alice and bob", got, p.Attr("#lanes", "data-lanes"))
	}
	setSelect(p, "f-lanes", "run")
	if got := lanes(); !slices.Equal(got, []string{"r1", "r2", "r3"}) {
		t.Errorf("lanes per run %v, want r1, r2, r3", got)
	}
	setSelect(p, "f-lanes", "agent")

	// The waterfall: call A (4 s) is four times as long as call B (1 s),
	// and starts a second before it.
	bar := func(seq int) rect { return boxOf(p, `#timeline .event[data-seq="`+strconv.Itoa(seq)+`"] .wf .bar`) }
	a, bb := bar(0), bar(1)
	if r := a.Width / bb.Width; math.Abs(r-4) > 0.2 {
		t.Errorf("waterfall bars %.1f and %.1f px wide: ratio %.2f, want 4 (4 s and 1 s)", a.Width, bb.Width, r)
	}
	if d := (bb.Left - a.Left) / bb.Width; math.Abs(d-1) > 0.2 {
		t.Errorf("call B's bar starts %.2f of its width after call A's, want 1 (a second)", d)
	}
	if got := p.Text(`#timeline .event[data-seq="1"] .call`); got != "failed, 1.00 s" {
		t.Errorf("call B's row says %q", got)
	}

	// A click in bob's lane at 6 s opens event 4.
	c := boxOf(p, "#lanes")
	x := func(s float64) float64 {
		v0, v1 := num(p, "#lanes", "v0"), num(p, "#lanes", "v1")
		return c.Left + (s*1000-v0)/(v1-v0)*c.Width
	}
	const axis, lane = 18, 16
	p.ClickAt(x(6), c.Top+axis+lane*1.5, 1)
	p.WaitJS(`document.querySelector('#detail[data-seq="4"]') ? "yes" : ""`, "event 4 opened by a click in its lane")

	// A drag from 1.5 s to 6.5 s shows the events of that range.
	c = boxOf(p, "#lanes")
	p.Drag(x(1.5), c.Top+axis+4, x(6.5), c.Top+axis+4)
	pagetests.WaitReport(p, 3)
	if got := drawn(p); !slices.Equal(got, []int{3, 2, 4}) {
		t.Errorf("after brushing 1.5–6.5 s, rows %v, want 3, 2, 4", got)
	}
	if from, to := num(p, "#timeline", "from"), num(p, "#timeline", "to"); math.Abs(from-1500) > 50 || math.Abs(to-6500) > 50 {
		t.Errorf("brushed range %.0f–%.0f ms, want 1500–6500", from, to)
	}
	c = boxOf(p, "#lanes")
	p.ClickAt(c.Left+c.Width/2, c.Top+axis+4, 2)
	pagetests.WaitReport(p, 7)
	if browser.Eval[bool](p, `"from" in document.getElementById("timeline").dataset`) {
		t.Errorf("a double click left the range %.0f–%.0f", num(p, "#timeline", "from"), num(p, "#timeline", "to"))
	}

	// The wheel zooms in around the pointer: the window shrinks to 0.8.
	c = boxOf(p, "#lanes")
	p.Wheel(c.Left+c.Width/2, c.Top+axis+4, -100)
	v0, v1 := num(p, "#lanes", "v0"), num(p, "#lanes", "v1")
	if span := v1 - v0; math.Abs(span-8000) > 2 || math.Abs((v0+v1)/2-5000) > 10 {
		t.Errorf("after zooming in at the middle, the window is %.0f–%.0f ms, want 1000–9000", v0, v1)
	}

	// The trace tree: depth first from the roots, each event under its
	// first parent; an only child stays at its parent's depth.
	setSelect(p, "f-view", "tree")
	if got := drawn(p); !slices.Equal(got, []int{0, 2, 4, 5, 1, 3, 6}) {
		t.Errorf("trace tree rows %v, want 0, 2, 4, 5, 1, 3, 6", got)
	}
	depths := browser.Eval[map[string]string](p, `Object.fromEntries([...document.querySelectorAll("#timeline .event")].map(r => [r.dataset.seq, r.dataset.depth]))`)
	if want := map[string]string{"0": "0", "2": "1", "4": "1", "5": "1", "1": "0", "3": "0", "6": "0"}; !maps(depths, want) {
		t.Errorf("trace tree depths %v, want %v", depths, want)
	}
	p.Screenshot("report-timeline")
}

// num is the number in the data attribute name of the element sel, as the
// page has it now.
func num(p *browser.Page, sel, name string) float64 {
	return browser.Eval[float64](p, `Number(document.querySelector(`+strconv.Quote(sel)+`).dataset[`+strconv.Quote(name)+`])`)
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Search finds a word that only a call's whole output holds (not its
// row), and the rows shown export as JSON Lines (with payloads) and as CSV
// (a formula-like cell quoted), from the page's buttons.
func TestReportSearchAndExport(t *testing.T) {
	b := browser.Start(t)
	p := b.OpenHTML(t, "report.html", timelinePage(t, timelineEvents()))
	pagetests.WaitReport(p, 7)
	if strings.Contains(p.Text("#timeline"), "zebracorn") {
		t.Fatal("the word searched for is in the rows: the test would not show the search reads the payloads")
	}
	p.Type("#f-text", "zebracorn")
	pagetests.WaitReport(p, 1)
	if got := drawn(p); !slices.Equal(got, []int{2}) {
		t.Errorf("search for a word of event 2's output: rows %v", got)
	}
	p.Type("#f-text", "\b\b\b\b\b\b\b\b\b")
	pagetests.WaitReport(p, 7)

	setSelect(p, "f-agent", "alice")
	pagetests.WaitReport(p, 4)
	name, data := p.Download("#export-jsonl")
	if name != "afr-report-rows.jsonl" {
		t.Errorf("JSON Lines file named %q", name)
	}
	var seqs []int
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var r struct {
			Seq        int             `json:"seq"`
			Agent      string          `json:"agent"`
			Status     *string         `json:"status"`
			DurationMs *int64          `json:"duration_ms"`
			Origin     string          `json:"origin"`
			Payload    json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("JSON Lines line %q: %v", line, err)
		}
		if r.Agent != "alice" || r.Origin != "observed" || len(r.Payload) < 10 {
			t.Errorf("exported row %s", line)
		}
		if r.Seq == 0 && (r.Status == nil || *r.Status != "ok" || r.DurationMs == nil || *r.DurationMs != 4000) {
			t.Errorf("call A exported as %s, want status ok and 4000 ms", line)
		}
		seqs = append(seqs, r.Seq)
	}
	if !slices.Equal(seqs, []int{0, 2, 5, 6}) {
		t.Errorf("JSON Lines rows %v, want alice's events 0, 2, 5, 6", seqs)
	}

	name, data = p.Download("#export-csv")
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || name != "afr-report-rows.csv" {
		t.Fatalf("CSV %q: %v\n%s", name, err, data)
	}
	if len(recs) != 5 || recs[0][0] != "seq" || recs[1][0] != "0" {
		t.Fatalf("CSV has %d records, want a header and 4 rows:\n%s", len(recs), data)
	}
	tool := slices.Index(recs[0], "tool")
	if got := recs[3][tool]; got != "'=SUM(1,1)" {
		t.Errorf("event 5's tool cell %q: want the formula its agent gave quoted ('=SUM(1,1)), so a spreadsheet shows it as text", got)
	}
	for _, r := range recs[1:] {
		for _, cell := range r {
			if strings.HasPrefix(cell, "=") {
				t.Errorf("CSV cell %q starts with '=': a spreadsheet would run it", cell)
			}
		}
	}
}

// An edit's row names its file and line counts, and its detail shows the
// unified diff; an on-chain call, decoded when it was recorded, shows its
// function and typed arguments, target, value, transaction, gas and
// effects.
func TestReportDiffAndChainCall(t *testing.T) {
	const erc20 = `[{"type":"function","name":"transfer","stateMutability":"nonpayable","inputs":[{"name":"to","type":"address"},{"name":"amount","type":"uint256"}],"outputs":[{"type":"bool"}]}]`
	reg := calldata.NewRegistry()
	if err := reg.AddJSON("Token", "test", []byte(erc20)); err != nil {
		t.Fatal(err)
	}
	tokenAddr, to := common.HexToAddress("0x00000000000000000000000000000000000070c0"), common.HexToAddress("0x000000000000000000000000000000000000b0b0")
	if err := reg.Bind(tokenAddr, "Token"); err != nil {
		t.Fatal(err)
	}
	parsed, err := abi.JSON(strings.NewReader(erc20))
	if err != nil {
		t.Fatal(err)
	}
	data, err := parsed.Pack("transfer", to, big.NewInt(1_000_000))
	if err != nil {
		t.Fatal(err)
	}
	intent := calldata.IntentOf(reg, 31337, common.Address{1}, &tokenAddr, big.NewInt(5), data).Record()
	slot := bytes.Repeat([]byte{0}, 31)
	evs := []format.Event{
		{Tool: "file_edit", Kind: format.KindToolCall, Payload: format.Payload{Intent: &format.Intent{Tool: "Edit", Args: map[string]any{
			"file_path": "/w/calc.py", "old_string": "def divide(a, b):\n    return a / b", "new_string": "def divide(a, b):\n    if b == 0:\n        raise ValueError(\"b is 0\")\n    return a / b"}}}},
		{Tool: "file_edit", Kind: format.KindToolCall, Payload: format.Payload{Context: &format.ContextProvenance{Parents: []uint64{0}},
			Execution: &format.Execution{Status: format.StatusOK, Output: format.NewText([]byte("The file /w/calc.py has been updated."))}}},
		{Tool: "pace", Kind: format.KindChainTx, Payload: format.Payload{Intent: &intent}},
		{Tool: "pace", Kind: format.KindChainTx, Payload: format.Payload{Context: &format.ContextProvenance{Parents: []uint64{2}},
			Execution: &format.Execution{Status: format.StatusOK, TxHash: bytes.Repeat([]byte{0xab}, 32), Block: 42},
			Effects: []format.Effect{
				{ChainState: &format.ChainState{ChainID: 31337, Address: tokenAddr.Bytes(), Slot: append(slot, 3), Before: []byte{0x0f, 0x42, 0x40}, After: []byte{0}}},
				{ChainLog: &format.ChainLog{ChainID: 31337, Address: tokenAddr.Bytes(), Topics: []format.Bytes{bytes.Repeat([]byte{0xdd}, 32)}, Data: make([]byte, 32)}},
			},
			Ext: map[string]any{format.ExtGasUsed: uint64(51_234)}}},
	}
	b := browser.Start(t)
	p := b.OpenHTML(t, "report.html", timelinePage(t, evs))
	pagetests.WaitReport(p, 4)
	if got := p.Text(`#timeline .event[data-seq="0"] .badge.edit`); got != "edit /w/calc.py +2 −0" {
		t.Errorf("the edit's row says %q", got)
	}
	pagetests.Show(t, p, 1)
	lines := browser.Eval[[][2]string](p, `[...document.querySelectorAll("#detail pre.diff span")].map(s => [s.className, s.textContent.replace(/\n$/, "")])`)
	want := [][2]string{
		{"file", "--- /w/calc.py (replaced text)"}, {"file", "+++ /w/calc.py (its replacement)"}, {"hunk", "@@ -1,2 +1,4 @@"},
		{"", " def divide(a, b):"}, {"add", "+    if b == 0:"}, {"add", `+        raise ValueError("b is 0")`}, {"", "     return a / b"},
	}
	if !slices.Equal(lines[:min(len(lines), len(want))], want) {
		t.Errorf("the outcome's call shows the diff\n%q\nwant\n%q", lines, want)
	}

	pagetests.Show(t, p, 3)
	chain := p.Text("#detail .chain")
	for _, w := range []string{
		"transfer(address to = 0x000000000000000000000000000000000000b0b0,\n  uint256 amount = 1000000)",
		"to 0x00000000000000000000000000000000000070c0 on chain 31337, value 5 wei, calldata 68 bytes, selector 0xa9059cbb",
		"tx 0x" + strings.Repeat("ab", 32) + " in block 42, status ok, gas used 51234",
		"storage 0x00000000000000000000000000000000000070c0 slot 0x" + strings.Repeat("00", 31) + "03: 0x0f4240 → 0x00",
		"log of 0x00000000000000000000000000000000000070c0 topic0 0x" + strings.Repeat("dd", 32) + " (1 topics), 32 bytes of data",
	} {
		if !strings.Contains(chain, w) {
			t.Errorf("the on-chain call's pane lacks %q:\n%s", w, chain)
		}
	}
	p.Screenshot("report-chain-call")
}

// A finding that names an event leads to it: its button opens the event,
// whose row and detail name the finding.
func TestReportFindingsLeadToRows(t *testing.T) {
	b := browser.Start(t)
	tl := newLog(t, 57)
	img, err := tamper.Load(tl.log)
	if err != nil {
		t.Fatal(err)
	}
	if err := img.EditRecord(14); err != nil {
		t.Fatal(err)
	}
	page, rep := tl.page(t, img, tl.anchors(t), nil)
	var f *verifier.Finding
	for i := range rep.Findings {
		if rep.Findings[i].Seq != nil && rep.Findings[i].Class == verifier.ClassTampered {
			f = &rep.Findings[i]
			break
		}
	}
	if f == nil {
		t.Fatalf("no tampered finding names an event: %+v", rep.Findings)
	}
	seq := strconv.FormatUint(*f.Seq, 10)
	p := b.OpenHTML(t, "report.html", []byte(page))
	pagetests.WaitReport(p, 60)
	p.Click(`#findings li.finding[data-seq="` + seq + `"] button.goto`)
	p.WaitJS(`document.querySelector('#detail[data-seq="`+seq+`"][data-loaded="1"]') ? "yes" : ""`, "event "+seq+" opened from its finding")
	if got := p.Text("#detail .finding-of"); !strings.Contains(got, string(f.Kind)) || !strings.Contains(got, f.Detail) {
		t.Errorf("the event's detail says %q, want its finding %s: %s", got, f.Kind, f.Detail)
	}
	if got := p.Text(`#timeline .event[data-seq="` + seq + `"] .badge.flag`); got != string(f.Kind) {
		t.Errorf("the event's row marks %q, want %s", got, f.Kind)
	}
}

// A bundle's report checks each disclosed event's proof with the bundle's
// path in the page; a report of a log of no events opens too.
func TestReportOfABundleInABrowser(t *testing.T) {
	tl := newLog(t, 30)
	bundle, err := verifier.Disclose(tl.log, []uint64{3, tl.probe, tl.execution}, verifier.DiscloseOptions{Keys: tl.keys, Payloads: true})
	if err != nil {
		t.Fatal(err)
	}
	br, err := verifier.VerifyBundle(context.Background(), bundle, tl.anchors(t), verifier.Options{Payloads: verifier.PayloadsOpen})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := report.Write(&page, report.Input{Report: &br.Report, Bundle: bundle}); err != nil {
		t.Fatal(err)
	}
	b := browser.Start(t)
	pagetests.CheckReportPage(t, b, page.Bytes(), pagetests.ReportWant{
		Verdict: "verified", Events: 3, Epochs: len(bundle.Headers),
		Proofs: map[int]bool{3: true, int(tl.probe): true, int(tl.execution): true},
	})

	empty := timelinePage(t, nil)
	p := b.OpenHTML(t, "empty.html", empty)
	if v := pagetests.WaitReport(p, 0); v == "" {
		t.Error("the report of an empty log shows no verdict")
	}
	if n := browser.Eval[int](p, `Number(document.getElementById("lanes").dataset.lanes)`); n != 0 {
		t.Errorf("the empty log's page draws %d lanes", n)
	}
}
