package report_test

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/report"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// elements returns the elements of doc with tag name and, if class is not
// empty, that class.
func elements(t *testing.T, page, tag, class string) []*html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == tag && (class == "" || hasClass(n, class)) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

func byID(t *testing.T, page, tag, id string) *html.Node {
	t.Helper()
	for _, n := range elements(t, page, tag, "") {
		if attr(n, "id") == id {
			return n
		}
	}
	t.Fatalf("no <%s id=%q> in the page", tag, id)
	return nil
}

func TestReportOfAVerifiedLog(t *testing.T) {
	tl := newLog(t, 57)
	page, rep := tl.page(t, tl.log, tl.anchors(t), &tl.execution)
	if rep.Verdict != verifier.Verified {
		t.Fatalf("verdict %s: %v", rep.Verdict, rep.Findings)
	}
	if v := attr(byID(t, page, "section", "verdict"), "data-verdict"); v != "verified" {
		t.Errorf("data-verdict %q, want verified", v)
	}
	byID(t, page, "ul", "findings")
	if n := len(elements(t, page, "li", "finding")); n != len(rep.Findings) {
		t.Errorf("%d findings shown, the report has %d", n, len(rep.Findings))
	}
	const events, epochs = 60, 6
	sum := byID(t, page, "div", "summary")
	if attr(sum, "data-events") != strconv.Itoa(events) || attr(sum, "data-epochs") != strconv.Itoa(epochs) {
		t.Errorf("summary %v, want %d events and %d epochs", sum.Attr, events, epochs)
	}
	rows := elements(t, page, "tr", "event")
	if len(rows) != events {
		t.Fatalf("%d timeline rows, want %d", len(rows), events)
	}
	ix, err := verifier.IndexLog(tl.log, tl.keys)
	if err != nil {
		t.Fatal(err)
	}
	kinds, seqs := map[string]int{}, map[string]bool{}
	for _, r := range rows {
		kinds[attr(r, "data-kind")]++
		seqs[attr(r, "data-seq")] = true
		if attr(r, "data-agent") == "" {
			t.Errorf("row %s has no agent", attr(r, "data-seq"))
		}
	}
	if len(seqs) != events {
		t.Errorf("%d distinct seqs in %d rows", len(seqs), events)
	}
	for _, k := range []format.Kind{format.KindToolCall, format.KindApproval, format.KindDelegation, format.KindChainTx, format.KindPolicy, format.KindObservation} {
		if want := len(ix.Find(verifier.Query{Kind: k})); kinds[k.String()] != want {
			t.Errorf("%d %s rows, the log has %d", kinds[k.String()], k, want)
		}
	}
	if n := len(elements(t, page, "details", "")); n != events {
		t.Errorf("%d expandable events, want %d", n, events)
	}
	// Every payload was opened with the keys, every event has its proof.
	if n := len(elements(t, page, "pre", "payload")); n != events {
		t.Errorf("%d payloads shown, want %d", n, events)
	}
	if n := len(elements(t, page, "div", "proof")); n != events {
		t.Errorf("%d proofs shown, want %d", n, events)
	}
	for _, e := range elements(t, page, "tr", "epoch") {
		if attr(e, "data-anchor") != "anchored" {
			t.Errorf("epoch %s: %s, want anchored", attr(e, "data-epoch"), attr(e, "data-anchor"))
		}
	}
	if !strings.Contains(page, "tx 0x"+strings.Repeat("ab", 32)) {
		t.Error("the on-chain execution's transaction hash is not shown")
	}
	if !strings.Contains(page, "block 42, gas 38967") {
		t.Error("the on-chain execution's gas is not shown")
	}
}

// The page loads nothing: no external script, style, image or font.
func TestReportIsSelfContained(t *testing.T) {
	tl := newLog(t, 20)
	page, _ := tl.page(t, tl.log, tl.anchors(t), &tl.execution)
	for _, bad := range []string{`src="http`, `href="http`, `url(http`, `@import`, `src="//`, `href="//`, `<link`} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	if n := len(elements(t, page, "script", "")); n != 1 {
		t.Errorf("%d script elements, want the one inline script", n)
	}
	for _, s := range elements(t, page, "script", "") {
		if attr(s, "src") != "" {
			t.Errorf("script with src %q", attr(s, "src"))
		}
	}
}

// Agent-supplied strings are text: the probes appear escaped, never raw,
// and no element or handler comes from them.
func TestReportEscapesAgentStrings(t *testing.T) {
	tl := newLog(t, 20)
	page, _ := tl.page(t, tl.log, tl.anchors(t), &tl.probe)
	for _, p := range []string{probes[0], probes[1]} {
		if strings.Contains(page, p) {
			t.Errorf("the raw probe %q occurs in the page", p)
		}
		if esc := template.HTMLEscapeString(p); !strings.Contains(page, esc) {
			t.Errorf("the escaped probe %q is not in the page", esc)
		}
	}
	// </script> occurs once: the end of the page's own script.
	if n := strings.Count(page, probes[2]); n != 1 {
		t.Errorf("%q occurs %d times, want once (the page's own)", probes[2], n)
	}
	if !strings.Contains(page, template.HTMLEscapeString(probes[3])) || strings.Contains(page, `href="javascript`) {
		t.Error("the javascript: URL is not shown as text only")
	}
	if n := len(elements(t, page, "img", "")); n != 0 {
		t.Errorf("%d img elements: the probe became markup", n)
	}
	if n := len(elements(t, page, "script", "")); n != 1 {
		t.Errorf("%d script elements: the probe became markup", n)
	}
	for _, tag := range []string{"tr", "g", "div", "td", "pre", "span", "li", "option"} {
		for _, n := range elements(t, page, tag, "") {
			for _, a := range n.Attr {
				if strings.HasPrefix(a.Key, "on") {
					t.Errorf("<%s> has a handler attribute %s=%q", tag, a.Key, a.Val)
				}
			}
		}
	}
	// The probe's row carries the agent name as an attribute value, intact.
	for _, r := range elements(t, page, "tr", "event") {
		if attr(r, "data-seq") == fmt.Sprint(tl.probe) && attr(r, "data-agent") != probes[1] {
			t.Errorf("data-agent %q, want the group as recorded", attr(r, "data-agent"))
		}
	}
}

func TestReportOfATamperedLog(t *testing.T) {
	tl := newLog(t, 30)
	anchors := tl.anchors(t)
	img, err := tamper.Load(tl.log)
	if err != nil {
		t.Fatal(err)
	}
	if err := img.EditRecord(14); err != nil {
		t.Fatal(err)
	}
	page, rep := tl.page(t, img, anchors, nil)
	if rep.Verdict != verifier.Tampered {
		t.Fatalf("verdict %s", rep.Verdict)
	}
	if v := attr(byID(t, page, "section", "verdict"), "data-verdict"); v != "tampered" {
		t.Errorf("data-verdict %q, want tampered", v)
	}
	shown := map[string]bool{}
	for _, li := range elements(t, page, "li", "finding") {
		shown[attr(li, "data-kind")] = true
	}
	for _, f := range rep.Findings {
		if !shown[string(f.Kind)] {
			t.Errorf("finding %s not shown", f.Kind)
		}
	}
	if !shown[string(verifier.KindMerkleMismatch)] && !shown[string(verifier.KindAnchorMismatch)] {
		t.Errorf("findings shown %v: want the edited epoch's mismatch", shown)
	}
	var mism int
	for _, e := range elements(t, page, "tr", "epoch") {
		if attr(e, "data-anchor") == "mismatch" {
			mism++
			if attr(e, "data-epoch") != "1" {
				t.Errorf("epoch %s shown as mismatched; the edit is in epoch 1", attr(e, "data-epoch"))
			}
		}
	}
	if mism != 1 {
		t.Errorf("%d epochs shown as mismatched, want 1", mism)
	}
	if n := len(elements(t, page, "svg", "")); n != 0 {
		t.Errorf("%d svg elements without a causal event", n)
	}
}

func TestReportCausalGraph(t *testing.T) {
	tl := newLog(t, 40)
	page, _ := tl.page(t, tl.log, tl.anchors(t), &tl.execution)
	ix, err := verifier.IndexLog(tl.log, tl.keys)
	if err != nil {
		t.Fatal(err)
	}
	chain, links, err := ix.CausalChain(tl.execution)
	if err != nil {
		t.Fatal(err)
	}
	byID(t, page, "svg", "causal")
	nodes := elements(t, page, "g", "node")
	if len(nodes) != len(chain) || len(chain) < 4 {
		t.Fatalf("%d nodes, chain of %d events (want at least execution, probe, delegation, event 0)", len(nodes), len(chain))
	}
	for i, n := range nodes {
		if attr(n, "data-seq") != fmt.Sprint(chain[i].Seq) {
			t.Errorf("node %d: seq %s, want %d", i, attr(n, "data-seq"), chain[i].Seq)
		}
	}
	if n := len(elements(t, page, "path", "edge")); n != len(links) {
		t.Errorf("%d edges, want %d links", n, len(links))
	}
	if n := len(elements(t, page, "g", "target")); n != 1 {
		t.Errorf("%d target nodes, want 1", n)
	}
}

// A bundle's report shows its disclosed events with the bundle's proofs.
func TestReportOfABundle(t *testing.T) {
	tl := newLog(t, 30)
	b, err := verifier.Disclose(tl.log, []uint64{3, tl.probe, tl.execution}, verifier.DiscloseOptions{Keys: tl.keys, Payloads: true})
	if err != nil {
		t.Fatal(err)
	}
	br, err := verifier.VerifyBundle(context.Background(), b, tl.anchors(t), verifier.Options{Payloads: verifier.PayloadsOpen})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.Write(&buf, report.Input{Report: &br.Report, Bundle: b, Causal: &tl.execution}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if v := attr(byID(t, page, "section", "verdict"), "data-verdict"); v != "verified" {
		t.Errorf("data-verdict %q: %v", v, br.Findings)
	}
	if n := len(elements(t, page, "tr", "event")); n != 3 {
		t.Errorf("%d rows, want the 3 disclosed events", n)
	}
	if n := len(elements(t, page, "pre", "payload")); n != 3 {
		t.Errorf("%d payloads, want 3", n)
	}
	for _, ev := range b.Events {
		for _, p := range ev.Path {
			if !strings.Contains(page, p.String()) {
				t.Errorf("audit path node %s of the bundle is not shown", p)
			}
		}
	}
	// The execution's chain reaches events the bundle does not hold: they
	// are drawn as gaps, not nodes.
	if n, g := len(elements(t, page, "g", "node")), len(elements(t, page, "g", "gap")); n != 2 || g != 2 {
		t.Errorf("%d nodes and %d gaps, want 2 (probe, execution) and 2 (event 0, delegation)", n, g)
	}
}

func TestWriteRefusesMissingInput(t *testing.T) {
	var b bytes.Buffer
	if err := report.Write(&b, report.Input{}); err == nil || !strings.Contains(err.Error(), "verify") {
		t.Errorf("no report: %v", err)
	}
	if err := report.Write(&b, report.Input{Report: &verifier.Report{}}); err == nil || !strings.Contains(err.Error(), "Index") {
		t.Errorf("no events: %v", err)
	}
	if err := report.Write(&b, report.Input{Report: &verifier.Report{}, Bundle: &verifier.Bundle{}, Causal: new(uint64)}); err == nil || !strings.Contains(err.Error(), "causal") {
		t.Errorf("unknown causal event: %v", err)
	}
}
