package recorder_test

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
)

// FuzzParseManifest: a MANIFEST afr reads is one that a reader written
// from docs/SPEC.md reads the same: every field present with its JSON
// type, the session in lowercase hex, the same values; and what afr reads
// it writes back to a MANIFEST it reads again as the same.
func FuzzParseManifest(f *testing.F) {
	var session format.SessionID
	for i := range session {
		session[i] = byte(0xa0 + i)
	}
	for _, name := range []string{"", "format", "version", "recorder", "session", "encrypted", "created"} {
		f.Add(manifestJSON(session, name, ""))
		f.Add(manifestJSON(session, name, "null"))
	}
	f.Add(manifestJSON(session, "session", `"A0A1A2A3A4A5A6A7A8A9AAABACADAEAF"`))
	f.Add(manifestJSON(session, "version", "1.0"))
	f.Add(manifestJSON(session, "version", "99"))
	f.Add(manifestJSON(session, "recorder", `"op\u00e9"`))
	f.Add(`{"format":"afr-log","version":2,"recorder":"r","session":"a0a1a2a3a4a5a6a7a8a9aaabacadaeaf","encrypted":false,"created":"2026-01-01T00:00:00Z","Session":"00000000000000000000000000000000"}`)
	f.Fuzz(func(t *testing.T, doc string) {
		m, err := recorder.ParseManifest([]byte(doc))
		if err != nil {
			return
		}
		var spec map[string]any
		if err := json.Unmarshal([]byte(doc), &spec); err != nil {
			t.Fatalf("accepted %q, which is no JSON object: %v", doc, err)
		}
		str := func(name string) string {
			s, ok := spec[name].(string)
			if !ok {
				t.Fatalf("accepted %q, whose %s is %v, not a string", doc, name, spec[name])
			}
			return s
		}
		version, ok := spec["version"].(float64)
		if !ok || version != math.Trunc(version) || int(version) != m.Version || m.Version < 1 || m.Version > format.Version {
			t.Fatalf("accepted %q with version %v, read as %d", doc, spec["version"], m.Version)
		}
		encrypted, ok := spec["encrypted"].(bool)
		if !ok || encrypted != m.Encrypted {
			t.Fatalf("accepted %q with encrypted %v, read as %v", doc, spec["encrypted"], m.Encrypted)
		}
		created, err := time.Parse(time.RFC3339Nano, str("created"))
		if err != nil || !created.Equal(m.Created) {
			t.Fatalf("accepted %q with created %v (%v), read as %v", doc, spec["created"], err, m.Created)
		}
		s := str("session")
		if str("format") != "afr-log" || str("recorder") != m.Recorder || s != hex.EncodeToString(m.Session[:]) {
			t.Fatalf("accepted %q, read as %+v", doc, m)
		}
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := recorder.ParseManifest(again)
		if err != nil || m2.Recorder != m.Recorder || m2.Session != m.Session || m2.Version != m.Version || m2.Encrypted != m.Encrypted || !m2.Created.Equal(m.Created) {
			t.Fatalf("%q written back as %s reads as %+v, %v", doc, again, m2, err)
		}
	})
}
