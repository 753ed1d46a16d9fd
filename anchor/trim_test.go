package anchor_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
)

// The queue file stays bounded however many epochs are confirmed: it lists
// the last KeepAnchored confirmed anchors and summarises the ones before
// (it grew by ~0.4 KB per confirmed epoch, and was rewritten whole at every
// change). Epochs are recorded, sealed and anchored in rounds into one log;
// after the first round the file's size no longer grows, while the window
// and the confirmed count still cover every epoch.
func TestQueueStaysBoundedEmbedded(t *testing.T) {
	const keep, rounds, perRound, epochSize = 16, 8, 50, 2
	e := embeddedChain(t)
	key := e.Keys()[0]
	d := deployAnchor(t, e.Client(), key)
	dir := t.TempDir()
	r := logtest.Open(t, dir, recorder.Options{Recorder: "bounded", EpochSize: epochSize, EpochMaxAge: -1, Sync: recorder.SyncNone})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := anchor.Open(ctx, dir, e.Client(), anchor.Options{Contract: d.EpochAnchor, Key: key, FromBlock: d.Block, Confirmations: 1,
		MaxRun: 8, KeepAnchored: keep, Position: r.Position, Logf: logf(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, r.Sealed()) }()
	gen := workload.New(5)
	var sizes []int64
	for range rounds {
		for range perRound * epochSize {
			if _, err := r.Record(ctx, gen.Next()); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(dir, anchor.QueueFile))
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, fi.Size())
	}
	t.Logf("queue file size after each %d epochs: %v bytes", perRound, sizes)
	for i, n := range sizes[1:] {
		if n > sizes[0]+sizes[0]/20 {
			t.Fatalf("queue file of %d bytes after %d epochs, %d after %d: it grows with the confirmed epochs", n, (i+2)*perRound, sizes[0], perRound)
		}
	}
	q, err := anchor.ReadQueue(dir)
	if err != nil {
		t.Fatal(err)
	}
	const total = rounds * perRound
	if q.Confirmed() != total || len(q.Anchored) != keep || q.Trimmed != total-keep || q.TrimmedEvents != (total-keep)*epochSize || len(q.Pending) != 0 {
		t.Fatalf("queue: %d confirmed, %d listed, %d trimmed through event %d, %d pending", q.Confirmed(), len(q.Anchored), q.Trimmed, q.TrimmedEvents, len(q.Pending))
	}
	if w := a.Window(); w.Events != 0 || w.LastConfirmed == nil || *w.LastConfirmed != total-1 {
		t.Fatalf("window %+v", w)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	checkAnchored(t, dir, e.Client(), d.EpochAnchor, chain.Address(key))
}

// A reorg deeper than the confirmed anchors the queue lists re-queues the
// trimmed ones from the log's epoch headers, and all are anchored again;
// epoch headers that do not end at the queue's trimmed root (the log
// re-sealed differently) stop the anchorer with ErrDeepReorg instead.
func TestDeepReorgPastTrimmedEmbedded(t *testing.T) {
	e := embeddedChain(t)
	key := e.Keys()[1]
	d := deployAnchor(t, e.Client(), key)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	snap, err := e.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := record(t, 200, 5) // 40 epochs
	opts := anchor.Options{Contract: d.EpochAnchor, Key: key, FromBlock: d.Block, Confirmations: 1, MaxRun: 8, KeepAnchored: 4, Poll: 20 * time.Millisecond, Logf: logf(t)}
	if q, err := drainLog(t, e.Client(), dir, opts); err != nil || q.Trimmed != 36 {
		t.Fatalf("before the reorg: %v, %d trimmed", err, q.Trimmed)
	}
	path := filepath.Join(dir, anchor.QueueFile)
	saved := mustRead(t, path)
	if err := e.Revert(ctx, snap); err != nil {
		t.Fatal(err)
	}
	// The chain is back to the contract as deployed: it holds none of the
	// log's epochs.

	// The log re-sealed differently: its epoch 35 is not the trimmed root.
	var doc map[string]any
	if err := json.Unmarshal(saved, &doc); err != nil {
		t.Fatal(err)
	}
	other := "0x" + strings.Repeat("cd", 32)
	doc["trimmed_root"] = other
	doc["anchored"].([]any)[0].(map[string]any)["prev_root"] = other
	b, err := json.Marshal(doc)
	if err != nil || os.WriteFile(path, b, 0o600) != nil {
		t.Fatal(err)
	}
	if _, err := drainLog(t, e.Client(), dir, opts); !errors.Is(err, anchor.ErrDeepReorg) || !strings.Contains(err.Error(), "epochs 0..35") || !strings.Contains(err.Error(), other) {
		t.Fatalf("a log whose headers do not end at the trimmed root: %v, want ErrDeepReorg", err)
	}

	if err := os.WriteFile(path, saved, 0o600); err != nil {
		t.Fatal(err)
	}
	q, err := drainLog(t, e.Client(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if q.Confirmed() != 40 || q.Trimmed != 36 || q.Anchored[0].Submissions == 0 {
		t.Fatalf("after the reorg: %d confirmed, %d trimmed, %+v", q.Confirmed(), q.Trimmed, q.Anchored[0])
	}
	checkAnchored(t, dir, e.Client(), d.EpochAnchor, chain.Address(key))
}
