// Package logtest holds what tests share about logs: writing one (a
// recorder opened for the test, closed when it ends; a log of given events
// written and closed), and what tests of writers (the daemon, the MCP
// proxy, the OTLP receiver, the importers) check about the log they wrote:
// that it verifies against its own epoch roots, and the events it holds.
// Test code only.
package logtest

import (
	"context"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

// Open opens a recorder on dir with o, failing the test if it cannot. The
// recorder is closed when the test ends, its error ignored: a test that
// checks what Close returns calls Close itself.
func Open(t testing.TB, dir string, o recorder.Options) *recorder.Recorder {
	t.Helper()
	r, err := recorder.Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// Write writes a log for a test: a recorder opened with o on a new
// directory in t.TempDir() records evs in order (for a synthetic log,
// workload.Generate(seed, n)) and is closed, sealing its last epoch. It
// returns the log, opened read-only; any error fails the test.
func Write(t testing.TB, o recorder.Options, evs []format.Event) *recorder.Log {
	t.Helper()
	dir := t.TempDir()
	r := Open(t, dir, o)
	for _, ev := range evs {
		if _, err := r.Record(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Anchors returns the id of the log in dir and the anchors of its sealed
// epochs, as its anchorer would send them (a test puts them on a chain);
// any error fails the test.
func Anchors(t testing.TB, dir string) (format.Digest, []format.Anchor) {
	t.Helper()
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	id, err := l.LogID()
	if err != nil {
		t.Fatal(err)
	}
	as, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	return id, as
}

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

// Receipted verifies the log in dir (Events) and checks that it holds every
// event of rcs, with the digest its receipt gave, and nothing else: the
// log's events are exactly those receipted. It fails the test otherwise,
// naming the first difference.
func Receipted(t testing.TB, dir string, rcs []recorder.Receipt) {
	t.Helper()
	evs := Events(t, dir)
	seen := make(map[uint64]bool, len(rcs))
	for _, rc := range rcs {
		if rc.Seq >= uint64(len(evs)) {
			t.Fatalf("event %d has a receipt but the log holds events 0..%d only", rc.Seq, len(evs)-1)
		}
		if d := evs[rc.Seq].Digest(); d != rc.Digest {
			t.Fatalf("event %d: digest %x in the log, %x in its receipt", rc.Seq, d, rc.Digest)
		}
		seen[rc.Seq] = true
	}
	for _, ev := range evs {
		if !seen[ev.Seq] {
			t.Fatalf("the log holds event %d, which no receipt acknowledged (of %d events, %d receipted)", ev.Seq, len(evs), len(rcs))
		}
	}
}

// HashSegments reads every segment file of the logs in dirs and hashes
// each with SHA-256 on one core, the floor a verifier's time is compared
// with, and returns the bytes hashed.
func HashSegments(t testing.TB, dirs ...string) int64 {
	t.Helper()
	var total int64
	for _, dir := range dirs {
		for _, kind := range []string{"records", "payloads", "epochs"} {
			files, err := filepath.Glob(filepath.Join(dir, kind, "*.seg"))
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range files {
				f, err := os.Open(name)
				if err != nil {
					t.Fatal(err)
				}
				n, err := io.Copy(sha256.New(), f)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				total += n
			}
		}
	}
	return total
}
