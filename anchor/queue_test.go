package anchor_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/anchor"
)

// TestReadQueueRefuses: a queue file that no anchorer writes is an error
// naming the file, never a queue that stops its reader with a nil
// dereference (afr status called Window on a null pending entry) or one
// read by other rules than docs/SPEC.md's.
func TestReadQueueRefuses(t *testing.T) {
	for _, doc := range []string{
		`{"format":"afr-anchor-queue","version":2,"pending":[null]}`,
		`{"format":"afr-anchor-queue","version":2,"pending":[{"epoch":0,"state":"queued"},null]}`,
		`{"format":"afr-anchor-queue","pending":[]}`,
		`{"format":"afr-anchor-queue","version":0}`,
		`{"format":"afr-anchor-queue","version":2,"chain_id":1,"chain_id":2}`,
		`{"format":"afr-anchor-queue","version":2} {}`,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, anchor.QueueFile), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: reading the queue panicked: %v", doc, r)
				}
			}()
			q, err := anchor.ReadQueue(dir)
			if err == nil {
				t.Errorf("%s: read as %+v, window %+v", doc, q, q.Window(0, time.Now()))
			}
		}()
	}
}
