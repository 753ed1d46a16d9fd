package world_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/world"
)

// runDirs are the directories the World reopened its log in after a
// Revert (Config.Dir/run-N).
func runDirs(t *testing.T, dir string) []string {
	t.Helper()
	runs, err := filepath.Glob(filepath.Join(dir, "run-*"))
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// A spec that does not use the log costs the log nothing: Revert copies and
// reopens nothing for it. A spec that records after such specs records the
// same event, and anchors the same root, as one right after the Revert.
func TestRevertReopensTheLogOnlyWhenUsed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := newWorld(t, world.Config{Dir: dir})
	s, err := w.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	recordSpec := func() (recorder.Receipt, format.Digest) {
		t.Helper()
		if err := w.Revert(ctx, s); err != nil {
			t.Fatal(err)
		}
		rc, err := w.Record(ctx, format.Event{Tool: "spec", Kind: format.KindToolCall})
		if err != nil {
			t.Fatal(err)
		}
		anchored, err := w.SealAndAnchor(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(anchored) != 1 {
			t.Fatalf("anchored %d epochs, want 1", len(anchored))
		}
		return rc, anchored[0].Root
	}
	firstRc, firstRoot := recordSpec()

	for round := range 3 {
		if err := w.Revert(ctx, s); err != nil {
			t.Fatal(err)
		}
		if runs := runDirs(t, dir); len(runs) != 0 {
			t.Fatalf("round %d: after Revert, the log was reopened in %v before any use", round, runs)
		}
		if res := w.Send(ctx, w.Agent(), w.Counter(), nil, w.CounterCall(1).Data); !res.Succeeded() {
			t.Fatalf("round %d: %s", round, res)
		}
		if c := count(t, w); c != 1 {
			t.Fatalf("round %d: Counter.count() = %d, want 1", round, c)
		}
		if runs := runDirs(t, dir); len(runs) != 0 {
			t.Fatalf("round %d: a spec that only sent a transaction reopened the log in %v", round, runs)
		}
	}

	rc, root := recordSpec()
	if rc != firstRc || root != firstRoot {
		t.Fatalf("after specs that did not record: receipt %+v root %x, want %+v %x (as right after the Revert)", rc, root, firstRc, firstRoot)
	}
	if runs := runDirs(t, dir); len(runs) != 1 {
		t.Fatalf("log directories after a recording spec: %v, want one", runs)
	}
}

// A snapshot taken while the log is unused since a Revert shares the log
// saved by that Revert's snapshot: reverting to it restores the new chain
// state with that log, which records and verifies.
func TestSnapshotOfAnUnusedLog(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, world.Config{})
	base, err := w.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Revert(ctx, base); err != nil {
		t.Fatal(err)
	}
	if res := w.Send(ctx, w.Agent(), w.Counter(), nil, w.CounterCall(3).Data); !res.Succeeded() {
		t.Fatal(res)
	}
	bumped, err := w.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		if err := w.Revert(ctx, bumped); err != nil {
			t.Fatal(err)
		}
		if c := count(t, w); c != 3 {
			t.Fatalf("round %d: Counter.count() = %d after Revert, want 3", round, c)
		}
		if n := w.Position().Next; n != 0 {
			t.Fatalf("round %d: the log has %d events after Revert, want 0", round, n)
		}
		p, err := w.Propose(ctx, "agent", w.CounterCall(2))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.RecordOutcome(ctx, p, w.Execute(ctx, p)); err != nil {
			t.Fatal(err)
		}
		v, err := w.SealAndVerify(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if v.Verdict != verifier.Verified || v.Report.Executions.Matched != 1 {
			t.Fatalf("round %d: verdict %s, %d executions matched, findings %v; want verified, 1", round, v.Verdict, v.Report.Executions.Matched, v.Findings)
		}
	}
}

// Record may be called from several goroutines: after a Revert, the first
// of them reopens the log and the others wait for it, so every event is
// recorded once, in one log, with gapless sequence numbers.
func TestConcurrentFirstRecordAfterRevert(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, world.Config{})
	s, err := w.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Revert(ctx, s); err != nil {
		t.Fatal(err)
	}
	const n = 8
	seqs := make([]uint64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc, err := w.Record(ctx, format.Event{Tool: "concurrent", Kind: format.KindToolCall})
			seqs[i], errs[i] = rc.Seq, err
		}()
	}
	wg.Wait()
	seen := map[uint64]bool{}
	for i, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
		if seqs[i] >= n || seen[seqs[i]] {
			t.Fatalf("sequence numbers %v: want each of 0..%d once", seqs, n-1)
		}
		seen[seqs[i]] = true
	}
	if p := w.Position(); p.Next != n {
		t.Fatalf("the log has %d events, want %d", p.Next, n)
	}
}
