package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
)

// view is what the template renders: plain strings and numbers, every one
// escaped by html/template where it is placed.
type view struct {
	Title, Generated, Anchors, Subject string
	Verdict                            string
	Headers                            int // epoch headers shown
	Rep                                *verifier.Report
	Findings                           []findingView
	Epochs                             []epochView
	Events                             []eventView
	Kinds, Agents                      []string
	Causal                             *causalView
}

type findingView struct {
	Kind, Class, Where, Detail, Expected, Found string
}

type epochView struct {
	Label, Status   string
	FirstSeq, Count uint64
	Root, Sealed    string
}

type eventView struct {
	Seq, Epoch              uint64
	TimeNs                  int64
	Time, Kind, Agent, Tool string
	Summary, Tx             string
	Anchor                  string // the anchor status of its epoch
	Payload, PayloadMissing string
	Proof                   *proofView
	Flags                   []string // tampered findings that name this event
	Causal                  bool     // the event whose graph is drawn
}

type proofView struct {
	Digest, MerkleRoot, Root string
	Epoch, Index, Size       uint64
	Path                     []string
}

const timeLayout = "2006-01-02 15:04:05.000"

func build(in Input) (*view, error) {
	rep, ix := in.Report, in.Index
	v := &view{Title: in.Title, Anchors: in.Anchors, Subject: "log", Verdict: rep.Verdict.String(), Rep: rep}
	if v.Title == "" {
		v.Title = "AFR forensic report"
	}
	if v.Anchors == "" {
		v.Anchors = "none given: nothing ties the evidence to an external commitment"
	}
	if in.Bundle != nil {
		v.Subject = "disclosure bundle"
	}
	gen := in.Generated
	if gen.IsZero() {
		gen = time.Now()
	}
	v.Generated = gen.UTC().Format(time.RFC3339)
	for _, f := range rep.Findings {
		v.Findings = append(v.Findings, findingView{Kind: string(f.Kind), Class: f.Class.String(), Where: where(f), Detail: f.Detail, Expected: f.Expected, Found: f.Found})
	}
	epochs, status := epochsOf(in)
	proofs, err := proofsOf(in)
	if err != nil {
		return nil, err
	}
	kinds, agents := map[string]bool{}, map[string]bool{}
	for _, ev := range ix.Find(verifier.Query{}) {
		e := &ev.Envelope
		row := eventView{Seq: ev.Seq, Epoch: ev.Epoch, TimeNs: e.Time, Time: time.Unix(0, e.Time).UTC().Format(timeLayout),
			Kind: e.Kind.String(), Agent: agentOf(e), Tool: e.Tool, Anchor: status(ev.Epoch), Proof: proofs[ev.Seq],
			Flags: flagsOf(rep.Findings, ev.Seq), Causal: in.Causal != nil && *in.Causal == ev.Seq}
		row.Summary, row.Tx = summarise(ev.Payload)
		if ev.Payload != nil {
			row.Payload = prettyJSON(ev.Payload)
		} else if in.Bundle != nil {
			row.PayloadMissing = "not opened: the payload or its key was not disclosed"
		} else {
			row.PayloadMissing = "not opened: no key was given, the epoch's key was erased, or the payload is missing"
		}
		kinds[row.Kind], agents[row.Agent] = true, true
		v.Events = append(v.Events, row)
	}
	sort.SliceStable(v.Events, func(i, j int) bool { return v.Events[i].TimeNs < v.Events[j].TimeNs })
	v.Epochs, v.Headers = epochs, len(ix.Headers())
	v.Kinds, v.Agents = sortedKeys(kinds), sortedKeys(agents)
	if in.Causal != nil {
		c, err := causal(ix, *in.Causal)
		if err != nil {
			return nil, err
		}
		v.Causal = c
	}
	return v, nil
}

func where(f verifier.Finding) string {
	var parts []string
	if f.Epoch != nil {
		parts = append(parts, fmt.Sprintf("epoch %d", *f.Epoch))
	}
	if f.Seq != nil {
		if f.Count > 1 {
			parts = append(parts, fmt.Sprintf("events %d–%d", *f.Seq, *f.Seq+f.Count-1))
		} else {
			parts = append(parts, fmt.Sprintf("event %d", *f.Seq))
		}
	}
	return strings.Join(parts, ", ")
}

// textOf shows a text map: the text, or its size when only its digest is
// kept.
func textOf(t *format.Text) string {
	if t.Text == "" && len(t.Digest) > 0 {
		return fmt.Sprintf("(%d bytes, kept as digest %s)", t.Size, t.Digest)
	}
	return strconv.Quote(t.Text)
}

// agentOf names the agent or run an event belongs to: its run tag, else
// its concurrency group (each agent of a session records under its own),
// else the recorder.
func agentOf(e *format.Envelope) string {
	if e.Run != "" {
		return e.Run
	}
	if e.Group != "" {
		return e.Group
	}
	return e.Recorder
}

// flagsOf returns the kinds of the tampered findings whose events include
// seq (an epoch a finding names is marked in the epoch table: epochsOf).
func flagsOf(findings []verifier.Finding, seq uint64) []string {
	var out []string
	for _, f := range findings {
		if f.Class == verifier.ClassTampered && f.Covers(seq, nil) {
			out = append(out, string(f.Kind))
		}
	}
	return out
}

// summarise returns one line saying what an event's payload holds, and its
// transaction hash for an on-chain execution.
func summarise(p *format.Payload) (string, string) {
	if p == nil {
		return "", ""
	}
	var parts []string
	var tx string
	if it := p.Intent; it != nil {
		s := it.Tool
		if len(it.Target) > 0 {
			s += " → " + it.Target.String()
		}
		if len(it.Args) > 0 {
			s += " " + compactJSON(it.Args)
		}
		parts = append(parts, s)
	}
	if pol := p.Policy; pol != nil {
		s := fmt.Sprintf("policy %s: %s", pol.PolicyID, pol.Decision)
		if pol.Rule != "" {
			s += " (" + pol.Rule + ")"
		}
		parts = append(parts, s)
	}
	if a := p.Approval; a != nil {
		parts = append(parts, fmt.Sprintf("approval by %s: %s", a.Approver, a.Decision))
	}
	if d := p.Delegation; d != nil {
		parts = append(parts, fmt.Sprintf("delegation %s → %s %v", d.Delegator, d.Delegate, d.Scope))
	}
	if x := p.Execution; x != nil {
		s := "status " + x.Status.String()
		if len(x.TxHash) > 0 {
			tx = x.TxHash.String()
			s += fmt.Sprintf(", block %d", x.Block)
		}
		if gas, ok := p.Ext[format.ExtGasUsed]; ok {
			s += fmt.Sprintf(", gas %v", gas)
		}
		if x.Error != "" {
			s += ": " + x.Error
		}
		if o := x.Output; o != nil {
			s += ", output " + textOf(o)
		}
		parts = append(parts, s)
	}
	if c := p.Content; c != nil {
		parts = append(parts, textOf(c))
	}
	if c := p.Code; c != nil && c.ModelID != "" {
		parts = append(parts, "model "+c.ModelID)
	}
	if len(p.Ext) > 0 {
		parts = append(parts, compactJSON(p.Ext))
	}
	return truncate(strings.Join(parts, "; "), 300), tx
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// jsonText encodes v as JSON without HTML escaping: the template escapes
// it for its place in the page, so the reader sees the agent's text as it
// was.
func jsonText(v any, indent string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("(not shown: %v)", err)
	}
	return strings.TrimSpace(b.String())
}

func compactJSON(v any) string { return jsonText(v, "") }
func prettyJSON(v any) string  { return jsonText(v, "  ") }

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
