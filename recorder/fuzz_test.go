package recorder_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
)

// FuzzRecordVerify is the differential test of the write and read paths:
// whatever Open and Record accept, VerifyLog (payloads opened) must find
// verified. Events are built from the input: kind, tool, group, strings of
// any length and bytes, ext and intent arguments nested deep or wide,
// recorder ids of any length, epoch sizes, causal clocks.
func FuzzRecordVerify(f *testing.F) {
	f.Add(uint16(3), uint8(2), uint8(1), uint8(3), uint32(2), "shell", uint64(0), uint64(1))
	for _, depth := range []uint8{14, 15, 16, 17} { // the nesting, in ext and in args
		f.Add(uint16(3), uint8(100), uint8(4), depth, uint32(1), "call", uint64(0), uint64(0))
		f.Add(uint16(3), uint8(100), uint8(4), depth, uint32(1), "call", uint64(0), uint64(8))
	}
	for _, id := range []uint16{recorder.MaxRecorderID, recorder.MaxRecorderID + 1, 878, 879, 1024, 1025} {
		f.Add(id, uint8(1), uint8(6), uint8(0), uint32(0), "", uint64(0), uint64(3))
	}
	f.Add(uint16(3), uint8(3), uint8(2), uint8(2), uint32(65537), "wide", uint64(0), uint64(2))
	f.Add(uint16(3), uint8(3), uint8(1), uint8(1), uint32(1), "bad\xff\xfe", uint64(0), uint64(4))
	f.Add(uint16(3), uint8(3), uint8(1), uint8(1), uint32(1), strings.Repeat("t", 1025), uint64(math.MaxUint64), uint64(1))
	f.Add(uint16(3), uint8(3), uint8(9), uint8(1), uint32(1), "x", uint64(math.MaxUint64-1), uint64(16))
	for _, after := range []uint64{recorder.MaxClockStep, recorder.MaxClockStep + 2, recorder.MaxAfter, recorder.MaxAfter + 1} { // the causal link's bounds
		f.Add(uint16(3), uint8(3), uint8(1), uint8(1), uint32(1), "x", after, uint64(16))
	}
	f.Add(uint16(3), uint8(2), uint8(7), uint8(1), uint32(5), "span", uint64(1767225600), uint64(512|1024))
	f.Add(uint16(3), uint8(2), uint8(8), uint8(1), uint32(69999), "é", uint64(7), uint64(512|1024|2))
	f.Fuzz(func(t *testing.T, idLen uint16, epochSize, kind, depth uint8, width uint32, s string, after, seed uint64) {
		dir := t.TempDir()
		id := s + strings.Repeat("r", int(idLen%1100))
		r, err := recorder.Open(dir, recorder.Options{Recorder: id, Encrypt: seed&1 == 0, EpochSize: 1 + int(epochSize%8), EpochMaxAge: -1, Sync: recorder.SyncNone})
		if err != nil {
			return // refused: nothing to verify
		}
		recorded := 0
		for i := range 1 + seed%4 {
			ev := fuzzEvent(kind+uint8(i), depth%20, int(width%70000), s, after, seed>>(8*i))
			if _, err := r.Record(context.Background(), ev); err == nil {
				recorded++
			}
		}
		if err := r.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		if recorded > 0 { // an empty log is incomplete, not verified
			verifyStore(t, dir)
		}
	})
}

// fuzzEvent builds one event; the bits of sel choose which fields s, depth
// and width go into.
func fuzzEvent(kind, depth uint8, width int, s string, after, sel uint64) format.Event {
	ev := format.Event{Tool: "tool", Kind: format.Kind(kind % 10)}
	p := &ev.Payload
	if sel&2 != 0 {
		ev.Tool = s
	}
	if sel&4 != 0 {
		ev.Group = s
	}
	if sel&8 != 0 {
		ev.After = after
	}
	var leaf any = s
	switch sel >> 4 % 6 {
	case 1:
		leaf = []byte(s)
	case 2:
		leaf = after
	case 3:
		leaf = math.Float64frombits(after)
	case 4:
		leaf = nil
	case 5:
		leaf = map[string]any{s: int64(after)}
	}
	nested := nest(int(depth), leaf)
	wide := make([]any, width)
	for i := range wide {
		wide[i] = leaf
	}
	if sel&16 != 0 || sel&32 != 0 {
		p.Intent = &format.Intent{Tool: s, Args: map[string]any{"deep": nested, "wide": wide}}
	} else {
		p.Ext = map[string]any{s: nested, "wide": wide}
	}
	if sel&64 != 0 {
		p.Policy = &format.PolicyEvaluation{PolicyID: s, Decision: format.Decision(1 + after%3), Rule: s, Reasons: []string{s, s}}
	}
	if sel&128 != 0 {
		p.Execution = &format.Execution{Status: format.Status(1 + after%4), Error: s}
		p.Code = &format.CodeProvenance{ModelID: s, CodeHash: format.Bytes(s)}
	}
	if sel&256 != 0 {
		p.Effects = []format.Effect{{APICall: &format.APICall{Method: s, URL: s}}}
		p.Delegation = &format.DelegationProvenance{Delegator: s, Delegate: s, Scope: []string{s}}
	}
	// Format version 3's fields.
	if sel&512 != 0 {
		ev.Run, ev.ID, ev.EventTime = s, s, int64(after)
	}
	if sel&1024 != 0 {
		text := []byte(strings.Repeat(s, width%(2*format.MaxText/max(1, len(s))+1)))
		p.Content = format.NewText(text)
		if p.Execution == nil {
			p.Execution = &format.Execution{Status: format.StatusOK}
		}
		p.Execution.Output = format.NewText(text)
		p.Context = &format.ContextProvenance{ParentIDs: []string{s, s}}
	}
	return ev
}

// A log of version 1 or 2 takes no kind or field of version 3: the event is
// refused by name before anything is written, and the log goes on.
func TestOlderLogRefusesVersion3(t *testing.T) {
	for _, v := range []int{1, 2} {
		dir := t.TempDir()
		r, err := recorder.Open(dir, recorder.Options{Recorder: "old", FormatVersion: v, Encrypt: true, EpochSize: 2, EpochMaxAge: -1, Sync: recorder.SyncNone})
		if err != nil {
			t.Fatal(err)
		}
		for want, ev := range map[string]format.Event{
			"kind reasoning":             {Tool: "llm", Kind: format.KindReasoning},
			"run":                        {Tool: "t", Kind: format.KindToolCall, Run: "r"},
			"event_time":                 {Tool: "t", Kind: format.KindToolCall, EventTime: 1},
			"payload.execution.output":   {Tool: "t", Kind: format.KindToolCall, Payload: format.Payload{Execution: &format.Execution{Status: format.StatusOK, Output: format.NewText([]byte("x"))}}},
			"payload.context.parent_ids": {Tool: "t", Kind: format.KindToolCall, Payload: format.Payload{Context: &format.ContextProvenance{ParentIDs: []string{"p"}}}},
		} {
			_, err := r.Record(context.Background(), ev)
			if err == nil || !strings.Contains(err.Error(), want+" is of format version 3") || !errors.Is(err, format.ErrNewerVersion) {
				t.Errorf("version %d, %s: got %v", v, want, err)
			}
		}
		if _, err := r.Record(context.Background(), format.Event{Tool: "t", Kind: format.KindObservation}); err != nil {
			t.Fatalf("version %d: the log does not go on after a refused event: %v", v, err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		verifyStore(t, dir)
	}
}
