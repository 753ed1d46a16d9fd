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
// dereference (afr status called Window on a null pending entry), one
// whose entries are not at the positions a Batcher checks them by, or one
// read by other rules than docs/SPEC.md's.
func TestReadQueueRefuses(t *testing.T) {
	for _, doc := range []string{
		`{"format":"afr-anchor-queue","version":2,"pending":[null]}`,
		`{"format":"afr-anchor-queue","version":2,"pending":[{"epoch":0,"state":"queued"},null]}`,
		`{"format":"afr-anchor-queue","pending":[]}`,
		`{"format":"afr-anchor-queue","version":0}`,
		`{"format":"afr-anchor-queue","version":2,"chain_id":1,"chain_id":2}`,
		`{"format":"afr-anchor-queue","version":2} {}`,
		// Entries that are not the epochs after the trimmed ones, one each.
		`{"format":"afr-anchor-queue","version":4,"anchored":[{"epoch":1}]}`,
		`{"format":"afr-anchor-queue","version":4,"anchored":[{"epoch":0}],"pending":[{"epoch":2,"state":"queued"}]}`,
		`{"format":"afr-anchor-queue","version":4,"trimmed":3,"pending":[{"epoch":2,"state":"queued"}]}`,
		`{"format":"afr-anchor-queue","version":4,"trimmed":3,"anchored":[{"epoch":3,"prev_root":"0x0000000000000000000000000000000000000000000000000000000000000001"}]}`,
		`{"format":"afr-anchor-queue","version":4,"trimmed_events":5}`,
		`{"format":"afr-anchor-queue","version":3,"trimmed":1,"pending":[{"epoch":1,"state":"queued"}]}`,
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
