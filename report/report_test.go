package report_test

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
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

// data is the page's embedded data, as its script reads it: the rows (here
// rebuilt from the data's columns), and the details (payloads by row,
// leaves by epoch).
type data struct {
	Events []row
	Epochs []struct {
		Epoch      uint64 `json:"n"`
		Count      uint64 `json:"c"`
		MerkleRoot string `json:"m"`
	} `json:"epochs"`
	Payloads []string `json:"payloads"`
	Leaves   []string `json:"leaves"`
	columns
}

// columns are the rows as the data holds them.
type columns struct {
	Seq        []int64          `json:"seq"` // packed as differences from the row before
	Epoch      []int            `json:"epoch"`
	KindID     []int            `json:"kind"`
	AgentID    []int            `json:"agent"`
	ToolID     []int            `json:"tool"`
	What       []string         `json:"-"` // from the blocks of summaries
	KindNames  []string         `json:"kinds"`
	AgentNames []string         `json:"agents"`
	ToolNames  []string         `json:"tools"`
	Tx         map[int]string   `json:"tx"`
	Proofs     map[int]*proofOf `json:"proofs"`
}

// row is one event of the page's data.
type row struct {
	Seq               uint64
	Epoch             int
	Kind, Agent, Tool string
	Summary, Tx       string
	Proof             *proofOf
}

// proofOf is a bundle's proof of an event in the page's data.
type proofOf struct {
	Digest string `json:"d"`
	Index  uint64 `json:"i"`
	Path   string `json:"p"`
}

// base64Data is what a packed data element holds: a JSON string of the
// base64 alphabet, nothing HTML or a script could interpret.
var base64Data = regexp.MustCompile(`^ *"[A-Za-z0-9+/=\\]*" *$`)

// dataOf decodes the page's data elements, script#rows-data,
// script.what-data (the rows' summaries, in blocks) and script.detail-data
// (in chunks), as the page does: base64, DEFLATE, JSON.
func dataOf(t *testing.T, page string) *data {
	t.Helper()
	var d data
	decode := func(parts []*html.Node, v any) {
		t.Helper()
		var packed strings.Builder
		for _, s := range parts {
			if attr(s, "type") != "application/json" || s.FirstChild == nil || !base64Data.MatchString(s.FirstChild.Data) {
				t.Fatalf("script %v: want application/json holding a base64 string", s.Attr)
			}
			var part string
			if err := json.Unmarshal([]byte(s.FirstChild.Data), &part); err != nil {
				t.Fatal(err)
			}
			packed.WriteString(part)
		}
		raw, err := base64.StdEncoding.DecodeString(packed.String())
		if err != nil {
			t.Fatal(err)
		}
		if err := json.NewDecoder(flate.NewReader(bytes.NewReader(raw))).Decode(v); err != nil {
			t.Fatalf("the page's data: %v", err)
		}
	}
	decode([]*html.Node{byID(t, page, "script", "rows-data")}, &d)
	decode(elements(t, page, "script", "detail-data"), &d)
	for _, block := range elements(t, page, "script", "what-data") {
		var what []string
		decode([]*html.Node{block}, &what)
		d.What = append(d.What, what...)
	}
	if len(d.What) != len(d.Seq) {
		t.Fatalf("%d summaries for %d rows", len(d.What), len(d.Seq))
	}
	c := d.columns
	for i := 1; i < len(c.Seq); i++ {
		c.Seq[i] += c.Seq[i-1]
	}
	for i, seq := range c.Seq {
		d.Events = append(d.Events, row{Seq: uint64(seq), Epoch: c.Epoch[i], Kind: c.KindNames[c.KindID[i]], Agent: c.AgentNames[c.AgentID[i]],
			Tool: c.ToolNames[c.ToolID[i]], Summary: c.What[i], Tx: c.Tx[i], Proof: c.Proofs[i]})
	}
	if len(d.Payloads) != len(d.Events) || len(d.Leaves) != len(d.Epochs) {
		t.Fatalf("%d payloads for %d rows, %d leaves for %d epochs", len(d.Payloads), len(d.Events), len(d.Leaves), len(d.Epochs))
	}
	return &d
}

// hexDigests splits hex-concatenated digests.
func hexDigests(t *testing.T, s string) []format.Digest {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b)%32 != 0 {
		t.Fatalf("digests %q: %v", s, err)
	}
	out := make([]format.Digest, len(b)/32)
	for i := range out {
		copy(out[i][:], b[32*i:])
	}
	return out
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
	d := dataOf(t, page)
	if len(d.Events) != events {
		t.Fatalf("%d timeline rows, want %d", len(d.Events), events)
	}
	ix, err := verifier.IndexLog(tl.log, tl.keys)
	if err != nil {
		t.Fatal(err)
	}
	kinds, seqs := map[string]int{}, map[uint64]bool{}
	for i, r := range d.Events {
		kinds[r.Kind]++
		seqs[r.Seq] = true
		if r.Agent == "" {
			t.Errorf("row %d has no agent", r.Seq)
		}
		// Every payload was opened with the keys.
		if d.Payloads[i] == "" {
			t.Errorf("row %d has no payload", r.Seq)
		}
		if r.Epoch < 0 || r.Epoch >= len(d.Epochs) {
			t.Errorf("row %d: epoch %d of %d", r.Seq, r.Epoch, len(d.Epochs))
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
	// Every epoch carries its leaves, which give its Merkle root: the page
	// computes each event's proof from them.
	if len(d.Epochs) != epochs {
		t.Errorf("%d epochs in the data, want %d", len(d.Epochs), epochs)
	}
	for i, e := range d.Epochs {
		leaves := hexDigests(t, d.Leaves[i])
		if uint64(len(leaves)) != e.Count || format.MerkleRoot(leaves).String() != e.MerkleRoot {
			t.Errorf("epoch %d: %d leaves of %d, root %s, want %s", e.Epoch, len(leaves), e.Count, format.MerkleRoot(leaves), e.MerkleRoot)
		}
	}
	for _, e := range elements(t, page, "tr", "epoch") {
		if attr(e, "data-anchor") != "anchored" {
			t.Errorf("epoch %s: %s, want anchored", attr(e, "data-epoch"), attr(e, "data-anchor"))
		}
	}
	exec := d.Events[slices.IndexFunc(d.Events, func(r row) bool { return r.Seq == tl.execution })]
	if exec.Tx != "0x"+strings.Repeat("ab", 32) {
		t.Errorf("the on-chain execution's transaction hash is %q", exec.Tx)
	}
	if !strings.Contains(exec.Summary, "block 42, gas 38967") {
		t.Errorf("the on-chain execution's gas is not in its summary %q", exec.Summary)
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
	scripts := elements(t, page, "script", "")
	if len(scripts) != 4 || attr(scripts[0], "id") != "rows-data" || attr(scripts[1], "class") != "what-data" || attr(scripts[2], "type") != "" || attr(scripts[3], "class") != "detail-data" {
		t.Errorf("%d script elements, want the rows, their summaries (one block), the one inline script and the details", len(scripts))
	}
	for _, s := range scripts {
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
	for _, p := range probes {
		if strings.Contains(page, p) && p != probes[2] {
			t.Errorf("the raw probe %q occurs in the page", p)
		}
	}
	// </script> occurs four times: the ends of the page's own elements.
	if n := strings.Count(page, probes[2]); n != 4 {
		t.Errorf("%q occurs %d times, want four (the page's own)", probes[2], n)
	}
	if strings.Contains(page, `href="javascript`) {
		t.Error("the javascript: URL became a link")
	}
	if n := len(elements(t, page, "img", "")); n != 0 {
		t.Errorf("%d img elements: the probe became markup", n)
	}
	if n := len(elements(t, page, "script", "")); n != 4 {
		t.Errorf("%d script elements: the probe became markup", n)
	}
	for _, tag := range []string{"g", "div", "td", "pre", "span", "li", "option"} {
		for _, n := range elements(t, page, tag, "") {
			for _, a := range n.Attr {
				if strings.HasPrefix(a.Key, "on") {
					t.Errorf("<%s> has a handler attribute %s=%q", tag, a.Key, a.Val)
				}
			}
		}
	}
	// The data gives back every agent string as recorded.
	d := dataOf(t, page)
	for i, r := range d.Events {
		var p format.Payload
		if err := json.Unmarshal([]byte(d.Payloads[i]), &p); err != nil {
			t.Fatal(err)
		}
		if r.Seq == tl.probe {
			if r.Agent != probes[1] || r.Tool != probes[0] || !strings.Contains(r.Summary, probes[3]) || p.Intent.Tool != probes[2] {
				t.Errorf("probe row: agent %q, tool %q, summary %q, payload %s: want the strings as recorded", r.Agent, r.Tool, r.Summary, d.Payloads[i])
			}
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
	d := dataOf(t, page)
	if len(d.Events) != 3 {
		t.Fatalf("%d rows, want the 3 disclosed events", len(d.Events))
	}
	paths := map[uint64]string{}
	for _, ev := range b.Events {
		e, err := format.DecodeEnvelope(ev.Record)
		if err != nil {
			t.Fatal(err)
		}
		var p strings.Builder
		for _, n := range ev.Path {
			p.WriteString(hex.EncodeToString(n[:]))
		}
		paths[e.Seq] = p.String()
	}
	for i, r := range d.Events {
		if d.Payloads[i] == "" {
			t.Errorf("event %d: no payload", r.Seq)
		}
		if r.Proof == nil || r.Proof.Path != paths[r.Seq] {
			t.Errorf("event %d: proof %+v, want the bundle's path %s", r.Seq, r.Proof, paths[r.Seq])
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
