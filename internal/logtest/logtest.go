// Package logtest holds what tests of writers (the daemon, the MCP proxy,
// the OTLP receiver, the importers) check about the log they wrote: that it
// verifies against its own epoch roots, and the events it holds. Test code
// only.
package logtest

import (
	"context"
	"testing"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

// Events verifies the log in dir against its own epoch roots (payload
// frames checked against their records) and returns its events, each with
// its payload; anything else fails the test.
func Events(t testing.TB, dir string) []*verifier.Event {
	t.Helper()
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	as, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verifier.VerifyLog(context.Background(), l, verifier.AnchorList(as), verifier.Options{Payloads: verifier.PayloadsDigest})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != verifier.Verified {
		t.Fatalf("verdict %s: %+v", rep.Verdict, rep.Findings)
	}
	ix, err := verifier.IndexLog(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*verifier.Event, 0, ix.Len())
	for seq := range uint64(ix.Len()) {
		ev, ok := ix.Event(seq)
		if !ok || ev.Payload == nil {
			t.Fatalf("event %d is not readable", seq)
		}
		out = append(out, ev)
	}
	return out
}
