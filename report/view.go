package report

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
)

// view is what the template renders: plain strings and numbers, every one
// escaped by html/template where it is placed, and the timeline's data,
// packed.
type view struct {
	Title, Generated, Anchors, Subject string
	Script                             template.JS // the page's script
	Verdict                            string
	Headers                            int // epoch headers shown
	Rep                                *verifier.Report
	Findings                           []findingView
	Epochs                             []epochView
	Kinds, Agents, Runs, Tools         []string // the filters' options
	Statuses                           []string
	Causal                             *causalView
	Events                             int      // events on the timeline
	Rows                               string   // rowsData, packed
	What                               []packed // its summaries, packed in blocks
	Detail                             []string // detailData, packed, in chunks
	RowsSize, DetailSize               int      // their JSON's length, which the page's inflate allocates at once
}

// packed is a block of the page's data, packed, and its JSON's length.
type packed struct {
	Data string
	Size int
}

type findingView struct {
	Kind, Class, Where, Detail, Expected, Found string
	Seq                                         string // the first event it names, "" for none
}

type epochView struct {
	Label, Status   string
	FirstSeq, Count uint64
	Root, Sealed    string
}

// rowsData is what the page's script draws the timeline from: the events
// in time order, without their payloads, as columns (one array per field,
// each names as an index into a table of the distinct names), and the
// epochs; its summaries (What) are packed apart, in blocks. detailData is
// what it shows an opened event from: the payloads and diffs, by row, and
// each epoch's leaves, in the order of Epochs. The page holds each one
// packed (see pack) in <script type="application/json"> elements: the rows
// and the first block of summaries first, so the timeline is drawn while
// the browser is still reading the rest; the script places every string it
// decodes with textContent, never as markup.
type rowsData struct {
	Seq    []int64  `json:"seq"`    // packed as the difference from the row before (delta)
	Epoch  []int    `json:"epoch"`  // index in Epochs; -1 when not in a sealed epoch
	T0     int64    `json:"t0"`     // Unix milliseconds of the first event
	Time   []int64  `json:"time"`   // milliseconds after T0: the event's time (when)
	Kind   []int    `json:"kind"`   // index in Kinds
	Agent  []int    `json:"agent"`  // index in Agents
	Run    []int    `json:"run"`    // index in Runs ("" for an event of no run)
	Tool   []int    `json:"tool"`   // index in Tools
	Parent []int    `json:"parent"` // row of the event's first causal parent; -1 for none in the log (packed: delta)
	Status []int    `json:"status"` // index in Statuses: the row's call's, else its outcome's; -1 for none
	What   []string `json:"-"`      // the summaries: packed apart, in blocks of WhatBlock rows (view.What)
	// WhatBlock is the rows of each block of summaries.
	WhatBlock int      `json:"whatBlock"`
	Kinds     []string `json:"kinds"`
	Agents    []string `json:"agents"`
	Runs      []string `json:"runs"`
	Tools     []string `json:"tools"`
	// Sparse columns, by row.
	Tx     map[int]string     `json:"tx"`
	Flags  map[int][]int      `json:"flags"`  // indices in FindingKinds of the tampered findings that name the event
	Proofs map[int]*proofData `json:"proofs"` // a bundle's proofs; a log's come from its epoch's leaves
	// Imported marks the rows of imported events (ext "import"); the others
	// were observed by the recorder.
	Imported map[int]bool   `json:"imported"`
	Edits    map[int]string `json:"edits"` // a file edit's files and line counts (its diff is in detailData)

	// Calls, as columns: each row's call, and each call's status (index in
	// Statuses), start (milliseconds after T0), duration and output excerpt
	// (callData). A call's first event (its intent) is the one of lowest seq.
	Call       []int    `json:"call"` // -1 for an event of no call (packed: delta)
	CallStatus []int    `json:"callStatus"`
	CallAt     []int64  `json:"callAt"` // (packed: delta)
	CallMs     []int64  `json:"callMs"`
	CallOut    []string `json:"callOut"`
	Statuses   []string `json:"statuses"`

	FindingKinds []string    `json:"findingKinds"` // each finding's kind, in the order of the page's list
	Epochs       []epochData `json:"epochs"`
	Missing      string      `json:"missing"` // why a payload that is not shown was not opened
	Causal       *uint64     `json:"causal,omitempty"`
}

type detailData struct {
	Payloads []string       `json:"payloads"` // each payload's JSON; "" when not opened
	Leaves   []string       `json:"leaves"`   // each epoch's leaves (epochData)
	Diffs    map[int]string `json:"diffs"`    // a file edit's unified diff, by row
	Recorded map[int]int64  `json:"recorded"` // when the recorder wrote an event whose time is the source's (milliseconds after T0)
}

// delta replaces the columns that mostly grow by small steps from row to
// row (seq, the call, the call's start, the parent) with the differences
// from the row before (the parent: from its own row; 0 for none), which
// compress to almost nothing; the page sums them back (undelta).
func (r *rowsData) delta() {
	for i := len(r.Seq) - 1; i > 0; i-- {
		r.Seq[i] -= r.Seq[i-1]
		r.Call[i] -= r.Call[i-1]
	}
	for i := len(r.CallAt) - 1; i > 0; i-- {
		r.CallAt[i] -= r.CallAt[i-1]
	}
	for i, p := range r.Parent {
		if p >= 0 {
			r.Parent[i] = i - p
		} else {
			r.Parent[i] = 0
		}
	}
}

// names gives each distinct name a small number, in order of first use.
type names struct {
	list []string
	ids  map[string]int
}

func (n *names) id(s string) int {
	if i, ok := n.ids[s]; ok {
		return i
	}
	if n.ids == nil {
		n.ids = map[string]int{}
	}
	n.ids[s] = len(n.list)
	n.list = append(n.list, s)
	return n.ids[s]
}

const timeLayout = "2006-01-02 15:04:05.000"

func build(in Input) (*view, error) {
	rep, ix := in.Report, in.Index
	v := &view{Title: in.Title, Anchors: in.Anchors, Subject: "log", Verdict: rep.Verdict.String(), Rep: rep, Script: script}
	if v.Title == "" {
		v.Title = "AFR forensic report"
	}
	if v.Anchors == "" {
		v.Anchors = "none given: nothing ties the evidence to an external commitment"
	}
	rows := rowsData{Missing: "not opened: no key was given, the epoch's key was erased, or the payload is missing"}
	if in.Bundle != nil {
		v.Subject = "disclosure bundle"
		rows.Missing = "not opened: the payload or its key was not disclosed"
	}
	gen := in.Generated
	if gen.IsZero() {
		gen = time.Now()
	}
	v.Generated = gen.UTC().Format(time.RFC3339)
	for _, f := range rep.Findings {
		fv := findingView{Kind: string(f.Kind), Class: f.Class.String(), Where: where(f), Detail: f.Detail, Expected: f.Expected, Found: f.Found}
		if f.Seq != nil {
			fv.Seq = strconv.FormatUint(*f.Seq, 10)
		}
		v.Findings = append(v.Findings, fv)
	}
	epochs, status := epochsOf(in)
	var detail detailData
	rows.Epochs, detail.Leaves = epochsData(in, status)
	position := map[uint64]int{}
	for i, e := range rows.Epochs {
		position[e.Epoch] = i
	}
	var proofs map[uint64]*proofData
	if in.Bundle != nil {
		proofs = bundleProofs(in.Bundle, ix.Headers())
	}
	all := ix.Find(verifier.Query{})
	calls, member := callsOf(all)
	sort.SliceStable(all, func(i, j int) bool { return when(&all[i].Envelope) < when(&all[j].Envelope) })
	if len(all) > 0 {
		rows.T0 = when(&all[0].Envelope) / 1e6
	}
	// Every column is a list, also of a log of no events or no calls.
	n := len(all)
	rows.Seq, rows.Epoch, rows.Time, rows.What = make([]int64, 0, n), make([]int, 0, n), make([]int64, 0, n), make([]string, 0, n)
	rows.Kind, rows.Agent, rows.Run, rows.Tool, rows.Parent, rows.Status, rows.Call = make([]int, 0, n), make([]int, 0, n), make([]int, 0, n), make([]int, 0, n), make([]int, 0, n), make([]int, 0, n), make([]int, 0, n)
	rows.CallStatus, rows.CallAt, rows.CallMs, rows.CallOut = make([]int, 0, len(calls)), make([]int64, 0, len(calls)), make([]int64, 0, len(calls)), make([]string, 0, len(calls))
	var statuses names
	for _, c := range calls {
		rows.CallStatus = append(rows.CallStatus, statuses.id(c.Status))
		rows.CallAt = append(rows.CallAt, c.Start/1e6-rows.T0)
		rows.CallMs, rows.CallOut = append(rows.CallMs, c.Duration), append(rows.CallOut, c.Output)
	}
	row := make(map[uint64]int, len(all))
	for i, ev := range all {
		row[ev.Seq] = i
	}
	for _, f := range rep.Findings {
		rows.FindingKinds = append(rows.FindingKinds, string(f.Kind))
	}
	var kinds, agents, runs, tools names
	rows.Tx, rows.Flags, rows.Proofs, rows.Imported, rows.Edits = map[int]string{}, map[int][]int{}, map[int]*proofData{}, map[int]bool{}, map[int]string{}
	detail.Payloads, detail.Diffs, detail.Recorded = make([]string, 0, len(all)), map[int]string{}, map[int]int64{}
	for i, ev := range all {
		e := &ev.Envelope
		epoch := -1
		if p, ok := position[ev.Epoch]; ok && status(ev.Epoch) != unsealed {
			epoch = p
		}
		what, tx := summarise(ev.Payload)
		if d, sum := diffOf(e.Tool, ev.Payload); d != "" {
			detail.Diffs[i], rows.Edits[i] = d, sum
		}
		rows.Seq, rows.Epoch = append(rows.Seq, int64(ev.Seq)), append(rows.Epoch, epoch)
		rows.Time = append(rows.Time, when(e)/1e6-rows.T0)
		if when(e) != e.Time {
			detail.Recorded[i] = e.Time/1e6 - rows.T0
		}
		rows.Kind = append(rows.Kind, kinds.id(e.Kind.String()))
		rows.Agent = append(rows.Agent, agents.id(agentOf(e)))
		rows.Run = append(rows.Run, runs.id(e.Run))
		rows.Tool = append(rows.Tool, tools.id(e.Tool))
		rows.Parent = append(rows.Parent, parentRow(ev, row))
		rows.What = append(rows.What, what)
		if tx != "" {
			rows.Tx[i] = tx
		}
		if f := flagsOf(rep.Findings, ev.Seq); f != nil {
			rows.Flags[i] = f
		}
		if p := proofs[ev.Seq]; p != nil {
			rows.Proofs[i] = p
		}
		if ev.Payload != nil && imported(ev.Payload) {
			rows.Imported[i] = true
		}
		call, ok := member[ev.Seq]
		if !ok {
			call = -1
		}
		rows.Call = append(rows.Call, call)
		st := -1
		switch {
		case call >= 0:
			st = rows.CallStatus[call]
		case ev.Payload != nil && ev.Payload.Execution != nil:
			st = statuses.id(ev.Payload.Execution.Status.String())
		}
		rows.Status = append(rows.Status, st)
		payload := ""
		if ev.Payload != nil {
			payload = compactJSON(ev.Payload)
		}
		detail.Payloads = append(detail.Payloads, payload)
	}
	rows.Kinds, rows.Agents, rows.Runs, rows.Tools, rows.Statuses = nonNil(kinds.list), nonNil(agents.list), nonNil(runs.list), nonNil(tools.list), nonNil(statuses.list)
	v.Epochs, v.Headers, v.Events = epochs, len(ix.Headers()), len(all)
	v.Kinds, v.Agents, v.Runs, v.Tools, v.Statuses = sorted(kinds.list), sorted(agents.list), sorted(nonEmpty(runs.list)), sorted(nonEmpty(tools.list)), sorted(statuses.list)
	if in.Causal != nil {
		c, err := causal(ix, *in.Causal)
		if err != nil {
			return nil, err
		}
		v.Causal, rows.Causal = c, in.Causal
	}
	var err error
	rows.WhatBlock = whatBlock
	rows.delta()
	if v.Rows, v.RowsSize, err = pack(rows); err != nil {
		return nil, err
	}
	for i := 0; i < len(rows.What); i += whatBlock {
		var b packed
		if b.Data, b.Size, err = pack(rows.What[i:min(i+whatBlock, len(rows.What))]); err != nil {
			return nil, err
		}
		v.What = append(v.What, b)
	}
	details, size, err := pack(detail)
	if err != nil {
		return nil, err
	}
	v.Detail, v.DetailSize = chunks(details, chunkSize), size
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

// when is the time an event happened: the time its source gave
// (event_time: an imported event's, say), else the recorder's.
func when(e *format.Envelope) int64 {
	if e.EventTime != 0 {
		return e.EventTime
	}
	return e.Time
}

// parentRow is the row of an event's first causal parent that is in the
// log, or -1.
func parentRow(ev *verifier.Event, row map[uint64]int) int {
	if ev.Payload == nil || ev.Payload.Context == nil {
		return -1
	}
	for _, p := range ev.Payload.Context.Parents {
		if i, ok := row[p]; ok {
			return i
		}
	}
	return -1
}

// agentOf names the agent an event belongs to: its concurrency group (each
// agent of a session records under its own), else the recorder. (Its run,
// when it has one, is a column of its own.)
func agentOf(e *format.Envelope) string {
	if e.Group != "" {
		return e.Group
	}
	return e.Recorder
}

// flagsOf returns the indices of the tampered findings whose events include
// seq (an epoch a finding names is marked in the epoch table: epochsOf).
func flagsOf(findings []verifier.Finding, seq uint64) []int {
	var out []int
	for i, f := range findings {
		if f.Class == verifier.ClassTampered && f.Covers(seq, nil) {
			out = append(out, i)
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
	return truncate(strings.Join(parts, "; "), whatMax), tx
}

// whatMax bounds a row's summary: more than a row shows, and a fraction of
// the rows' weight in the page (the detail pane shows the whole payload,
// and the search reads it).
const whatMax = 160

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// pack encodes v as the page embeds its data: JSON, compressed with raw
// DEFLATE (a timeline's JSON is mostly field names, times, repeated texts
// and hex digests: the rows compress about tenfold, the details fourfold),
// then base64 — an alphabet with nothing for HTML to interpret. The page's
// script inflates it synchronously (its own small inflate: the browser's
// DecompressionStream is asynchronous, and its turns come only after the
// parser has read the whole page, which would delay the first rows). It
// returns the packed text and the JSON's length, which the page gives its
// inflate to allocate the output once.
func pack(v any) (string, int, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", 0, fmt.Errorf("report: encoding the page's data: %w", err)
	}
	raw := buf.Bytes()
	var b strings.Builder
	b64 := base64.NewEncoder(base64.StdEncoding, &b)
	z, err := flate.NewWriter(b64, flate.DefaultCompression)
	if err != nil {
		return "", 0, err
	}
	if _, err := z.Write(raw); err != nil {
		return "", 0, err
	}
	if err := z.Close(); err != nil {
		return "", 0, err
	}
	if err := b64.Close(); err != nil {
		return "", 0, err
	}
	return b.String(), len(raw), nil
}

// whatBlock is the rows of each block of the rows' summaries: the page
// decodes a block when it first draws one of its rows (or searches them),
// so that opening it decodes the summaries of the first rows only — of a
// large log, the summaries are most of the rows' data.
const whatBlock = 1000

// chunkSize is the size of each element the details are split into: the
// browser's parser gives the page's script its turn between elements, not
// within one, so the timeline is drawn while the details are still being
// read. A multiple of 4, so each chunk is whole base64 quanta.
const chunkSize = 64 << 10

// chunks splits s into pieces of n bytes (the last one shorter).
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// compactJSON encodes v as JSON without HTML escaping: the page's data
// escapes it where it is embedded, so the reader sees the agent's text as it
// was.
func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("(not shown: %v)", err)
	}
	return strings.TrimSpace(b.String())
}

// nonNil is list, or an empty list for none (the page's data holds lists).
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// nonEmpty returns list without "".
func nonEmpty(list []string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return s == "" })
}

// sorted returns a sorted copy of list.
func sorted(list []string) []string {
	out := slices.Clone(list)
	slices.Sort(out)
	return out
}
