package format

import (
	"crypto/sha256"
	"testing"
)

// TestLogID checks LogID against its definition computed independently,
// and that moving bytes between recorder and session changes it.
func TestLogID(t *testing.T) {
	var s SessionID
	for i := range s {
		s[i] = byte(i)
	}
	want := sha256.Sum256(append([]byte("AFR-v1-log-id\x00\x00\x05ops-1"), s[:]...))
	if got := LogID("ops-1", s); got != Digest(want) {
		t.Fatalf("LogID = %s, want %s", got, Digest(want))
	}
	// "ops-1" + session vs "ops-10" + a session starting one byte later.
	var shifted SessionID
	copy(shifted[:], s[1:])
	if LogID("ops-1", s) == LogID("ops-1\x00", shifted) {
		t.Fatal("the recorder/session boundary does not separate log ids")
	}
	if LogID("ops-1", s) == LogID("ops-2", s) || LogID("ops-1", s) == LogID("ops-1", shifted) {
		t.Fatal("different logs share an id")
	}
}
