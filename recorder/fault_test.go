package recorder_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
)

// bigEvent is an event of about 4 KiB, distinguished by i.
func bigEvent(i int) format.Event {
	return format.Event{Tool: "shell", Kind: format.KindToolCall, Payload: format.Payload{
		Intent: &format.Intent{Tool: "shell", Args: map[string]any{"cmd": fmt.Sprintf("echo %d %s", i, strings.Repeat("x", 4000))}}}}
}

// fill records from 8 writers into r until a write fails, and returns the
// receipts given and the failure.
func fill(t *testing.T, r *recorder.Recorder) ([]recorder.Receipt, error) {
	t.Helper()
	var mu sync.Mutex
	var rcs []recorder.Receipt
	var failure error
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				rc, err := r.Record(context.Background(), bigEvent(w<<20|i))
				mu.Lock()
				if err != nil {
					failure = err
					mu.Unlock()
					return
				}
				rcs = append(rcs, rc)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return rcs, failure
}

// A disk that fills while events are recorded: every receipted event is in
// the log when it is reopened, and no event without a receipt is (the
// recorder removed those it had appended but not made durable), so writers
// may send again exactly what got no receipt.
func TestDiskFullKeepsExactlyTheReceipted(t *testing.T) {
	for _, policy := range []recorder.SyncPolicy{recorder.SyncGroup, recorder.SyncEvent, recorder.SyncWrite} {
		t.Run(policy.String(), func(t *testing.T) {
			fs := logtest.SmallFS(t, 2<<20)
			dir := filepath.Join(fs, "log")
			// Room for reopening the log once the disk is full.
			spare := filepath.Join(fs, "spare")
			if err := os.WriteFile(spare, make([]byte, 256<<10), 0o600); err != nil {
				t.Fatal(err)
			}
			r, err := recorder.Open(dir, recorder.Options{Recorder: "disk-full", EpochSize: 16, EpochMaxAge: -1, Sync: policy})
			if err != nil {
				t.Fatal(err)
			}
			rcs, failure := fill(t, r)
			var we *recorder.WriteError
			if !errors.As(failure, &we) || !errors.Is(failure, syscall.ENOSPC) || we.Rollback != nil {
				t.Fatalf("failure %v: want a *recorder.WriteError for ENOSPC with its unacknowledged events removed", failure)
			}
			if we.Durable != uint64(len(rcs)) {
				t.Fatalf("%d receipts, %d events durable at the failure", len(rcs), we.Durable)
			}
			if err := r.Close(); !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("Close after the failure: %v, want the failure", err)
			}
			if err := os.Remove(spare); err != nil {
				t.Fatal(err)
			}
			r, err = recorder.Open(dir, recorder.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			logtest.Receipted(t, dir, rcs)
		})
	}
}

// A log directory removed, or replaced, while the recorder writes: the next
// group commit (or seal) fails sticky with a *VanishedError, no receipt is
// given for events written into the unlinked files, and Close reports it.
func TestVanishedLog(t *testing.T) {
	for _, c := range []struct {
		name   string
		sync   recorder.SyncPolicy
		vanish func(t *testing.T, dir string)
		reason string
	}{
		{"removed", recorder.SyncGroup, func(t *testing.T, dir string) { must(t, os.RemoveAll(dir)) }, "removed"},
		{"renamed", recorder.SyncGroup, func(t *testing.T, dir string) { must(t, os.Rename(dir, dir+".old")) }, "removed"},
		{"replaced", recorder.SyncEvent, func(t *testing.T, dir string) {
			must(t, os.Rename(dir, dir+".old"))
			must(t, os.Mkdir(dir, 0o700))
		}, "replaced by another file"},
		{"segment removed", recorder.SyncGroup, func(t *testing.T, dir string) {
			must(t, os.Remove(filepath.Join(dir, "records", "records-0000000000000000.seg")))
		}, "removed"},
		{"lock removed", recorder.SyncWrite, func(t *testing.T, dir string) { must(t, os.Remove(filepath.Join(dir, recorder.LockFile))) }, "removed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "log")
			r, err := recorder.Open(dir, recorder.Options{Recorder: "vanish", EpochSize: 4, EpochMaxAge: -1, Sync: c.sync})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Record(context.Background(), bigEvent(0)); err != nil {
				t.Fatal(err)
			}
			c.vanish(t, dir)
			var err2 error
			for i := 1; i <= 4 && err2 == nil; i++ { // the fourth event seals its epoch
				_, err2 = r.Record(context.Background(), bigEvent(i))
			}
			var ve *recorder.VanishedError
			if !errors.As(err2, &ve) || ve.Reason != c.reason {
				t.Fatalf("recording into a log %s: %v, want a *VanishedError (%s)", c.name, err2, c.reason)
			}
			if _, err := r.Record(context.Background(), bigEvent(9)); !errors.As(err, &ve) {
				t.Fatalf("after the failure: %v, want it again (sticky)", err)
			}
			if err := r.Close(); !errors.As(err, &ve) {
				t.Fatalf("Close: %v, want the failure", err)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestAppendThenDurable: Append puts events in the log's order at once,
// WaitDurable makes them durable, and an append whose group commit fails
// fails the recorder, so nothing is appended past it.
func TestAppendThenDurable(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "log")
	r, err := recorder.Open(dir, recorder.Options{Recorder: "append", EpochMaxAge: -1})
	must(t, err)
	var last recorder.Receipt
	for i := range 3 {
		rc, err := r.Append(bigEvent(i))
		must(t, err)
		if rc.Seq != uint64(i) {
			t.Fatalf("append %d: seq %d", i, rc.Seq)
		}
		last = rc
	}
	must(t, r.WaitDurable(ctx, last.Seq))
	if got := r.Position(); got.Durable != 3 {
		t.Fatalf("after WaitDurable: %+v, want 3 durable events", got)
	}
	must(t, os.RemoveAll(dir))
	rc, err := r.Append(bigEvent(3)) // appended: the failure is found by its commit
	must(t, err)
	var ve *recorder.VanishedError
	if err := r.WaitDurable(ctx, rc.Seq); !errors.As(err, &ve) {
		t.Fatalf("waiting for an event appended to a removed log: %v, want a *VanishedError", err)
	}
	if _, err := r.Append(bigEvent(4)); !errors.As(err, &ve) {
		t.Fatalf("appending after the failure: %v, want it again (sticky)", err)
	}
	if err := r.Close(); !errors.As(err, &ve) {
		t.Fatalf("Close: %v, want the failure", err)
	}
}
