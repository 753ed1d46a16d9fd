package recorder_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

// verifyStore verifies the closed store in dir as a third party would, with
// the anchors an honest operator commits and every payload opened with the
// store's keys, and fails the test unless the verdict is verified.
func verifyStore(t testing.TB, dir string) *verifier.Report {
	t.Helper()
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	anchors, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatalf("the log's own epoch headers do not read back: %v", err)
	}
	keys, err := recorder.OpenKeyring(filepath.Join(dir, "keys"), l.Manifest.Session)
	if err != nil {
		t.Fatal(err)
	}
	defer keys.Close()
	rep, err := verifier.VerifyLog(context.Background(), l, verifier.AnchorList(anchors), verifier.Options{Payloads: verifier.PayloadsOpen, Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != verifier.Verified {
		b, _ := json.MarshalIndent(rep.Findings, "", "  ")
		t.Fatalf("what Record accepted verifies as %s: %s", rep.Verdict, b)
	}
	return rep
}

// nest returns depth maps nested in one another around leaf.
func nest(depth int, leaf any) any {
	for range depth {
		leaf = map[string]any{"k": leaf}
	}
	return leaf
}

func items(n int) []any {
	s := make([]any, n)
	for i := range s {
		s[i] = uint64(i % 3)
	}
	return s
}

func pairs(n int) map[string]any {
	m := make(map[string]any, n)
	for i := range n {
		m[strconv.Itoa(i)] = true
	}
	return m
}

// TestRecordRefusesWhatVerifierRejects records each event between two
// ordinary ones: an event the verifier would reject must be refused by
// Record (with nothing written, and the recorder still usable), an
// accepted one must verify. The payload is nested inside a map (level 1),
// ext (level 2), intent (2) and args (3).
func TestRecordRefusesWhatVerifierRejects(t *testing.T) {
	bad := "bad\xffutf8"
	ext := func(v any) format.Event {
		return format.Event{Tool: "t", Kind: format.KindObservation, Payload: format.Payload{Ext: map[string]any{"x": v}}}
	}
	args := func(v any) format.Event {
		return format.Event{Tool: "t", Kind: format.KindToolCall, Payload: format.Payload{Intent: &format.Intent{Tool: "t", Args: map[string]any{"a": v}}}}
	}
	// refused: "" accepted; otherwise refused with an error naming this.
	cases := []struct {
		name    string
		ev      format.Event
		refused string
	}{
		{"ext nesting 16", ext(nest(14, "leaf")), ""},
		{"ext nesting 17", ext(nest(15, "leaf")), "limit 16"},
		{"ext nesting 18", ext(nest(16, "leaf")), "limit 16"},
		{"ext nesting 19", ext(nest(17, "leaf")), "limit 16"},
		{"args nesting 16", args(nest(13, "leaf")), ""},
		{"args nesting 17", args(nest(14, "leaf")), "limit 16"},
		{"array of 65536", ext(items(65536)), ""},
		{"array of 65537", ext(items(65537)), "limit 65536"},
		{"map of 65536", args(pairs(65536)), ""},
		{"map of 65537", args(pairs(65537)), "limit 65536"},
		{"payload over 1 MiB", ext(strings.Repeat("x", format.MaxPayloadSize)), "limit 1048576"},
		{"tool of 1024", format.Event{Tool: strings.Repeat("t", 1024), Kind: format.KindToolCall}, ""},
		{"tool of 1025", format.Event{Tool: strings.Repeat("t", 1025), Kind: format.KindToolCall}, "1024"},
		{"invalid UTF-8 tool", format.Event{Tool: bad, Kind: format.KindToolCall}, "UTF-8"},
		{"invalid UTF-8 intent tool", format.Event{Tool: "t", Kind: format.KindToolCall, Payload: format.Payload{Intent: &format.Intent{Tool: bad}}}, "UTF-8"},
		{"invalid UTF-8 policy reason", format.Event{Tool: "t", Kind: format.KindPolicy, Payload: format.Payload{Policy: &format.PolicyEvaluation{Decision: format.DecisionDeny, Reasons: []string{"ok", bad}}}}, "UTF-8"},
		{"invalid UTF-8 ext value", ext(bad), "UTF-8"},
		{"invalid UTF-8 ext key", format.Event{Tool: "t", Kind: format.KindObservation, Payload: format.Payload{Ext: map[string]any{bad: 1}}}, "UTF-8"},
		{"invalid UTF-8 nested key", args(map[string]any{"ok": map[string]any{bad: 1}}), "UTF-8"},
		{"valid UTF-8 everywhere", args(map[string]any{"ключ": "значение ✓", "n": -1.5, "b": []byte{0xff}, "nil": nil}), ""},
		{"ext typed slice", ext([]string{"a", "b"}), ""},
		{"ext map with integer keys", ext(map[int]string{1: "a"}), "text"},
		{"ext non-canonical raw CBOR", ext(cbor.RawMessage{0x18, 0x01}), "cbor.RawMessage"},
		{"ext undefined", ext(cbor.RawMessage{0xf7}), "cbor.RawMessage"},
		{"ext time tag", ext(cbor.Tag{Number: 1, Content: "x"}), "cbor.Tag"},
		{"after at the clock's end", format.Event{Tool: "t", Kind: format.KindToolCall, After: math.MaxUint64}, "clock"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			r := openT(t, dir, recorder.Options{EpochSize: 2, Encrypt: true})
			recordN(t, r, 1)
			_, err := r.Record(context.Background(), c.ev)
			switch {
			case c.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
				t.Fatalf("got %v, want a refusal naming %q", err, c.refused)
			}
			recordN(t, r, 1)
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			rep := verifyStore(t, dir)
			want := uint64(3)
			if c.refused != "" {
				want = 2
			}
			if rep.Events != want || rep.PayloadsOpened != want {
				t.Fatalf("%d events, %d payloads opened, want %d", rep.Events, rep.PayloadsOpened, want)
			}
		})
	}
}

// TestRecordPayloadSizeLimit: the size limit is a typed error callers can
// branch on.
func TestRecordPayloadSizeLimit(t *testing.T) {
	r := openT(t, t.TempDir(), recorder.Options{})
	defer r.Close()
	big := format.Event{Tool: "t", Kind: format.KindObservation, Payload: format.Payload{Ext: map[string]any{"x": make([]byte, format.MaxPayloadSize)}}}
	if _, err := r.Record(context.Background(), big); !errors.Is(err, format.ErrLimit) {
		t.Fatalf("got %v, want an error wrapping format.ErrLimit", err)
	}
	recordN(t, r, 1) // not sticky
}

// TestRecordClockEnd: the logical clock must strictly increase, so once it
// reaches its largest value (in a log written before the bounds of
// CausalLinkError) nothing more can be recorded, also after a reopen.
func TestRecordClockEnd(t *testing.T) {
	dir := t.TempDir()
	r := openT(t, dir, recorder.Options{})
	recordN(t, r, 1)
	recorder.SetClock(r, math.MaxUint64-1)
	if rc, err := r.Record(context.Background(), sampleEvent(0)); err != nil || rc.Clock != math.MaxUint64 {
		t.Fatalf("clock %d, %v; want %d", rc.Clock, err, uint64(math.MaxUint64))
	}
	if _, err := r.Record(context.Background(), sampleEvent(0)); !errors.Is(err, format.ErrLimit) {
		t.Fatalf("an event after the clock's last value: %v, want format.ErrLimit", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r = openT(t, dir, recorder.Options{})
	if _, err := r.Record(context.Background(), sampleEvent(0)); !errors.Is(err, format.ErrLimit) {
		t.Fatalf("after a reopen: %v, want format.ErrLimit", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := verifyStore(t, dir); rep.Events != 2 {
		t.Fatalf("%d events, want 2", rep.Events)
	}
}

// TestRecordCausalLinkBound: an event's After may be at most MaxClockStep
// past the log's clock and at most MaxAfter; one further is refused with a
// *CausalLinkError naming both, nothing of it is written, and the log goes
// on — also the event of the review, whose After would have left the
// clock one short of its end and refused every later append of every
// writer, after a reopen too.
func TestRecordCausalLinkBound(t *testing.T) {
	dir := t.TempDir()
	r := openT(t, dir, recorder.Options{})
	recordN(t, r, 1) // clock 1
	ev := func(after uint64) format.Event {
		return format.Event{Tool: "t", Kind: format.KindToolCall, After: after}
	}
	refuse := func(after, clock uint64) {
		t.Helper()
		_, err := r.Record(context.Background(), ev(after))
		ce, ok := errors.AsType[*recorder.CausalLinkError](err)
		if !ok || ce.After != after || ce.Clock != clock || !errors.Is(err, format.ErrLimit) {
			t.Fatalf("after %d at clock %d: %v, want a *CausalLinkError wrapping format.ErrLimit", after, clock, err)
		}
		for _, s := range []string{fmt.Sprint(after), fmt.Sprint(clock), "causal link"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not name %s", err, s)
			}
		}
	}
	refuse(math.MaxUint64-1, 1)
	refuse(1+recorder.MaxClockStep+1, 1)
	if rc, err := r.Record(context.Background(), ev(1+recorder.MaxClockStep)); err != nil || rc.Clock != 2+recorder.MaxClockStep {
		t.Fatalf("after the clock + MaxClockStep: clock %d, %v", rc.Clock, err)
	}
	recorder.SetClock(r, recorder.MaxAfter-2)
	refuse(recorder.MaxAfter+1, recorder.MaxAfter-2)
	if rc, err := r.Record(context.Background(), ev(recorder.MaxAfter)); err != nil || rc.Clock != recorder.MaxAfter+1 {
		t.Fatalf("after MaxAfter: clock %d, %v", rc.Clock, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r = openT(t, dir, recorder.Options{})
	refuse(math.MaxUint64-1, recorder.MaxAfter+1)
	if rc, err := r.Record(context.Background(), sampleEvent(0)); err != nil || rc.Seq != 3 {
		t.Fatalf("after a reopen: %+v, %v", rc, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := verifyStore(t, dir); rep.Events != 4 {
		t.Fatalf("%d events, want 4", rep.Events)
	}
}

// TestMaxRecorderID: with a recorder id of MaxRecorderID bytes the epoch
// header fits MaxHeaderSize whatever the epoch (every counter at its
// widest); one byte more does not.
func TestMaxRecorderID(t *testing.T) {
	for _, n := range []int{recorder.MaxRecorderID, recorder.MaxRecorderID + 1} {
		h := format.EpochHeader{Version: format.Version, Recorder: strings.Repeat("r", n),
			Epoch: math.MaxUint64, FirstSeq: math.MaxUint64, Count: math.MaxUint64, Time: math.MinInt64}
		enc, err := format.EncodeEpochHeader(&h)
		if n > recorder.MaxRecorderID {
			if !errors.Is(err, format.ErrLimit) {
				t.Errorf("recorder id of %d bytes: encoding the widest header gave %v, want an error wrapping ErrLimit", n, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := format.DecodeEpochHeader(enc); err != nil {
			t.Errorf("recorder id of %d bytes: header of %d bytes (limit %d) does not decode: %v", n, len(enc), format.MaxHeaderSize, err)
		}
	}
}

// TestOpenRecorderIDLimit: Open refuses to create a store whose epoch
// headers could exceed their limit, and a store that does is still
// readable but no longer writable.
func TestOpenRecorderIDLimit(t *testing.T) {
	for _, n := range []int{1, 100, recorder.MaxRecorderID, recorder.MaxRecorderID + 1, 878, 879, 1024, 1025} {
		dir := t.TempDir()
		r, err := recorder.Open(dir, recorder.Options{Recorder: strings.Repeat("r", n), EpochSize: 2})
		if n > recorder.MaxRecorderID {
			if !errors.Is(err, format.ErrLimit) || !strings.Contains(err.Error(), "854") {
				t.Fatalf("recorder id of %d bytes: got %v, want an error wrapping format.ErrLimit naming the longest id", n, err)
			}
			if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err == nil {
				t.Fatalf("recorder id of %d bytes: refused, but a MANIFEST was written", n)
			}
			continue
		}
		if err != nil {
			t.Fatalf("recorder id of %d bytes: %v", n, err)
		}
		recordN(t, r, 5)
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		verifyStore(t, dir)
	}

	// A store whose recorder id is too long (written before this limit):
	// readers still open it, writers refuse it.
	dir := t.TempDir()
	r := openT(t, dir, recorder.Options{})
	recordN(t, r, 3)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	m, err := recorder.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Recorder = strings.Repeat("r", 900)
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, "MANIFEST"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := recorder.OpenLog(dir); err != nil {
		t.Fatalf("reading a store with a long recorder id: %v", err)
	}
	if _, err := recorder.Open(dir, recorder.Options{}); !errors.Is(err, format.ErrLimit) {
		t.Fatalf("writing a store with a long recorder id: got %v, want an error wrapping format.ErrLimit", err)
	}
}

// TestOpenRefusesInvalidRecorderID: the id goes into every record and
// epoch header as a CBOR text string, and into MANIFEST as JSON.
func TestOpenRefusesInvalidRecorderID(t *testing.T) {
	dir := t.TempDir()
	if _, err := recorder.Open(dir, recorder.Options{Recorder: "ops\xff"}); err == nil {
		t.Fatal("a recorder id that is not UTF-8 was accepted")
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err == nil {
		t.Fatal("refused, but a MANIFEST was written")
	}
}

// MANIFEST is read as every reader reads it (docs/SPEC.md, "Reading JSON"):
// a name given twice, or in two spellings equal under case folding, is
// refused. Before, the last one won.
func TestManifestRefusesEqualNames(t *testing.T) {
	dir := t.TempDir()
	r := openT(t, dir, recorder.Options{})
	recordN(t, r, 1)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(dir, "MANIFEST"))
	if err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{`{"encrypted":true,`, `{"Encrypted":true,`, `{"RECORDER":"other",`} {
		b := append([]byte(prefix), bytes.TrimPrefix(bytes.TrimSpace(good), []byte("{"))...)
		if err := os.WriteFile(filepath.Join(dir, "MANIFEST"), b, 0o600); err != nil {
			t.Fatal(err)
		}
		if m, err := recorder.ReadManifest(dir); err == nil || !strings.Contains(err.Error(), "MANIFEST") {
			t.Errorf("%s: read %+v (%v), want a refusal naming MANIFEST", b, m, err)
		}
	}
}
