package verifier

import "slices"

// Filter returns the events of events that q matches, in their order.
func (q *Query) Filter(events []*Event) []*Event {
	var out []*Event
	for _, ev := range events {
		if q.Match(ev) {
			out = append(out, ev)
		}
	}
	return out
}

// Note is what an answer from a verified log or bundle says about one of
// its events beyond the log's contents: the tampered findings that name
// the event or its epoch, and why its payload is not shown.
type Note struct {
	// Unavailable says why the payload is not shown ("" when it is): key
	// erased, payload missing, digest mismatch (the stored payload is not
	// the one its record commits to), does not open with its key, or
	// Notes.NoKey.
	Unavailable string `json:"payload_unavailable,omitempty"`
	// Findings are the kinds of the tampered findings naming the event or
	// its epoch, each once.
	Findings []FindingKind `json:"findings,omitempty"`
}

// Notes derive each event's Note from the findings of the verification
// the answer comes from.
type Notes struct {
	Findings []Finding
	// NoKey says why a payload is missing that no finding explains (for
	// example "no keys", or "payload or key not disclosed" in a bundle).
	NoKey string
}

// unavailable says why a payload is not shown, by the finding about it.
var unavailable = map[FindingKind]string{
	KindPayloadMismatch: "digest mismatch",
	KindPayloadErased:   "key erased",
	KindPayloadLost:     "payload missing",
	KindPayloadMissing:  "payload missing",
	KindPayloadDecrypt:  "does not open with its key",
	KindPayloadCommit:   "does not open with its key",
	KindPayloadDecode:   "does not open with its key",
}

// Of returns the note of ev. A finding names ev when its events (Seq and
// Count) include ev, or, without events, when its epoch is ev's.
func (n Notes) Of(ev *Event) Note {
	var out Note
	for _, f := range n.Findings {
		if f.Seq != nil && (ev.Seq < *f.Seq || ev.Seq >= *f.Seq+max(f.Count, 1)) || f.Seq == nil && (f.Epoch == nil || *f.Epoch != ev.Epoch) {
			continue
		}
		if f.Class == ClassTampered && !slices.Contains(out.Findings, f.Kind) {
			out.Findings = append(out.Findings, f.Kind)
		}
		if why, ok := unavailable[f.Kind]; ok && out.Unavailable == "" {
			out.Unavailable = why
		}
	}
	switch {
	case ev.Payload != nil:
		out.Unavailable = ""
	case out.Unavailable == "":
		out.Unavailable = n.NoKey
	}
	return out
}

// OnlyUnanchored reports whether the report is incomplete for the lack of
// anchors alone: every finding that makes it incomplete (none dropped) is
// an unanchored or unsealed epoch. Such a log is consistent in itself,
// which is all a check without anchors can say.
func (r *Report) OnlyUnanchored() bool {
	if r.Verdict != Incomplete || r.Dropped > 0 {
		return false
	}
	for _, f := range r.Findings {
		if f.Class == ClassIncomplete && f.Kind != KindUnanchored && f.Kind != KindUnsealed {
			return false
		}
	}
	return true
}
