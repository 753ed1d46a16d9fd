package verifier_test

import (
	"reflect"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
)

func u64(n uint64) *uint64 { return &n }

func TestNotes(t *testing.T) {
	n := verifier.Notes{NoKey: "no keys", Findings: []verifier.Finding{
		{Kind: verifier.KindChainBreak, Class: verifier.ClassTampered, Seq: u64(4), Count: 3}, // events 4..6
		{Kind: verifier.KindPayloadErased, Class: verifier.ClassNotice, Epoch: u64(1)},        // the epoch of 8
		{Kind: verifier.KindChainBreak, Class: verifier.ClassTampered, Seq: u64(6)},           // counted once
		{Kind: verifier.KindUnanchored, Class: verifier.ClassIncomplete, Epoch: u64(1)},       // not tampered
	}}
	for _, c := range []struct {
		ev   verifier.Event
		want verifier.Note
	}{
		{verifier.Event{Seq: 3}, verifier.Note{Unavailable: "no keys"}},
		{verifier.Event{Seq: 4}, verifier.Note{Unavailable: "no keys", Findings: []verifier.FindingKind{verifier.KindChainBreak}}},
		{verifier.Event{Seq: 6, Payload: &format.Payload{}}, verifier.Note{Findings: []verifier.FindingKind{verifier.KindChainBreak}}},
		{verifier.Event{Seq: 7}, verifier.Note{Unavailable: "no keys"}},
		{verifier.Event{Seq: 8, Epoch: 1}, verifier.Note{Unavailable: "key erased"}},
	} {
		if got := n.Of(&c.ev); !reflect.DeepEqual(got, c.want) {
			t.Errorf("event %d: note %+v, want %+v", c.ev.Seq, got, c.want)
		}
	}
}

func TestOnlyUnanchored(t *testing.T) {
	unanchored := verifier.Finding{Kind: verifier.KindUnanchored, Class: verifier.ClassIncomplete}
	unsealed := verifier.Finding{Kind: verifier.KindUnsealed, Class: verifier.ClassIncomplete}
	notice := verifier.Finding{Kind: verifier.KindPayloadErased, Class: verifier.ClassNotice}
	torn := verifier.Finding{Kind: verifier.KindTornTail, Class: verifier.ClassIncomplete}
	for _, c := range []struct {
		rep  verifier.Report
		want bool
	}{
		{verifier.Report{Verdict: verifier.Incomplete, Findings: []verifier.Finding{unanchored, unsealed, notice}}, true},
		{verifier.Report{Verdict: verifier.Incomplete, Findings: []verifier.Finding{unanchored, torn}}, false},
		{verifier.Report{Verdict: verifier.Incomplete, Findings: []verifier.Finding{unanchored}, Dropped: 1}, false},
		{verifier.Report{Verdict: verifier.Verified}, false},
		{verifier.Report{Verdict: verifier.Tampered}, false},
	} {
		if got := c.rep.OnlyUnanchored(); got != c.want {
			t.Errorf("%s with %v (%d dropped): OnlyUnanchored = %v, want %v", c.rep.Verdict, c.rep.Findings, c.rep.Dropped, got, c.want)
		}
	}
}

func TestQueryFilter(t *testing.T) {
	evs := []*verifier.Event{{Seq: 1, Envelope: format.Envelope{Tool: "shell"}}, {Seq: 2, Envelope: format.Envelope{Tool: "db"}}, {Seq: 3, Envelope: format.Envelope{Tool: "shell"}}}
	q := verifier.Query{Tool: "shell"}
	if got := verifier.Seqs(q.Filter(evs)); !reflect.DeepEqual(got, []uint64{1, 3}) {
		t.Fatalf("Filter(tool shell) = events %v, want 1 and 3", got)
	}
}
