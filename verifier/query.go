package verifier

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
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
	fields   map[string]any  // payload as JSON values, for field matches
	digest   format.Digest   // record digest: the event id PDRs bind
}

// Index holds a log's (or a bundle's) events for structured queries. Only
// events whose records decode are indexed; verify first to know whether the
// log is intact.
type Index struct {
	events   []*Event
	bySeq    map[uint64]*Event
	byDigest map[format.Digest]*Event
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

// epochOf returns the epoch of event seq given the log's headers in order:
// events past the last header belong to the next epoch.
func epochOf(headers []*format.EpochHeader, seq uint64) uint64 {
	return uint64(sort.Search(len(headers), func(i int) bool { return headers[i].FirstSeq+headers[i].Count > seq }))
}

func (ix *Index) add(ev *Event) {
	ix.events = append(ix.events, ev)
	ix.bySeq[ev.Seq] = ev
	ix.byDigest[ev.digest] = ev
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
	if err != nil {
		return
	}
	ev.Payload = p
	b, err := json.Marshal(p)
	if err == nil {
		json.Unmarshal(b, &ev.fields)
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

// FieldMatch matches a payload field, named by its JSON path (for example
// "intent.args.cmd" or "effects.0.file_write.path"), against a value.
type FieldMatch struct {
	Path     string
	Value    string
	Contains bool // substring instead of equality
}

// ParseFieldMatch parses "path=value" (equality) or "path~value" (substring).
func ParseFieldMatch(s string) (FieldMatch, error) {
	if i := strings.IndexAny(s, "=~"); i > 0 {
		return FieldMatch{Path: s[:i], Value: s[i+1:], Contains: s[i] == '~'}, nil
	}
	return FieldMatch{}, fmt.Errorf("verifier: field match %q: want path=value or path~value", s)
}

// Query selects events; zero fields match everything. All given conditions
// must hold.
type Query struct {
	Tool     string          // envelope tool name
	Kind     format.Kind     // envelope kind
	Group    string          // concurrency group
	Since    time.Time       // envelope time ≥ Since
	Until    time.Time       // envelope time < Until
	Approver string          // payload approval.approver
	Decision format.Decision // payload policy.decision
	Fields   []FieldMatch
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
	switch {
	case q.Tool != "" && e.Tool != q.Tool,
		q.Kind != 0 && e.Kind != q.Kind,
		q.Group != "" && e.Group != q.Group,
		!q.Since.IsZero() && e.Time < q.Since.UnixNano(),
		!q.Until.IsZero() && e.Time >= q.Until.UnixNano():
		return false
	case q.Approver != "" && (p == nil || p.Approval == nil || p.Approval.Approver != q.Approver),
		q.Decision != 0 && (p == nil || p.Policy == nil || p.Policy.Decision != q.Decision):
		return false
	}
	for _, f := range q.Fields {
		v, ok := lookup(ev.fields, f.Path)
		if !ok {
			return false
		}
		s := fmt.Sprint(v)
		if (f.Contains && !strings.Contains(s, f.Value)) || (!f.Contains && s != f.Value) {
			return false
		}
	}
	return true
}

func lookup(m map[string]any, path string) (any, bool) {
	var cur any = m
	for _, part := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[part]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			var i int
			if _, err := fmt.Sscanf(part, "%d", &i); err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// Link is one causal edge: From caused (or delegated to) To.
type Link struct {
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
	Via  string `json:"via"` // "context" (a parent input) or "delegation"
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
		for _, l := range parents(ev) {
			links = append(links, l)
			if seen[l.From] {
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
		return links[i].From < links[j].From
	})
	return events, links, nil
}

// parents returns the causal links into ev. Only earlier events can be
// parents: a link to a later event is a recording error and is ignored.
func parents(ev *Event) []Link {
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
