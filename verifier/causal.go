package verifier

import (
	"errors"
	"fmt"
	"sort"
)

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
