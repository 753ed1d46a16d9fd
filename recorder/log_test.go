package recorder_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
)

// writeLog records sampleEvent(0) … sampleEvent(n-1) into a new encrypted
// log in a fresh directory and returns the directory and the log's manifest.
func writeLog(t *testing.T, n int) (string, recorder.Manifest) {
	t.Helper()
	evs := make([]format.Event, n)
	for i := range evs {
		evs[i] = sampleEvent(i)
	}
	l := logtest.Write(t, recorder.Options{Recorder: "test-recorder", Encrypt: true, EpochSize: 2}, evs)
	return l.Dir, l.Manifest
}

// The MANIFEST protects nothing: a log opens read-only whatever it holds,
// its identity comes from the records, and a manifest that cannot be read
// is reported by ManifestIdentity.
func TestOpenLogManifest(t *testing.T) {
	other := `{"format":"afr-log","version":1,"recorder":"someone-else","session":"0102030405060708090a0b0c0d0e0f10","encrypted":true,"created":"2026-01-01T00:00:00Z"}`
	for _, tc := range []struct {
		name     string
		manifest *string // nil: removed
		wantErr  bool
	}{
		{"intact", nil, false},
		{"missing", nil, true},
		{"unparseable", ptr("{not json"), true},
		{"not afr", ptr(`{"format":"zip","version":1}`), true},
		{"newer version", ptr(`{"format":"afr-log","version":99,"recorder":"x","session":"00000000000000000000000000000000"}`), true},
		{"other session", &other, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, m := writeLog(t, 5)
			path := filepath.Join(dir, "MANIFEST")
			switch {
			case tc.manifest != nil:
				if err := os.WriteFile(path, []byte(*tc.manifest), 0o600); err != nil {
					t.Fatal(err)
				}
			case tc.name == "missing":
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
			}
			l, err := recorder.OpenLog(dir)
			if err != nil {
				t.Fatalf("OpenLog: %v", err)
			}
			rec, session, err := l.Identity()
			if err != nil || rec != m.Recorder || session != m.Session {
				t.Fatalf("Identity() = %q, %s, %v; want %q, %s (the records' identity)", rec, session, err, m.Recorder, m.Session)
			}
			mrec, msession, err := l.ManifestIdentity()
			if (err != nil) != tc.wantErr {
				t.Fatalf("ManifestIdentity() error %v, want error %v", err, tc.wantErr)
			}
			if tc.name == "missing" && !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("ManifestIdentity() of a missing MANIFEST: %v, want os.ErrNotExist", err)
			}
			if tc.name == "newer version" && !errors.Is(err, format.ErrNewerVersion) {
				t.Fatalf("ManifestIdentity() of a newer MANIFEST: %v, want format.ErrNewerVersion", err)
			}
			if tc.name == "other session" && (mrec != "someone-else" || msession == m.Session) {
				t.Fatalf("ManifestIdentity() = %q, %s: want the manifest's own claim", mrec, msession)
			}
			n := 0
			if err := l.Records(func(uint64, []byte) error { n++; return nil }); err != nil || n != 5 {
				t.Fatalf("read %d records (%v), want 5", n, err)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// manifestJSON is a MANIFEST of the log dir (recorder test-recorder,
// session) with field name set to value (a JSON text; "" removes it).
func manifestJSON(session format.SessionID, name, value string) string {
	fields := []struct{ name, value string }{{"format", `"afr-log"`}, {"version", "3"}, {"recorder", `"test-recorder"`},
		{"session", `"` + session.String() + `"`}, {"encrypted", "true"}, {"created", `"2026-01-01T00:00:00Z"`}}
	var b strings.Builder
	for _, f := range fields {
		if f.name == name {
			f.value = value
		}
		if f.value == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", f.name, f.value)
	}
	return "{" + b.String() + "}"
}

// A MANIFEST is read as docs/SPEC.md writes it: every field present and
// not null, the session in lowercase hex. A reader that takes the spec at
// its word finds the MANIFEST unreadable (incomplete) in each case below;
// before, afr read a missing or null session or recorder as the zero
// value (a manifest naming another identity: tampered) and an upper-case
// session as the log's own (verified).
func TestManifestFieldsRequired(t *testing.T) {
	dir, m := writeLog(t, 1)
	path := filepath.Join(dir, "MANIFEST")
	upper := strings.ToUpper(m.Session.String())
	for _, c := range []struct{ name, value string }{
		{"session", ""}, {"session", "null"}, {"session", `"` + upper + `"`}, {"session", `"` + upper[:16] + m.Session.String()[16:] + `"`},
		{"recorder", ""}, {"recorder", "null"}, {"format", "null"}, {"version", ""}, {"version", "null"},
		{"encrypted", ""}, {"encrypted", "null"}, {"created", ""}, {"created", "null"},
	} {
		doc := manifestJSON(m.Session, c.name, c.value)
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := recorder.OpenLog(dir)
		if err != nil {
			t.Fatal(err)
		}
		if rec, session, err := l.ManifestIdentity(); err == nil {
			t.Errorf("MANIFEST %s: read as recorder %q, session %s; want it unreadable", doc, rec, session)
		}
	}
	if err := os.WriteFile(path, []byte(manifestJSON(m.Session, "", "")), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec, session, err := l.ManifestIdentity(); err != nil || rec != m.Recorder || session != m.Session {
		t.Fatalf("the complete MANIFEST: %q, %s, %v", rec, session, err)
	}
}

// Identity falls back on the first record when no epoch header decodes,
// and fails (ErrNoIdentity) on a log with neither.
func TestLogIdentityFallback(t *testing.T) {
	dir, m := writeLog(t, 1)
	if err := os.RemoveAll(filepath.Join(dir, "epochs")); err != nil {
		t.Fatal(err)
	}
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec, session, err := l.Identity(); err != nil || rec != m.Recorder || session != m.Session {
		t.Fatalf("Identity() from the records = %q, %s, %v; want %q, %s", rec, session, err, m.Recorder, m.Session)
	}
	if err := os.RemoveAll(filepath.Join(dir, "records")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Identity(); !errors.Is(err, recorder.ErrNoIdentity) {
		t.Fatalf("Identity() of a log without headers or records: %v, want ErrNoIdentity", err)
	}
}

// OpenLog refuses what is not a log at all, with an error callers can test.
func TestOpenLogNotALog(t *testing.T) {
	if _, err := recorder.OpenLog(filepath.Join(t.TempDir(), "nope")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing directory: %v, want os.ErrNotExist", err)
	}
	if _, err := recorder.OpenLog(t.TempDir()); !errors.Is(err, recorder.ErrNotALog) {
		t.Fatalf("empty directory: %v, want ErrNotALog", err)
	}
}
