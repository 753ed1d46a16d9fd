package verifier_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

// runsLog records two runs into one log, as an OpenTelemetry exporter would:
// each run's model response names its tool span by id before the span is
// recorded (a child exported before its parent), event times are the
// agent's own, one level earlier than the recorder's, and run b reuses run
// a's ids. Run b's response also names a span no event carries.
func runsLog(t *testing.T) *verifier.Index {
	t.Helper()
	base := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	clock := base.Add(24 * time.Hour) // the recorder's time: a day after the events
	at := func(min int) int64 { return base.Add(time.Duration(min) * time.Minute).UnixNano() }
	evs := []format.Event{
		{Tool: "llm", Kind: format.KindReasoning, Run: "a", ID: "think", EventTime: at(0),
			Payload: format.Payload{Content: format.NewText([]byte("the user wants the README"))}},
		{Tool: "llm", Kind: format.KindResponse, Run: "a", ID: "answer", EventTime: at(3),
			Payload: format.Payload{Content: format.NewText([]byte("Here it is.")), Context: &format.ContextProvenance{ParentIDs: []string{"read", "think"}}}},
		{Tool: "read_file", Kind: format.KindToolCall, Run: "a", ID: "read", EventTime: at(1),
			Payload: format.Payload{Intent: &format.Intent{Tool: "read_file"}, Execution: &format.Execution{Status: format.StatusOK, Output: format.NewText([]byte("# AFR"))}}},
		{Tool: "read_file", Kind: format.KindToolCall, Run: "b", ID: "read", EventTime: at(10),
			Payload: format.Payload{Execution: &format.Execution{Status: format.StatusOK, Output: format.NewText([]byte(strings.Repeat("x", format.MaxText+1)))}}},
		{Tool: "llm", Kind: format.KindResponse, Run: "b", ID: "answer", EventTime: at(11),
			Payload: format.Payload{Context: &format.ContextProvenance{ParentIDs: []string{"read", "lost-span"}}}},
		{Tool: "shell", Kind: format.KindToolCall}, // no run, no event time
	}
	l := logtest.Write(t, recorder.Options{Recorder: "fleet", Encrypt: true, EpochSize: 3, EpochMaxAge: -1, Sync: recorder.SyncNone,
		Now: func() time.Time { clock = clock.Add(time.Second); return clock }}, evs)
	if l.Manifest.Version != format.Version {
		t.Fatalf("a new log is of version %d, want %d", l.Manifest.Version, format.Version)
	}
	kr, err := recorder.OpenKeyring(l.Dir+"/keys", l.Manifest.Session)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kr.Close() })
	anchors, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verifier.VerifyLog(context.Background(), l, verifier.AnchorList(anchors), verifier.Options{Payloads: verifier.PayloadsOpen, Keys: kr})
	if err != nil || rep.Verdict != verifier.Verified {
		t.Fatalf("the fleet log verifies as %v (%v): %v", rep.Verdict, err, rep.Findings)
	}
	ix, err := verifier.IndexLog(l, kr)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func seqsOf(evs []*verifier.Event) []uint64 { return verifier.Seqs(evs) }

func TestQueryRunAndEventTime(t *testing.T) {
	ix := runsLog(t)
	base := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		q    verifier.Query
		want []uint64
	}{
		{"run a", verifier.Query{Run: "a"}, []uint64{0, 1, 2}},
		{"run b, kind response", verifier.Query{Run: "b", Kind: format.KindResponse}, []uint64{4}},
		{"reasoning", verifier.Query{Kind: format.KindReasoning}, []uint64{0}},
		// By event time the read (minute 1) is before the answer (minute 3), whatever the record order.
		{"event time minutes 1 to 3", verifier.Query{ByEventTime: true, Since: base.Add(time.Minute), Until: base.Add(4 * time.Minute)}, []uint64{1, 2}},
		{"event time since minute 10", verifier.Query{ByEventTime: true, Since: base.Add(10 * time.Minute)}, []uint64{3, 4}},
		// By the recorder's time every event is a day later: none at the event times.
		{"recorded time at the event times", verifier.Query{Since: base, Until: base.Add(time.Hour)}, nil},
		{"recorded time, from event 4's", verifier.Query{Since: time.Unix(0, recordedAt(ix, 4))}, []uint64{4, 5}},
		{"event time from event 4's recorded time", verifier.Query{ByEventTime: true, Since: time.Unix(0, recordedAt(ix, 4))}, nil},
		{"output text", verifier.Query{Fields: []verifier.FieldMatch{{Path: "execution.output.text", Op: verifier.OpEq, Value: "# AFR"}}}, []uint64{2}},
		{"output over the limit kept as its size", verifier.Query{Fields: []verifier.FieldMatch{{Path: "execution.output.size", Op: verifier.OpGt, Value: "65536"}}}, []uint64{3}},
	} {
		got := seqsOf(ix.Find(c.q))
		if len(got) != len(c.want) || (len(got) > 0 && !equalSeqs(got, c.want)) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	if ev, _ := ix.Event(3); ev.Payload.Execution.Output.Text != "" || len(ev.Payload.Execution.Output.Digest) != 32 {
		t.Errorf("an output over %d bytes was kept: %+v", format.MaxText, ev.Payload.Execution.Output)
	}
	for _, path := range []string{"content.text", "execution.output.digest", "context.parent_ids.*"} {
		if _, err := verifier.ParseFieldMatch(path + "=x"); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}

func recordedAt(ix *verifier.Index, seq uint64) int64 {
	ev, _ := ix.Event(seq)
	return ev.Envelope.Time
}

func equalSeqs(a, b []uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// Parent ids resolve within the event's run, to earlier and later events;
// an id no event of the run carries is an unresolved link.
func TestCausalChainByID(t *testing.T) {
	ix := runsLog(t)
	events, links, err := ix.CausalChain(1)
	if err != nil {
		t.Fatal(err)
	}
	if got := seqsOf(events); !equalSeqs(got, []uint64{0, 1, 2}) {
		t.Errorf("chain of run a's answer: %v, want [0 1 2] (its reasoning before it, its tool call after it)", got)
	}
	want := []verifier.Link{{From: 0, To: 1, Via: "context_id", ID: "think"}, {From: 2, To: 1, Via: "context_id", ID: "read"}}
	if len(links) != 2 || links[0] != want[0] || links[1] != want[1] {
		t.Errorf("links %+v, want %+v", links, want)
	}
	events, links, err = ix.CausalChain(4)
	if err != nil {
		t.Fatal(err)
	}
	if got := seqsOf(events); !equalSeqs(got, []uint64{3, 4}) {
		t.Errorf("chain of run b's answer: %v, want [3 4]: run a's read (2) has the same id in another run", got)
	}
	var unresolved []string
	for _, l := range links {
		if l.Unresolved {
			unresolved = append(unresolved, l.ID)
		}
	}
	if len(unresolved) != 1 || unresolved[0] != "lost-span" {
		t.Errorf("unresolved links %v, want [lost-span]", unresolved)
	}
}
