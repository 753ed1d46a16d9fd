package report

import (
	"slices"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/importer"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

// Calls are paired from a real log (epochs of 2, so that intents and
// outcomes fall in different epochs) holding every combination.
func TestCallsOf(t *testing.T) {
	const ms = int64(1e6)
	req := func(id any) map[string]any { return map[string]any{"mcp.request_id": id} }
	parents := func(s ...uint64) *format.ContextProvenance { return &format.ContextProvenance{Parents: s} }
	intent := func(tool string, id any) format.Event {
		return format.Event{Tool: tool, Kind: format.KindToolCall, Payload: format.Payload{Intent: &format.Intent{Tool: tool}, Ext: req(id)}}
	}
	evs := []format.Event{
		intent("only", 1), // 0: no outcome
		intent("done", 2), // 1, and its outcome 2 in the next epoch
		{Tool: "done", Kind: format.KindToolCall, Payload: format.Payload{Context: parents(1), Ext: req(2),
			Execution: &format.Execution{Status: format.StatusOK, Start: 1_000 * ms, End: 1_250 * ms, Output: format.NewText([]byte("3 rows"))}}},
		intent("rm", 3), // 3, denied by the policy event 4
		{Tool: "rm", Kind: format.KindPolicy, Payload: format.Payload{Context: parents(3),
			Policy: &format.PolicyEvaluation{PolicyID: "p", Decision: format.DecisionDeny}}},
		intent("pay", 4), // 5: asked (6), approved (7), done (8)
		{Tool: "pay", Kind: format.KindPolicy, Payload: format.Payload{Context: parents(5),
			Policy: &format.PolicyEvaluation{PolicyID: "p", Decision: format.DecisionAsk}}},
		{Tool: "pay", Kind: format.KindApproval, Payload: format.Payload{Context: parents(5),
			Approval: &format.Approval{Approver: "alice", Decision: format.DecisionAllow}}},
		{Tool: "pay", Kind: format.KindToolCall, Payload: format.Payload{Context: parents(5, 6),
			Execution: &format.Execution{Status: format.StatusFailed, Start: 2_000 * ms, End: 2_040 * ms, Error: "card declined"}}},
		{Tool: "ls", Kind: format.KindToolCall, Payload: format.Payload{ // 9: a whole call in one event
			Intent: &format.Intent{Tool: "ls"}, Execution: &format.Execution{Status: format.StatusOK}}},
		{Tool: "cat", Kind: format.KindToolCall, Payload: format.Payload{ // 10: imported
			Intent: &format.Intent{Tool: "cat"}, Execution: &format.Execution{Status: format.StatusOK},
			Ext: map[string]any{importer.ExtKey: map[string]any{"format": "swe-agent"}}}},
		intent("get", "r-9"), // 11, and its outcome 12 by request id alone
		{Tool: "get", Kind: format.KindToolCall, Payload: format.Payload{Ext: req("r-9"),
			Execution: &format.Execution{Status: format.StatusOK, Start: 3_000 * ms, End: 3_007 * ms}}},
		{Tool: "read", Kind: format.KindObservation, Payload: format.Payload{Content: format.NewText([]byte("hi"))}}, // 13: no call
		{Tool: "deny", Kind: format.KindApproval, Payload: format.Payload{ // 14: an approval naming no call
			Approval: &format.Approval{Approver: "bob", Decision: format.DecisionDeny}}},
		{Tool: "pace", Kind: format.KindChainTx, Payload: format.Payload{Context: parents(9), // 15: caused by a finished call
			Execution: &format.Execution{Status: format.StatusOK}}},
	}
	l := logtest.Write(t, recorder.Options{Recorder: "calls", EpochSize: 2, Sync: recorder.SyncNone}, evs)
	ix, err := verifier.IndexLog(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls, member := callsOf(ix.Find(verifier.Query{}))
	want := []struct {
		events []uint64
		status string
		ms     int64 // -2: any measured time (from the events' times)
	}{
		{[]uint64{0}, noOutcome, -1},
		{[]uint64{1, 2}, "ok", 250},
		{[]uint64{3, 4}, "denied by policy", -2},
		{[]uint64{5, 6, 7, 8}, "failed", 40},
		{[]uint64{9}, "ok", -1},
		{[]uint64{10}, "ok", -1}, // imported: its row says so (TestReportPairsCalls)
		{[]uint64{11, 12}, "ok", 7},
	}
	if len(calls) != len(want) {
		t.Fatalf("%d calls %+v, want %d", len(calls), calls, len(want))
	}
	for i, w := range want {
		c := calls[i]
		if !slices.Equal(c.Events, w.events) || c.Status != w.status || (w.ms != -2 && c.Duration != w.ms) || (w.ms == -2 && c.Duration < 0) {
			t.Errorf("call %d: %+v, want events %v, status %q, %d ms", i, c, w.events, w.status, w.ms)
		}
		for _, s := range w.events {
			if member[s] != i {
				t.Errorf("event %d is in call %d, want %d", s, member[s], i)
			}
		}
	}
	if calls[1].Output != `"3 rows"` || calls[3].Output != "card declined" || calls[0].Output != "" {
		t.Errorf("output excerpts %q, %q, %q: want the output, the error, nothing", calls[1].Output, calls[3].Output, calls[0].Output)
	}
	for _, s := range []uint64{13, 14, 15} {
		if i, ok := member[s]; ok {
			t.Errorf("event %d is in call %d, want none", s, i)
		}
	}
}
