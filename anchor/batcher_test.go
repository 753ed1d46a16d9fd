package anchor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

// checkBatched verifies the log in dir against the operator's anchors —
// per log and in its batches, with the batches file — on the chain: every
// epoch anchored, the verdict verified.
func checkBatched(t *testing.T, dir string, c chain.Client, d *chain.Deployment, op common.Address, batches string) {
	t.Helper()
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	id, err := l.LogID()
	if err != nil {
		t.Fatal(err)
	}
	epochs, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	src := onchain.LogAnchors{Client: c, Contract: d.EpochAnchor, Operator: op, LogID: id, FromBlock: d.Block, BatchesFile: batches}
	rep, err := verifier.VerifyLog(context.Background(), l, src, verifier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != verifier.Verified || rep.AnchoredEpochs != uint64(len(epochs)) {
		t.Fatalf("%s: verdict %s, %d of %d epochs anchored: %v", dir, rep.Verdict, rep.AnchoredEpochs, len(epochs), rep.Findings)
	}
}

// gasPerEpoch is the gas of the confirmed batches per log-epoch they hold.
func gasPerEpoch(q anchor.Queue) float64 {
	var gas, n uint64
	for _, b := range q.Anchored {
		gas, n = gas+b.GasUsed, n+b.Count
	}
	return float64(gas) / float64(n)
}

// Many logs recorded at once by live recorders are anchored in aggregate
// batches by one Batcher, in both publication modes: every epoch of every
// log ends up in exactly one confirmed batch, far fewer transactions than
// epochs, and every log verifies against the chain.
func TestBatcherLiveEmbedded(t *testing.T) {
	for _, mode := range []struct {
		name    string
		publish anchor.Publication
	}{{"file", anchor.PublishFile}, {"events", anchor.PublishEvents}} {
		t.Run(mode.name, func(t *testing.T) {
			e := embeddedChain(t)
			key := e.Keys()[0]
			d := deployAnchor(t, e.Client(), key)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			file := filepath.Join(t.TempDir(), "batches.jsonl")
			b, err := anchor.OpenBatcher(ctx, e.Client(), anchor.BatchOptions{Options: anchor.Options{Contract: d.EpochAnchor, Key: key,
				FromBlock: d.Block, Poll: 20 * time.Millisecond, Logf: logf(t)}, BatchesFile: file, Publish: mode.publish, MaxEntries: 30, MaxWait: 100 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			const logs = 8
			dirs := make([]string, logs)
			recs := make([]*recorder.Recorder, logs)
			for i := range recs {
				dirs[i] = t.TempDir()
				recs[i] = logtest.Open(t, dirs[i], recorder.Options{Recorder: fmt.Sprintf("agent-%d", i), EpochSize: 20, Sync: recorder.SyncNone})
				if _, err := b.AddLog(anchor.LogSource{Dir: dirs[i], Sealed: recs[i].Sealed(), Position: recs[i].Position}); err != nil {
					t.Fatal(err)
				}
			}
			done := make(chan error, 1)
			go func() { done <- b.Run(ctx) }()
			var wg sync.WaitGroup
			for i, r := range recs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for _, ev := range workload.Generate(uint64(i), 200) {
						if _, err := r.Record(ctx, ev); err != nil {
							t.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			if err := b.Drain(ctx); err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				if err := r.Close(); err != nil {
					t.Fatal(err)
				}
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			q := b.Queue()
			var epochs uint64
			for _, an := range q.Anchored {
				epochs += an.Count
			}
			if epochs != logs*10 || len(q.Pending) != 0 {
				t.Fatalf("%d epochs in %d confirmed batches (%d pending), want %d", epochs, len(q.Anchored), len(q.Pending), logs*10)
			}
			if len(q.Anchored) >= logs*10/2 {
				t.Errorf("%d batches for %d epochs: epochs were not aggregated", len(q.Anchored), epochs)
			}
			for _, an := range q.Anchored {
				if an.Count > 30 {
					t.Errorf("batch %d holds %d epochs, over MaxEntries 30", an.Epoch, an.Count)
				}
			}
			t.Logf("%d epochs of %d logs in %d batches, %.0f gas per log-epoch", epochs, logs, len(q.Anchored), gasPerEpoch(q))
			for _, dir := range dirs {
				checkBatched(t, dir, e.Client(), d, chain.Address(key), file)
			}
			// Event publication needs no file: the contents are on chain.
			if mode.publish == anchor.PublishEvents {
				checkBatched(t, dirs[0], e.Client(), d, chain.Address(key), "")
			}
		})
	}
}

// runBatcher opens a Batcher on the logs in dirs, drains it and returns
// its queue.
func runBatcher(t *testing.T, c chain.Client, opts anchor.BatchOptions, dirs ...string) anchor.Queue {
	t.Helper()
	q, err := drainBatcher(c, opts, dirs...)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func drainBatcher(c chain.Client, opts anchor.BatchOptions, dirs ...string) (anchor.Queue, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := anchor.OpenBatcher(ctx, c, opts)
	if err != nil {
		return anchor.Queue{}, err
	}
	defer b.Close()
	for _, dir := range dirs {
		if _, err := b.AddLog(anchor.LogSource{Dir: dir}); err != nil {
			return anchor.Queue{}, err
		}
	}
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	err = b.Drain(ctx)
	cancel()
	return b.Queue(), errors.Join(err, <-done)
}

// After a crash between appending a batch to the batches file and
// submitting it, the Batcher submits that line as it is — it does not build
// another batch with its number — and cuts a line torn by the crash.
func TestBatcherResumesUnanchoredLine(t *testing.T) {
	e := embeddedChain(t)
	key := e.Keys()[1]
	d := deployAnchor(t, e.Client(), key)
	dirs := make([]string, 3)
	for i := range dirs {
		dirs[i] = recordAs(t, format.SessionID{byte(i + 1)}, uint64(i), 60, 20) // 3 epochs each
	}
	file := filepath.Join(t.TempDir(), "batches.jsonl")
	opts := anchor.BatchOptions{Options: anchor.Options{Contract: d.EpochAnchor, Key: key, FromBlock: d.Block, Logf: logf(t)}, BatchesFile: file}
	if q := runBatcher(t, e.Client(), opts, dirs[0]); len(q.Anchored) != 1 || q.Anchored[0].Count != 3 {
		t.Fatalf("first run: %+v", q.Anchored)
	}
	// The crash: batch 1 written (log 1's epochs 0 and 1 only), not
	// submitted, and the start of a line torn off after it.
	lines, err := format.ReadBatchesFile(file)
	if err != nil {
		t.Fatal(err)
	}
	l1, err := recorder.OpenLog(dirs[1])
	if err != nil {
		t.Fatal(err)
	}
	as, err := verifier.AnchorsFromLog(l1)
	if err != nil {
		t.Fatal(err)
	}
	id1, _ := l1.LogID()
	written := []format.BatchEntry{{Log: id1, Epoch: 0, Root: as[0].Root}, {Log: id1, Epoch: 1, Root: as[1].Root, PrevRoot: as[0].Root}}
	root1, err := format.AppendBatch(file, 1, lines[0].Root, written)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"batch": 2, "root": "0x12`); err != nil {
		t.Fatal(err)
	}
	f.Close()

	q := runBatcher(t, e.Client(), opts, dirs...)
	if len(q.Anchored) != 3 || q.Anchored[1].Root != root1 || q.Anchored[1].Count != 2 || q.Anchored[2].Count != 1+3 {
		t.Fatalf("after the crash: batches %+v; want batch 1 as written (root %s, 2 epochs), then log 1's last epoch and log 2's three", q.Anchored, root1)
	}
	lines, err = format.ReadBatchesFile(file)
	if err != nil || len(lines) != 3 {
		t.Fatalf("batches file after the crash: %d lines, %v", len(lines), err)
	}
	for _, dir := range dirs {
		checkBatched(t, dir, e.Client(), d, chain.Address(key), file)
	}
}

// The Batcher's state is checked when it opens: a batches file that is not
// one chain of batches, or that lost lines its queue holds, is refused
// with an error saying what to do, and so is a batch chain that another
// writer extended with the same key.
func TestBatcherRefusesInconsistentState(t *testing.T) {
	e := embeddedChain(t)
	key := e.Keys()[2]
	d := deployAnchor(t, e.Client(), key)
	dir := record(t, 40, 20)
	file := filepath.Join(t.TempDir(), "batches.jsonl")
	opts := anchor.BatchOptions{Options: anchor.Options{Contract: d.EpochAnchor, Key: key, FromBlock: d.Block, Logf: logf(t)}, BatchesFile: file}
	runBatcher(t, e.Client(), opts, dir)
	ctx := context.Background()

	saved, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := anchor.OpenBatcher(ctx, e.Client(), opts); err == nil || !strings.Contains(err.Error(), "lost lines") {
		t.Fatalf("a batches file that lost its lines: %v", err)
	}
	if err := os.WriteFile(file, append(saved, saved...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := anchor.OpenBatcher(ctx, e.Client(), opts); err == nil || !strings.Contains(err.Error(), "not one chain of batches") {
		t.Fatalf("a batches file with batch 0 twice: %v", err)
	}
	if err := os.WriteFile(file, saved, 0o644); err != nil {
		t.Fatal(err)
	}

	// Another writer with the same key and its own batches file: its
	// batch 0 is not ours.
	other := record(t, 40, 20)
	opts2 := opts
	opts2.BatchesFile = filepath.Join(t.TempDir(), "other.jsonl")
	b, err := anchor.OpenBatcher(ctx, e.Client(), opts2)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.AddLog(anchor.LogSource{Dir: other}); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	err = b.Run(rctx)
	var fe *anchor.ForeignAnchorError
	if !errors.As(err, &fe) || !fe.Log.IsZero() || fe.Epoch != 0 || !strings.Contains(err.Error(), "batch 0 of the batch chain") {
		t.Fatalf("a second batch chain for one key: %v, want a ForeignAnchorError for batch 0", err)
	}
}

// One key anchors several logs per log and several in batches, at the
// same time: the per-log anchorers and the Batcher share the key's nonces
// (each takes the pending nonce and repairs a clash as a nonce used by
// another sender) and every log verifies.
func TestOneKeyPerLogAndBatchedEmbedded(t *testing.T) {
	e := embeddedChain(t)
	key := e.Keys()[3]
	d := deployAnchor(t, e.Client(), key)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dirs := make([]string, 4)
	for i := range dirs {
		dirs[i] = recordAs(t, format.SessionID{byte(i + 1)}, uint64(i), 100, 20)
	}
	file := filepath.Join(t.TempDir(), "batches.jsonl")
	opts := anchor.Options{Contract: d.EpochAnchor, Key: key, FromBlock: d.Block, Poll: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond,
		ResubmitAfter: time.Second, Logf: logf(t)}
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for _, dir := range dirs[:2] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := anchor.Open(ctx, dir, e.Client(), opts)
			if err != nil {
				errs <- err
				return
			}
			defer a.Close()
			rctx, stop := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- a.Run(rctx, nil) }()
			err = a.Drain(ctx)
			stop()
			errs <- errors.Join(err, <-done)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		q, err := drainBatcher(e.Client(), anchor.BatchOptions{Options: opts, BatchesFile: file}, dirs[2:]...)
		if err == nil && len(q.Anchored) == 0 {
			err = errors.New("no batch confirmed")
		}
		errs <- err
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range dirs {
		checkBatched(t, dir, e.Client(), d, chain.Address(key), file)
	}
}

// A reorg deeper than the confirmation depth (the embedded chain reverted
// to before the first batch) takes confirmed batches off the chain: the
// Batcher sends them again as they were — the first, which its queue no
// longer lists (KeepAnchored 1), re-read from its batches file — in event
// publication reading the entries of batches it no longer holds in memory
// from its batches file, and the logs verify from the chain alone.
func TestBatcherDeepReorgEmbedded(t *testing.T) {
	e := embeddedChain(t)
	key := e.Keys()[2]
	d := deployAnchor(t, e.Client(), key)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first := recordAs(t, format.SessionID{1}, 1, 40, 20)
	second := recordAs(t, format.SessionID{2}, 2, 40, 20)
	snap, err := e.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "batches.jsonl")
	b, err := anchor.OpenBatcher(ctx, e.Client(), anchor.BatchOptions{Options: anchor.Options{Contract: d.EpochAnchor, Key: key, FromBlock: d.Block,
		Poll: 20 * time.Millisecond, KeepAnchored: 1, Logf: logf(t)}, BatchesFile: file, Publish: anchor.PublishEvents})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	for _, dir := range []string{first, second} { // one batch each
		if _, err := b.AddLog(anchor.LogSource{Dir: dir}); err != nil {
			t.Fatal(err)
		}
		if err := b.Drain(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if q := b.Queue(); q.Confirmed() != 2 || q.Trimmed != 1 {
		t.Fatalf("%d batches confirmed (%d trimmed) before the reorg, want 2 (1)", q.Confirmed(), q.Trimmed)
	}
	if err := e.Revert(ctx, snap); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the deep reorg noticed", func() bool { return len(b.Queue().Pending) > 0 })
	if err := b.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if q := b.Queue(); q.Confirmed() != 2 || len(q.Anchored) != 1 || q.Anchored[0].Submissions == 0 {
		t.Fatalf("after the reorg: %d confirmed, %+v", q.Confirmed(), q.Anchored)
	}
	for _, dir := range []string{first, second} {
		checkBatched(t, dir, e.Client(), d, chain.Address(key), "")
	}
}

// A Batcher whose queue lists only its last confirmed batch (KeepAnchored
// 1) reopens on it: the queue's entries are checked against the lines of
// the batches file from the trimmed offset on, and the trimmed root
// against the line before them; a trimmed root the file does not hold is
// refused.
func TestBatcherTrimmedQueueEmbedded(t *testing.T) {
	e := embeddedChain(t)
	key := e.Keys()[3]
	d := deployAnchor(t, e.Client(), key)
	file := filepath.Join(t.TempDir(), "batches.jsonl")
	opts := anchor.BatchOptions{Options: anchor.Options{Contract: d.EpochAnchor, Key: key, FromBlock: d.Block, KeepAnchored: 1, Logf: logf(t)}, BatchesFile: file}
	var dirs []string
	for i := range 3 { // one batch per run, each run a reopening
		dirs = append(dirs, recordAs(t, format.SessionID{byte(i + 1)}, uint64(i), 40, 20))
		q := runBatcher(t, e.Client(), opts, dirs...)
		if q.Confirmed() != uint64(i+1) || len(q.Anchored) != 1 || q.Trimmed != uint64(i) || q.Anchored[0].Epoch != uint64(i) {
			t.Fatalf("run %d: %d confirmed, %d trimmed, anchored %+v", i, q.Confirmed(), q.Trimmed, q.Anchored)
		}
	}
	for _, dir := range dirs {
		checkBatched(t, dir, e.Client(), d, chain.Address(key), file)
	}
	path := file + ".queue.json"
	saved := mustRead(t, path)
	var doc map[string]any
	if err := json.Unmarshal(saved, &doc); err != nil {
		t.Fatal(err)
	}
	other := "0x" + strings.Repeat("ab", 32)
	doc["trimmed_root"] = other
	doc["anchored"].([]any)[0].(map[string]any)["prev_root"] = other
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := anchor.OpenBatcher(context.Background(), e.Client(), opts); err == nil || !strings.Contains(err.Error(), "batch 1: the queue holds root 0xabab") {
		t.Fatalf("a trimmed root the batches file does not hold: %v", err)
	}
}
