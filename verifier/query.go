package verifier

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentflightrecorder/afr/format"
)

// Event is one decoded event for forensic queries.
type Event struct {
	Seq      uint64          `json:"seq"`
	Epoch    uint64          `json:"epoch"`
	Envelope format.Envelope `json:"envelope"`
	Payload  *format.Payload `json:"payload,omitempty"` // nil when not available (no key, not disclosed)
	fields   map[string]any  // payload as JSON values (numbers as json.Number), for field matches
	digest   format.Digest   // record digest: the event id PDRs bind
}

// Index holds a log's (or a bundle's) events for structured queries. Only
// events whose records decode are indexed; verify first to know whether the
// log is intact.
type Index struct {
	events   []*Event
	bySeq    map[uint64]*Event
	byDigest map[format.Digest]*Event
	byID     map[runID][]*Event    // events by run and id (docs/SPEC.md, "Links by id")
	headers  []*format.EpochHeader // decodable headers, in log order
}

// IndexLog decodes every record of a log and, where it can, its payload:
// with keys, payloads are opened and checked against their commitments;
// plaintext frames (mode 0) whose digest matches the record are read as
// they are when no key opens them. Damage in a stream (a
// *segment.CorruptError or *segment.TornTailError) does not stop it: what
// is readable is indexed, and VerifyLog says what is not.
func IndexLog(src Source, keys Keys) (*Index, error) {
	ix := &Index{bySeq: map[uint64]*Event{}, byDigest: map[format.Digest]*Event{}}
	streamErr := func(err error) error {
		if isStreamEnd(err) {
			return nil
		}
		return err
	}
	if err := src.Epochs(func(_ uint64, raw []byte) error {
		h, err := format.DecodeEpochHeader(raw)
		if err == nil {
			ix.headers = append(ix.headers, h)
		}
		return nil
	}); streamErr(err) != nil {
		return nil, err
	}
	if err := src.Records(func(seq uint64, raw []byte) error {
		e, err := format.DecodeEnvelope(raw)
		if err != nil || e.Seq != seq {
			return nil
		}
		ev := &Event{Seq: seq, Epoch: epochOf(ix.headers, seq), Envelope: *e, digest: format.RecordDigest(raw)}
		ix.add(ev)
		return nil
	}); streamErr(err) != nil {
		return nil, err
	}
	err := src.Payloads(func(seq uint64, frame []byte) error {
		ev := ix.bySeq[seq]
		if ev == nil || format.PayloadFrameDigest(frame) != ev.Envelope.Payload {
			return nil
		}
		var pt []byte
		if keys != nil {
			if k, err := keys.EventKey(int(ev.Envelope.Version), ev.Epoch, seq); err == nil {
				pt, _ = format.OpenPayload(&k, ev.Envelope.Session, seq, frame)
			}
		}
		if pt == nil {
			pt, _ = format.PlainText(frame)
		}
		if pt != nil {
			ev.setPayload(pt)
		}
		return nil
	})
	return ix, streamErr(err)
}

// runID is an event id within its run.
type runID struct{ run, id string }

// epochOf returns the epoch of event seq given the log's headers in order:
// events past the last header belong to the next epoch.
func epochOf(headers []*format.EpochHeader, seq uint64) uint64 {
	return uint64(sort.Search(len(headers), func(i int) bool { return headers[i].FirstSeq+headers[i].Count > seq }))
}

func (ix *Index) add(ev *Event) {
	ix.events = append(ix.events, ev)
	ix.bySeq[ev.Seq] = ev
	ix.byDigest[ev.digest] = ev
	if e := &ev.Envelope; e.ID != "" {
		if ix.byID == nil {
			ix.byID = map[runID][]*Event{}
		}
		k := runID{e.Run, e.ID}
		ix.byID[k] = append(ix.byID[k], ev)
	}
}

// IndexBundle indexes the events of a bundle; payloads are those that open
// with their disclosed keys.
func IndexBundle(b *Bundle) *Index {
	ix := &Index{bySeq: map[uint64]*Event{}, byDigest: map[format.Digest]*Event{}}
	for _, raw := range b.Headers {
		if h, err := format.DecodeEpochHeader(raw); err == nil {
			ix.headers = append(ix.headers, h)
		}
	}
	for _, d := range b.Events {
		e, err := format.DecodeEnvelope(d.Record)
		if err != nil {
			continue
		}
		ev := &Event{Seq: e.Seq, Envelope: *e, digest: format.RecordDigest(d.Record)}
		for _, h := range ix.headers {
			if e.Seq >= h.FirstSeq && e.Seq < h.FirstSeq+h.Count {
				ev.Epoch = h.Epoch
			}
		}
		if len(d.Key) == format.EventKeySize && format.PayloadFrameDigest(d.Payload) == e.Payload {
			var k format.EventKey
			copy(k[:], d.Key)
			if pt, err := format.OpenPayload(&k, e.Session, e.Seq, d.Payload); err == nil {
				ev.setPayload(pt)
			}
		}
		ix.add(ev)
	}
	sort.Slice(ix.events, func(i, j int) bool { return ix.events[i].Seq < ix.events[j].Seq })
	return ix
}

func (ev *Event) setPayload(pt []byte) {
	p, err := format.DecodePayload(pt)
	if err != nil || p.CheckVersion(ev.Envelope.Version) != nil {
		return
	}
	ev.Payload = p
	b, err := json.Marshal(p)
	if err == nil {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber() // numbers keep their digits, for exact = and numeric <, >
		d.Decode(&ev.fields)
	}
}

// Digest returns the event's record digest: its event id, the leaf of its
// epoch's Merkle tree.
func (ev *Event) Digest() format.Digest { return ev.digest }

// ByDigest returns the event whose record digest is d: the event id a PDR
// binds (docs/SPEC.md, "On-chain completeness").
func (ix *Index) ByDigest(d format.Digest) (*Event, bool) {
	ev, ok := ix.byDigest[d]
	return ev, ok
}

// Headers returns the decodable epoch headers, in log order.
func (ix *Index) Headers() []*format.EpochHeader { return ix.headers }

// Len returns the number of indexed events.
func (ix *Index) Len() int { return len(ix.events) }

// Event returns the event with sequence number seq.
func (ix *Index) Event(seq uint64) (*Event, bool) {
	ev, ok := ix.bySeq[seq]
	return ev, ok
}

// Op compares a payload field with a value.
type Op uint8

// Field comparisons. OpEq compares the field's text exactly; OpNe is
// numeric when both sides are numbers and textual otherwise; OpLt … OpGe
// need numbers on both sides (a field that is not a number does not match).
const (
	OpEq       Op = iota // =
	OpContains           // ~ (substring)
	OpNe                 // !=
	OpLt                 // <
	OpLe                 // <=
	OpGt                 // >
	OpGe                 // >=
)

// ops lists each operator's spelling, longest first where one is a prefix
// of another.
var ops = []struct {
	s  string
	op Op
}{{"!=", OpNe}, {"<=", OpLe}, {">=", OpGe}, {"=", OpEq}, {"~", OpContains}, {"<", OpLt}, {">", OpGt}}

func (o Op) String() string {
	for _, x := range ops {
		if x.op == o {
			return x.s
		}
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// FieldMatch matches a payload field, named by its JSON path (for example
// "intent.args.cmd" or "effects.0.file_write.path"), against a value. A
// path part * stands for every element of a list (or value of a map):
// "effects.*.file_write.path" matches when any effect's path does. A field
// the event does not have matches no condition, != included.
type FieldMatch struct {
	Path  string
	Op    Op
	Value string
}

func (f FieldMatch) String() string { return f.Path + f.Op.String() + f.Value }

// ParseFieldMatch parses "path OP value" with OP one of = (exact text), ~
// (substring), != (differs), and <, <=, >, >= (numbers). The path is
// checked against the payload's fields (format.CheckPayloadPath): an
// unknown field is an error naming it and the fields known there, not a
// condition that silently matches nothing.
func ParseFieldMatch(s string) (FieldMatch, error) {
	i := strings.IndexAny(s, "=~!<>")
	if i <= 0 {
		return FieldMatch{}, fmt.Errorf("condition %q: want PATH=VALUE, PATH~TEXT, PATH!=VALUE or PATH<NUMBER (also <=, >, >=)", s)
	}
	f := FieldMatch{Path: s[:i]}
	found := false
	for _, x := range ops {
		if !found && strings.HasPrefix(s[i:], x.s) {
			f.Op, f.Value, found = x.op, s[i+len(x.s):], true
		}
	}
	if !found { // "!" not followed by "="
		return FieldMatch{}, fmt.Errorf("condition %q: %q is not an operator (want =, ~, !=, <, <=, >, >=)", s, s[i:i+1])
	}
	if err := format.CheckPayloadPath(f.Path); err != nil {
		return FieldMatch{}, fmt.Errorf("condition %q: %w", s, err)
	}
	if f.Op >= OpLt {
		if _, ok := number(f.Value); !ok {
			return FieldMatch{}, fmt.Errorf("condition %q: %s compares numbers, and %q is not one", s, f.Op, f.Value)
		}
	}
	return f, nil
}

// jsonNumber is a JSON number (exponents of at most four digits: payload
// numbers are at most float64's 1e308).
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]{1,4})?$`)

// number reads a JSON number exactly.
func number(s string) (*big.Rat, bool) {
	if !jsonNumber.MatchString(s) {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// holds reports whether a field value satisfies f.
func (f *FieldMatch) holds(v any) bool {
	text := fmt.Sprint(v)
	switch f.Op {
	case OpEq:
		return text == f.Value
	case OpContains:
		return strings.Contains(text, f.Value)
	}
	n, isNum := v.(json.Number)
	var a, b *big.Rat
	if isNum {
		a, _ = number(string(n))
		b, _ = number(f.Value)
	}
	if a == nil || b == nil {
		return f.Op == OpNe && text != f.Value
	}
	c := a.Cmp(b)
	switch f.Op {
	case OpNe:
		return c != 0
	case OpLt:
		return c < 0
	case OpLe:
		return c <= 0
	case OpGt:
		return c > 0
	}
	return c >= 0
}

// matches reports whether any value at f's path in ev satisfies f.
func (f *FieldMatch) matches(ev *Event) bool {
	for _, v := range lookup(ev.fields, strings.Split(f.Path, ".")) {
		if f.holds(v) {
			return true
		}
	}
	return false
}

// SeqRange is an inclusive range of sequence numbers.
type SeqRange struct{ From, To uint64 }

// ParseSeqRange parses "N", "A..B" (both included), "A.." (from A on) or
// "..B" (up to B).
func ParseSeqRange(s string) (SeqRange, error) {
	a, b, isRange := strings.Cut(s, "..")
	if !isRange {
		b = a
	}
	r := SeqRange{To: math.MaxUint64}
	var err error
	if a != "" {
		if r.From, err = strconv.ParseUint(a, 10, 64); err != nil {
			return r, fmt.Errorf("sequence range %q: %q is not a sequence number (want N, A..B, A.. or ..B)", s, a)
		}
	}
	if b != "" {
		if r.To, err = strconv.ParseUint(b, 10, 64); err != nil {
			return r, fmt.Errorf("sequence range %q: %q is not a sequence number (want N, A..B, A.. or ..B)", s, b)
		}
	}
	if a == "" && b == "" || r.From > r.To {
		return r, fmt.Errorf("sequence range %q is empty (want N, A..B with A ≤ B, A.. or ..B)", s)
	}
	return r, nil
}

// Query selects events; zero fields match everything. All given conditions
// must hold, and at least one of Any when it is given.
type Query struct {
	Tool  string      // envelope tool name
	Kind  format.Kind // envelope kind
	Group string      // concurrency group
	Seq   *SeqRange   // sequence numbers in the range
	Run   string      // envelope run tag
	Since time.Time   // time ≥ Since
	Until time.Time   // time < Until
	// ByEventTime makes Since and Until apply to the caller's event_time
	// instead of the recorder's time; events without one do not match.
	ByEventTime bool
	Approver    string          // payload approval.approver
	Decision    format.Decision // payload policy.decision
	Fields      []FieldMatch    // every one holds
	Any         []FieldMatch    // at least one holds (when given)
}

// Find returns the matching events in sequence order.
func (ix *Index) Find(q Query) []*Event {
	var out []*Event
	for _, ev := range ix.events {
		if q.Match(ev) {
			out = append(out, ev)
		}
	}
	return out
}

// Match reports whether ev satisfies every condition of q.
func (q *Query) Match(ev *Event) bool {
	e := &ev.Envelope
	p := ev.Payload
	t := e.Time
	if q.ByEventTime {
		t = e.EventTime
	}
	timed := !q.Since.IsZero() || !q.Until.IsZero()
	switch {
	case q.Tool != "" && e.Tool != q.Tool,
		q.Kind != 0 && e.Kind != q.Kind,
		q.Group != "" && e.Group != q.Group,
		q.Run != "" && e.Run != q.Run,
		q.Seq != nil && (ev.Seq < q.Seq.From || ev.Seq > q.Seq.To),
		timed && q.ByEventTime && e.EventTime == 0,
		!q.Since.IsZero() && time.Unix(0, t).Before(q.Since), // not UnixNano: out of range past 2262
		!q.Until.IsZero() && !time.Unix(0, t).Before(q.Until):
		return false
	case q.Approver != "" && (p == nil || p.Approval == nil || p.Approval.Approver != q.Approver),
		q.Decision != 0 && (p == nil || p.Policy == nil || p.Policy.Decision != q.Decision):
		return false
	}
	for i := range q.Fields {
		if !q.Fields[i].matches(ev) {
			return false
		}
	}
	for i := range q.Any {
		if q.Any[i].matches(ev) {
			return true
		}
	}
	return len(q.Any) == 0
}

// lookup returns the values at a path: one, none (the field is absent) or
// several (a * part). A map key that itself holds dots (ext's
// "chain.gas_used") is found when no shorter key is.
func lookup(cur any, path []string) []any {
	if len(path) == 0 {
		return []any{cur}
	}
	part, rest := path[0], path[1:]
	switch c := cur.(type) {
	case map[string]any:
		if part == "*" {
			var out []any
			for _, k := range slices.Sorted(maps.Keys(c)) {
				out = append(out, lookup(c[k], rest)...)
			}
			return out
		}
		for n := 1; n <= len(path); n++ {
			if v, ok := c[strings.Join(path[:n], ".")]; ok {
				return lookup(v, path[n:])
			}
		}
	case []any:
		if part == "*" {
			var out []any
			for _, v := range c {
				out = append(out, lookup(v, rest)...)
			}
			return out
		}
		if i, err := strconv.Atoi(part); err == nil && i >= 0 && i < len(c) {
			return lookup(c[i], rest)
		}
	}
	return nil
}

// Hit is an event of an answer: a match, or context around one.
type Hit struct {
	*Event
	Context bool `json:"context,omitempty"` // shown for context (--before/--after), not a match
}

// Around returns matches (in sequence order) with up to before events
// preceding and after events following each, as grep -B/-A does: every
// event once, in sequence order, context marked. Neighbours are the
// index's events: in a bundle, the disclosed ones.
func (ix *Index) Around(matches []*Event, before, after int) []Hit {
	show := map[int]bool{}
	match := map[int]bool{}
	for _, ev := range matches {
		i, ok := slices.BinarySearchFunc(ix.events, ev.Seq, func(e *Event, s uint64) int { return cmp.Compare(e.Seq, s) })
		if !ok {
			continue
		}
		match[i] = true
		for j := max(0, i-before); j <= min(len(ix.events)-1, i+after); j++ {
			show[j] = true
		}
	}
	out := make([]Hit, 0, len(show))
	for _, i := range slices.Sorted(maps.Keys(show)) {
		out = append(out, Hit{ix.events[i], !match[i]})
	}
	return out
}

// Link is one causal edge: From caused (or delegated to) To.
type Link struct {
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
	// Via is "context" (context.parents), "context_id" (context.parent_ids,
	// ID set) or "delegation".
	Via string `json:"via"`
	ID  string `json:"id,omitempty"` // the parent id, for "context_id"
	// Unresolved marks a parent id that names no event of To's run in the
	// index (From is then 0): a gap in the evidence, not a finding
	// (docs/SPEC.md, "Links by id").
	Unresolved bool `json:"unresolved,omitempty"`
}

// ErrUnknownEvent is returned for a sequence number the index does not hold.
var ErrUnknownEvent = errors.New("verifier: event not in the log or bundle")

// CausalChain follows context-provenance parents and delegation parents
// from event seq back to its origins, and returns every event reached
// (seq included) in sequence order with the links followed. Links to events
// the index does not hold (not disclosed) are returned too, so a gap in the
// evidence is visible.
func (ix *Index) CausalChain(seq uint64) ([]*Event, []Link, error) {
	start, ok := ix.bySeq[seq]
	if !ok {
		return nil, nil, fmt.Errorf("%w: %d", ErrUnknownEvent, seq)
	}
	seen := map[uint64]bool{seq: true}
	queue := []*Event{start}
	var events []*Event
	var links []Link
	for len(queue) > 0 {
		ev := queue[0]
		queue = queue[1:]
		events = append(events, ev)
		for _, l := range ix.parents(ev) {
			links = append(links, l)
			if l.Unresolved || seen[l.From] {
				continue
			}
			seen[l.From] = true
			if p, ok := ix.bySeq[l.From]; ok {
				queue = append(queue, p)
			}
		}
	}
	sort.Slice(events, func(i, j int) bool { return events[i].Seq < events[j].Seq })
	sort.Slice(links, func(i, j int) bool {
		if links[i].To != links[j].To {
			return links[i].To < links[j].To
		}
		if links[i].From != links[j].From {
			return links[i].From < links[j].From
		}
		return links[i].ID < links[j].ID
	})
	return events, links, nil
}

// parents returns the causal links into ev. By sequence number only
// earlier events can be parents: a link to a later event is a recording
// error and is ignored. By id, every event of ev's run with that id but ev
// itself is a parent, earlier or later (a span is exported after its
// children); an id that names none is an unresolved link.
func (ix *Index) parents(ev *Event) []Link {
	p := ev.Payload
	if p == nil {
		return nil
	}
	var out []Link
	if p.Context != nil {
		for _, s := range p.Context.Parents {
			if s < ev.Seq {
				out = append(out, Link{From: s, To: ev.Seq, Via: "context"})
			}
		}
		for _, id := range p.Context.ParentIDs {
			found := false
			for _, from := range ix.byID[runID{ev.Envelope.Run, id}] {
				if from != ev {
					out = append(out, Link{From: from.Seq, To: ev.Seq, Via: "context_id", ID: id})
					found = true
				}
			}
			if !found {
				out = append(out, Link{To: ev.Seq, Via: "context_id", ID: id, Unresolved: true})
			}
		}
	}
	if p.Delegation != nil && p.Delegation.Parent != nil && *p.Delegation.Parent < ev.Seq {
		out = append(out, Link{From: *p.Delegation.Parent, To: ev.Seq, Via: "delegation"})
	}
	return out
}

// Delegation is one recorded delegation.
type Delegation struct {
	Seq       uint64   `json:"seq"`
	Delegator string   `json:"delegator"`
	Delegate  string   `json:"delegate"`
	Scope     []string `json:"scope,omitempty"`
	Parent    *uint64  `json:"parent,omitempty"`
}

// Delegations returns every recorded delegation in sequence order, or —
// with principal set — those where principal delegated or was delegated to:
// who delegated what to whom.
func (ix *Index) Delegations(principal string) []Delegation {
	var out []Delegation
	for _, ev := range ix.events {
		if ev.Payload == nil || ev.Payload.Delegation == nil {
			continue
		}
		d := ev.Payload.Delegation
		if principal != "" && d.Delegator != principal && d.Delegate != principal {
			continue
		}
		out = append(out, Delegation{Seq: ev.Seq, Delegator: d.Delegator, Delegate: d.Delegate, Scope: d.Scope, Parent: d.Parent})
	}
	return out
}

// DelegationChain returns the delegations among event seq's causal
// ancestors (seq included), in sequence order: the chain of authority
// under which the event happened.
func (ix *Index) DelegationChain(seq uint64) ([]Delegation, error) {
	events, _, err := ix.CausalChain(seq)
	if err != nil {
		return nil, err
	}
	var out []Delegation
	for _, ev := range events {
		if ev.Payload != nil && ev.Payload.Delegation != nil {
			d := ev.Payload.Delegation
			out = append(out, Delegation{Seq: ev.Seq, Delegator: d.Delegator, Delegate: d.Delegate, Scope: d.Scope, Parent: d.Parent})
		}
	}
	return out, nil
}

// Seqs returns the sequence numbers of events, for Disclose.
func Seqs(events []*Event) []uint64 {
	out := make([]uint64, len(events))
	for i, ev := range events {
		out[i] = ev.Seq
	}
	return out
}
