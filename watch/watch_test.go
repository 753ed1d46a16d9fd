package watch_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/watch"
)

// scenarios run on every chain: each deploys its own EpochAnchor.
var scenarios = []struct {
	name string
	run  func(t *testing.T, tc testChain)
}{
	{"clean", clean},
	{"late", late},
	{"withheld", withheld},
	{"conflicts", conflicts},
	{"reorg", reorg},
	{"replica", dirReplica},
	{"checkpoints", checkpoints},
	{"witness", witness},
}

func runScenarios(t *testing.T, start func(*testing.T) testChain) {
	tc := start(t)
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) { s.run(t, tc) })
	}
}

func TestWatchInProcess(t *testing.T) { runScenarios(t, inProcess) }
func TestWatchEmbedded(t *testing.T)  { runScenarios(t, embeddedChain) }
func TestWatchAnvil(t *testing.T)     { runScenarios(t, anvilProcess) }

// An honest operator — per-log anchors within the window, batches with
// their contents, a checkpoint the chain agrees with, a replica that holds
// the log — raises nothing, however often the watcher polls; nor do its
// logs the watcher does not watch, whatever their anchors.
func clean(t *testing.T, tc testChain) {
	r := newRig(t, tc)
	l := logtest.Write(t, recorder.Options{Recorder: "clean", EpochSize: 10, Sync: recorder.SyncNone, EpochMaxAge: -1}, workload.Generate(1, 30))
	a, err := l.LogID()
	if err != nil {
		t.Fatal(err)
	}
	as, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	ra := checkpoint.Roots(as)
	b, rb := logID("clean-b"), roots(2, "b")
	k := newNoteKey(t, 1, "op.example")
	cp := r.publish(k, a, ra, 3)
	w := r.watcher([]watch.Log{
		{ID: a, Window: time.Minute, Checkpoint: cp, Policy: k.policy(t), Replica: watch.Dir(l.Dir)},
		{ID: b, Window: time.Minute},
	}, watch.Options{})
	r.poll(w)
	for e := range uint64(3) {
		r.anchor(a, e, ra)
		r.poll(w)
	}
	u := logID("clean-unwatched")
	r.anchor(u, 0, roots(1, "u"))
	b0 := r.batch(0, format.Digest{}, []format.BatchEntry{entry(b, 0, rb), entry(u, 0, roots(1, "u'"))}, true)
	r.poll(w)
	r.batch(1, b0, []format.BatchEntry{entry(b, 1, rb)}, true)
	r.wait(25 * time.Second)
	r.poll(w)
	r.wait(25 * time.Second)
	r.poll(w)
	if s := activeKinds(w); s != "" {
		t.Fatalf("active alarms on an honest operator: %s", s)
	}
	m := metrics(t, w)
	for name, want := range map[string]float64{
		`afr_watch_anchored_epoch{log="` + a.String() + `"}`:  2,
		`afr_watch_anchored_epoch{log="` + b.String() + `"}`:  1,
		`afr_watch_checkpoint_size{log="` + a.String() + `"}`: 3,
		`afr_watch_replica_epochs{log="` + a.String() + `"}`:  3,
		`afr_watch_alarms_raised_total{alarm="anchor_late"}`:  0,
		`afr_watch_alarms_active{alarm="anchor_conflict"}`:    0,
		`afr_watch_polls_total`:                               7,
	} {
		if got, ok := m[name]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, want)
		}
	}
	if v, ok := m[`afr_watch_anchored_epoch{log="`+u.String()+`"}`]; ok {
		t.Errorf("an unwatched log has metrics (anchored epoch %v)", v)
	}
}

// An operator that anchors late: no anchor within the window, and
// checkpointed epochs without anchors a window after they were published.
// Each alarm is raised once, and cleared once the anchors come. A log
// that may idle raises nothing for its silence; one that may not and was
// never anchored raises anchor_late.
func late(t *testing.T, tc testChain) {
	r := newRig(t, tc)
	a, idle, silent := logID("late-a"), logID("late-idle"), logID("late-silent")
	ra := roots(3, "a")
	k := newNoteKey(t, 2, "op.example")
	r.anchor(a, 0, ra)
	cp := r.publish(k, a, ra, 3)
	w := r.watcher([]watch.Log{
		{ID: a, Window: time.Minute, Checkpoint: cp, Policy: k.policy(t)},
		{ID: idle, Window: time.Minute, MayIdle: true},
		{ID: silent, Window: time.Minute},
	}, watch.Options{})
	r.poll(w)
	r.wait(59 * time.Second)
	r.poll(w)
	r.wait(2 * time.Second)
	evs := r.poll(w, "raised anchor_late", "raised anchor_late", "raised checkpoint_unanchored")
	raisedAt := r.now
	for _, ev := range evs {
		if ev.Alarm == watch.KindCheckpointUnanchored && (ev.Epoch == nil || *ev.Epoch != 1 || !strings.Contains(ev.Detail, "2 epochs")) {
			t.Errorf("checkpoint_unanchored names epoch %v: %s, want 2 epochs from epoch 1", ev.Epoch, ev.Detail)
		}
	}
	r.poll(w) // deduplicated: nothing new
	r.anchor(a, 1, ra)
	r.poll(w, "cleared anchor_late")
	r.anchor(a, 2, ra)
	evs = r.poll(w, "cleared checkpoint_unanchored")
	if evs[0].RaisedAt == nil || !evs[0].RaisedAt.Equal(raisedAt) {
		t.Errorf("cleared line without the time it was raised: %+v", evs[0])
	}
	if got := activeKinds(w); got != "anchor_late" {
		t.Fatalf("active alarms %s, want the never-anchored log's anchor_late", got)
	}
	if act := w.Active(); act[0].Log != silent.String() {
		t.Fatalf("anchor_late of log %s, want %s", act[0].Log, silent)
	}
}

// A batch anchored without its contents anywhere is batch_withheld until
// the operator publishes them in its batches file.
func withheld(t *testing.T, tc testChain) {
	r := newRig(t, tc)
	a, ra := logID("withheld-a"), roots(1, "a")
	file := filepath.Join(r.dir, "batches.jsonl")
	entries := []format.BatchEntry{entry(a, 0, ra)}
	r.batch(0, format.Digest{}, entries, false)
	w := r.watcherOf(watch.Operator{Address: chain.Address(r.key), BatchesFile: file, Logs: []watch.Log{{ID: a}}}, watch.Options{})
	r.poll(w, "raised batch_withheld")
	r.poll(w)
	if _, err := format.AppendBatch(file, 0, format.Digest{}, entries); err != nil {
		t.Fatal(err)
	}
	r.poll(w, "cleared batch_withheld")
}

// Conflicting anchors: a per-log anchor and a batch entry with two roots
// for one epoch; a batch entry whose back-pointer is not the per-log
// root before it; one epoch in two batches with two roots; a checkpoint
// whose leaf is not the anchored root. Each is one anchor_conflict naming
// where the roots were found.
func conflicts(t *testing.T, tc testChain) {
	r := newRig(t, tc)
	a, b, c, d := logID("conflict-a"), logID("conflict-b"), logID("conflict-c"), logID("conflict-d")
	ra, rb, rc, rd := roots(2, "a"), roots(2, "b"), roots(1, "c"), roots(1, "d")
	r.anchor(a, 0, ra)
	r.anchor(b, 0, rb)
	r.anchor(d, 0, rd)
	wrongB := entry(b, 1, rb)
	wrongB.PrevRoot = rb[1]
	b0 := r.batch(0, format.Digest{}, []format.BatchEntry{entry(a, 0, roots(1, "a'")), wrongB, entry(c, 0, rc)}, true)
	r.batch(1, b0, []format.BatchEntry{entry(c, 0, roots(1, "c'"))}, true)
	k := newNoteKey(t, 3, "op.example")
	cp := r.publish(k, d, roots(1, "d'"), 1)
	w := r.watcher([]watch.Log{{ID: a}, {ID: b}, {ID: c}, {ID: d, Checkpoint: cp, Policy: k.policy(t)}}, watch.Options{})
	evs := r.poll(w, "raised anchor_conflict", "raised anchor_conflict", "raised anchor_conflict", "raised anchor_conflict")
	byLog := map[string]watch.Event{}
	for _, ev := range evs {
		byLog[ev.Log] = ev
	}
	for id, want := range map[format.Digest]string{a: "chain tx", b: "back-pointer", c: "anchored twice", d: "checkpoint"} {
		if ev, ok := byLog[id.String()]; !ok || !strings.Contains(ev.Detail, want) {
			t.Errorf("log %s: conflict %q, want one mentioning %q", id, ev.Detail, want)
		}
	}
	r.poll(w)
}

// A reorg that takes an anchor away raises anchor_reorged until the epoch
// is anchored again with the same root; one that lets another root take
// its place raises anchor_replaced.
func reorg(t *testing.T, tc testChain) {
	r := newRig(t, tc)
	a, ra := logID("reorg-a"), roots(3, "a")
	r.anchor(a, 0, ra)
	before := r.snapshot()
	r.anchor(a, 1, ra)
	w := r.watcher([]watch.Log{{ID: a}}, watch.Options{})
	r.poll(w)
	r.revert(before)
	evs := r.poll(w, "raised anchor_reorged")
	if ev := evs[0]; ev.Epoch == nil || *ev.Epoch != 1 || ev.Expected != ra[1].String() {
		t.Errorf("reorged epoch %v root %s, want epoch 1 root %s", ev.Epoch, ev.Expected, ra[1])
	}
	r.anchor(a, 1, ra)
	r.poll(w, "cleared anchor_reorged")
	before = r.snapshot()
	r.anchor(a, 2, ra)
	r.poll(w)
	r.revert(before)
	other := append(ra[:2:2], roots(1, "a'")...)
	r.anchor(a, 2, other)
	evs = r.poll(w, "raised anchor_replaced")
	if ev := evs[0]; ev.Expected != ra[2].String() || ev.Found != other[2].String() {
		t.Errorf("replaced %s by %s, want %s by %s", ev.Expected, ev.Found, ra[2], other[2])
	}
}

// A replica kept as a directory: behind the chain and not advancing for
// longer than its bound is replica_stalled until it catches up; one whose
// last epoch has another root than the chain's is replica_conflict.
func dirReplica(t *testing.T, tc testChain) {
	r := newRig(t, tc)
	copyDir := filepath.Join(t.TempDir(), "replica")
	dir, a, _ := r.replicatedLog(2, func(dir string) { mirror(t, dir, copyDir) })
	w := r.watcher([]watch.Log{{ID: a, Replica: watch.Dir(copyDir), ReplicaStall: time.Minute}}, watch.Options{})
	r.poll(w)
	r.wait(61 * time.Second)
	ev := r.poll(w, "raised replica_stalled")[0]
	if ev.Epoch == nil || *ev.Epoch != 1 || !strings.Contains(ev.Detail, "holds 1 epochs, the chain and checkpoint show 3") {
		t.Errorf("stalled replica: epoch %v, %s", ev.Epoch, ev.Detail)
	}
	mirror(t, dir, copyDir)
	r.poll(w, "cleared replica_stalled")
	other := logtest.Write(t, recorder.Options{Recorder: "replica", EpochSize: 10, Sync: recorder.SyncNone, EpochMaxAge: -1}, workload.Generate(3, 10))
	mirror(t, other.Dir, copyDir)
	r.poll(w, "raised replica_conflict")
}

// mirror makes dst a copy of the log directory src.
func mirror(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// Checkpoints: one that forks from the checkpoint seen before is
// checkpoint_fork, one not signed by the operator's key is
// checkpoint_invalid, and so is one whose leaves do not match it two
// polls running (the operator replaces leaves, then note: one poll in
// between is not judged).
func checkpoints(t *testing.T, tc testChain) {
	r := newRig(t, tc)
	a, ra := logID("checkpoints-a"), roots(3, "a")
	k := newNoteKey(t, 4, "op.example")
	cp := r.publish(k, a, ra, 2)
	w := r.watcher([]watch.Log{{ID: a, Checkpoint: cp, Policy: k.policy(t)}}, watch.Options{})
	r.poll(w)
	fork := append(ra[:1:1], roots(2, "a'")...)
	r.publish(k, a, fork, 3)
	ev := r.poll(w, "raised checkpoint_fork")[0]
	if ev.Epoch == nil || *ev.Epoch != 1 || ev.Expected != ra[1].String() || ev.Found != fork[1].String() {
		t.Errorf("fork at epoch %v: %s → %s", ev.Epoch, ev.Expected, ev.Found)
	}
	r.publish(k, a, ra, 3)
	r.poll(w, "cleared checkpoint_fork")
	r.publish(newNoteKey(t, 5, "op.example"), a, ra, 3)
	r.poll(w, "raised checkpoint_invalid")
	r.publish(k, a, ra, 3)
	r.poll(w, "cleared checkpoint_invalid")
	if err := checkpoint.WritePublished(cp, mustRead(t, cp), leaves(fork, 3)); err != nil {
		t.Fatal(err)
	}
	r.poll(w)
	r.poll(w, "raised checkpoint_invalid")
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// As a witness the watcher cosigns each new checkpoint that verifies and
// raises nothing, and keeps it, cosigned, in its directory; restarted, it
// remembers what it cosigned and refuses a fork of it. A checkpoint that
// contradicts the chain is not cosigned.
func witness(t *testing.T, tc testChain) {
	r := newRig(t, tc)
	a, ra := logID("witness-a"), roots(3, "a")
	b, rb := logID("witness-b"), roots(1, "b")
	k := newNoteKey(t, 6, "op.example")
	wkey := filepath.Join(r.dir, "witness.key")
	vkey, err := checkpoint.WriteKey(wkey, "watcher.example")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := checkpoint.ReadCosigner(wkey)
	if err != nil {
		t.Fatal(err)
	}
	wdir := t.TempDir()
	opts := watch.Options{Witness: &watch.Witness{Signer: signer, Dir: wdir}}
	r.anchor(a, 0, ra)
	r.anchor(b, 0, rb)
	cpA := r.publish(k, a, ra, 1)
	cpB := r.publish(k, b, roots(1, "b'"), 1)
	logs := []watch.Log{{ID: a, Checkpoint: cpA, Policy: k.policy(t)}, {ID: b, Checkpoint: cpB, Policy: k.policy(t)}}
	w := r.watcher(logs, opts)
	r.poll(w, "raised anchor_conflict")
	witnessed, err := checkpoint.NewPolicy(k.vkey, []string{vkey}, 1)
	if err != nil {
		t.Fatal(err)
	}
	cosigned := func(id format.Digest) uint64 {
		t.Helper()
		pub, err := checkpoint.ReadPublished(r.ctx, filepath.Join(wdir, strings.TrimPrefix(id.String(), "0x")+".checkpoint"))
		if errors.Is(err, os.ErrNotExist) {
			return 0
		}
		if err != nil {
			t.Fatal(err)
		}
		c, _, err := checkpoint.Open(pub, witnessed, id)
		if err != nil {
			t.Fatal(err)
		}
		return c.Size
	}
	if got := cosigned(a); got != 1 {
		t.Fatalf("cosigned size %d of log a, want 1", got)
	}
	if got := cosigned(b); got != 0 {
		t.Fatalf("the checkpoint contradicting the chain was cosigned (size %d)", got)
	}
	r.publish(k, a, ra, 2)
	r.poll(w)
	if got := cosigned(a); got != 2 {
		t.Fatalf("cosigned size %d, want 2", got)
	}
	w = r.watcher(logs[:1], opts) // restarted
	r.publish(k, a, append(ra[:1:1], roots(2, "a'")...), 3)
	r.poll(w, "raised checkpoint_fork")
	if got := cosigned(a); got != 2 {
		t.Fatalf("after a fork, cosigned size %d, want still 2", got)
	}
}

// flakyNode is a chain client whose eth_getLogs can be made to fail or to
// hide the last log it returns.
type flakyNode struct {
	chain.Client
	mode *atomic.Int32 // 0 honest, 1 hides, 2 down
}

func (n flakyNode) FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	ls, err := n.Client.FilterLogs(ctx, q)
	switch n.mode.Load() {
	case 1:
		if len(ls) > 0 {
			ls = ls[:len(ls)-1]
		}
	case 2:
		return nil, errors.New("connection refused")
	}
	return ls, err
}

// A chain that cannot be read, or a node hiding events, is source_error;
// meanwhile the alarms judged from the chain stay as they are, and they
// are judged again once it can be read.
func TestSourceError(t *testing.T) {
	r := newRig(t, inProcess(t))
	a, ra := logID("source-a"), roots(2, "a")
	r.anchor(a, 0, ra)
	var mode atomic.Int32
	op := watch.Operator{Address: chain.Address(r.key), Logs: []watch.Log{{ID: a, Window: time.Minute}}}
	w, err := watch.New(flakyNode{r.tc.Client(), &mode}, watch.Config{Contract: r.d.EpochAnchor, FromBlock: r.d.Block, Operators: []watch.Operator{op}}, watch.Options{Now: r.clock})
	if err != nil {
		t.Fatal(err)
	}
	r.poll(w)
	r.wait(61 * time.Second)
	r.poll(w, "raised anchor_late")
	r.anchor(a, 1, ra)
	mode.Store(2)
	r.poll(w, "raised source_error")
	mode.Store(1)
	r.poll(w)
	if act := w.Active(); len(act) != 2 || !strings.Contains(act[1].Detail, "connection refused") {
		t.Fatalf("active %+v, want anchor_late and the first source_error", act)
	}
	mode.Store(0)
	r.poll(w, "cleared source_error", "cleared anchor_late")
}
