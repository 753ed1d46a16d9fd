package watch_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/ethclient"
	"golang.org/x/mod/sumdb/note"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/chain/backend/anvil/anviltest"
	"github.com/agentflightrecorder/afr/chain/backend/embedded"
	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/watch"
)

// testChain is a chain the scenarios run on: its client and keys, state
// snapshots (a revert is how a test makes a reorg) and blocks mined at a
// chosen time (how a test makes time pass).
type testChain interface {
	Client() chain.Client
	Keys() []*ecdsa.PrivateKey
	backend.Snapshotter
	MineAt(ctx context.Context, t uint64) error
}

func inProcess(t *testing.T) testChain {
	c, err := backend.NewInProcess(backend.InProcessOptions{GenesisTime: 1_767_225_600})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func embeddedChain(t *testing.T) testChain {
	e, err := embedded.New(backend.EmbeddedOptions{BlockPeriod: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// anvilChain is a real anvil process (anviltest.Start: free port,
// readiness check, stopped in t.Cleanup).
type anvilChain struct {
	n *anvil.Node
	c *ethclient.Client
}

func anvilProcess(t *testing.T) testChain {
	n := anviltest.Start(t, anvil.Options{})
	c, err := ethclient.Dial(n.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &anvilChain{n, c}
}

func (a *anvilChain) Client() chain.Client      { return a.c }
func (a *anvilChain) Keys() []*ecdsa.PrivateKey { return a.n.Keys() }
func (a *anvilChain) Snapshot(ctx context.Context) (backend.SnapshotID, error) {
	var id string
	err := a.n.Call(ctx, &id, "evm_snapshot")
	return backend.SnapshotID(id), err
}
func (a *anvilChain) Revert(ctx context.Context, id backend.SnapshotID) error {
	var ok bool
	if err := a.n.Call(ctx, &ok, "evm_revert", string(id)); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("evm_revert %s: refused", id)
	}
	return nil
}
func (a *anvilChain) MineAt(ctx context.Context, t uint64) error {
	if err := a.n.Call(ctx, nil, "evm_setNextBlockTimestamp", hexutil.Uint64(t)); err != nil {
		return err
	}
	return a.n.Call(ctx, nil, "evm_mine")
}

// rig is one scenario: a fresh EpochAnchor on a chain, the operator's key,
// and a watcher whose clock is the chain's latest block time.
type rig struct {
	t   *testing.T
	ctx context.Context
	tc  testChain
	key *ecdsa.PrivateKey
	d   *chain.Deployment
	now time.Time
	dir string
}

func newRig(t *testing.T, tc testChain) *rig {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	key := tc.Keys()[0]
	d, err := chain.Deploy(ctx, tc.Client(), key, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, ctx: ctx, tc: tc, key: key, d: d, dir: t.TempDir()}
	r.syncClock()
	return r
}

// clock is the watcher's clock: the rig's time.
func (r *rig) clock() time.Time { return r.now }

// syncClock sets the clock to the latest block's time.
func (r *rig) syncClock() {
	h, err := r.tc.Client().HeaderByNumber(r.ctx, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	r.now = time.Unix(int64(h.Time), 0)
}

// wait lets d pass: a block is mined d after the latest, and the clock
// shows its time.
func (r *rig) wait(d time.Duration) {
	r.t.Helper()
	if err := r.tc.MineAt(r.ctx, uint64(r.now.Add(d).Unix())); err != nil {
		r.t.Fatal(err)
	}
	r.syncClock()
}

func (r *rig) send(data []byte) {
	r.t.Helper()
	if _, err := chain.Transact(r.ctx, r.tc.Client(), r.key, &r.d.EpochAnchor, nil, data); err != nil {
		r.t.Fatal(err)
	}
	r.syncClock()
}

// anchor anchors epoch e of log id with roots[e] and its back-pointer.
func (r *rig) anchor(id format.Digest, e uint64, roots []format.Digest) {
	r.t.Helper()
	r.send(bindings.NewEpochAnchor().PackAnchor(id, e, roots[e], prev(roots, e)))
}

// batch anchors batch b of the operator's batch chain holding entries,
// published in its BatchContents event (events) or nowhere, and returns
// its root.
func (r *rig) batch(b uint64, prevRoot format.Digest, entries []format.BatchEntry, events bool) format.Digest {
	r.t.Helper()
	root, err := format.BatchRoot(b, entries)
	if err != nil {
		r.t.Fatal(err)
	}
	ea := bindings.NewEpochAnchor()
	if events {
		r.send(ea.PackAnchorBatch(b, root, prevRoot, format.EncodeBatchEntries(entries)))
	} else {
		r.send(ea.PackAnchor(format.Digest{}, b, root, prevRoot))
	}
	return root
}

func (r *rig) snapshot() backend.SnapshotID {
	r.t.Helper()
	id, err := r.tc.Snapshot(r.ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	return id
}

func (r *rig) revert(id backend.SnapshotID) {
	r.t.Helper()
	if err := r.tc.Revert(r.ctx, id); err != nil {
		r.t.Fatal(err)
	}
	r.syncClock()
}

// watcher returns a watcher of the operator's logs, on the rig's clock.
func (r *rig) watcher(logs []watch.Log, opts watch.Options) *watch.Watcher {
	r.t.Helper()
	return r.watcherOf(watch.Operator{Address: chain.Address(r.key), Logs: logs}, opts)
}

func (r *rig) watcherOf(op watch.Operator, opts watch.Options) *watch.Watcher {
	r.t.Helper()
	opts.Now = r.clock
	w, err := watch.New(r.tc.Client(), watch.Config{Contract: r.d.EpochAnchor, FromBlock: r.d.Block, Operators: []watch.Operator{op}}, opts)
	if err != nil {
		r.t.Fatal(err)
	}
	return w
}

// poll runs one poll and checks its events: want lists them as "raised
// KIND" or "cleared KIND", in any order.
func (r *rig) poll(w *watch.Watcher, want ...string) []watch.Event {
	r.t.Helper()
	evs, err := w.Poll(r.ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	got := make([]string, len(evs))
	for i, ev := range evs {
		got[i] = string(ev.State) + " " + string(ev.Alarm)
		if ev.Key == "" || ev.Detail == "" || !ev.Time.Equal(r.now) {
			r.t.Errorf("event without key, detail or the poll's time: %+v", ev)
		}
		r.t.Logf("%s %s: %s", ev.State, ev.Alarm, ev.Detail)
	}
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		r.t.Fatalf("poll at %s: events %q, want %q", r.now.UTC().Format(time.RFC3339), got, want)
	}
	return evs
}

// roots returns n epoch roots of a synthetic log.
func roots(n int, salt string) []format.Digest {
	out := make([]format.Digest, n)
	for i := range out {
		out[i] = sha256.Sum256(binary.BigEndian.AppendUint64([]byte(salt), uint64(i)))
	}
	return out
}

// prev is the back-pointer of epoch e.
func prev(roots []format.Digest, e uint64) format.Digest {
	if e == 0 {
		return format.Digest{}
	}
	return roots[e-1]
}

// leaves are the checkpoint leaves of the first n roots.
func leaves(roots []format.Digest, n int) []format.Anchor {
	out := make([]format.Anchor, n)
	for i := range out {
		out[i] = format.Anchor{Epoch: uint64(i), Root: roots[i], PrevRoot: prev(roots, uint64(i))}
	}
	return out
}

// entry is the batch entry of epoch e of log id.
func entry(id format.Digest, e uint64, roots []format.Digest) format.BatchEntry {
	return format.BatchEntry{Log: id, Epoch: e, Root: roots[e], PrevRoot: prev(roots, e)}
}

func logID(name string) format.Digest { return format.LogID(name, format.SessionID{1}) }

// noteKey is an operator's checkpoint key.
type noteKey struct {
	vkey   string
	signer note.Signer
}

func newNoteKey(t *testing.T, seed uint64, name string) noteKey {
	t.Helper()
	skey, vkey, err := checkpoint.GenerateKey(rand.NewChaCha8([32]byte{byte(seed)}), name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return noteKey{vkey, s}
}

func (k noteKey) policy(t *testing.T) *checkpoint.Policy {
	t.Helper()
	p, err := checkpoint.NewPolicy(k.vkey, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// publish writes the checkpoint of the first n roots of log id, signed
// with k, as the operator publishes it, at the rig's path for the log.
func (r *rig) publish(k noteKey, id format.Digest, rs []format.Digest, n int) string {
	r.t.Helper()
	origin, err := checkpoint.Origin("", id)
	if err != nil {
		r.t.Fatal(err)
	}
	cp, err := checkpoint.Sign(origin, rs[:n], k.signer)
	if err != nil {
		r.t.Fatal(err)
	}
	path := filepath.Join(r.dir, fmt.Sprintf("%x.checkpoint", id[:4]))
	if err := checkpoint.WritePublished(path, cp, leaves(rs, n)); err != nil {
		r.t.Fatal(err)
	}
	return path
}

// activeKinds lists the kinds of the watcher's active alarms.
func activeKinds(w *watch.Watcher) string {
	var ks []string
	for _, ev := range w.Active() {
		ks = append(ks, string(ev.Alarm))
	}
	return strings.Join(ks, ",")
}

// replicatedLog writes a log of three epochs of 10 events (workload seed)
// in a new directory, calls copyLog with the directory once the first
// epoch is durable, anchors the three epochs and returns the directory,
// the log's id and its roots: a replica left one epoch behind the chain.
func (r *rig) replicatedLog(seed uint64, copyLog func(dir string)) (string, format.Digest, []format.Digest) {
	r.t.Helper()
	t := r.t
	dir := t.TempDir()
	// SyncGroup: each sealed epoch is under the durable mark, which is
	// what a replicator copies.
	rec := logtest.Open(t, dir, recorder.Options{Recorder: "replica", EpochSize: 10, EpochMaxAge: -1})
	evs := workload.Generate(seed, 30)
	record := func(evs []format.Event) {
		for _, ev := range evs {
			if _, err := rec.Record(r.ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
		<-rec.Sealed() // the epoch they fill is durable
	}
	record(evs[:10])
	copyLog(dir)
	record(evs[10:20])
	record(evs[20:])
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	id, as := logtest.Anchors(t, dir)
	rs := checkpoint.Roots(as)
	for e := range uint64(3) {
		r.anchor(id, e, rs)
	}
	return dir, id, rs
}
