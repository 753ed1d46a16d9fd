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

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/embedded"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
)

func embeddedChain(t *testing.T) *embedded.Chain {
	t.Helper()
	e, err := embedded.New(backend.EmbeddedOptions{BlockPeriod: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// Live recording: epochs reach the anchorer through Sealed() while Record
// goes on; after Close, Drain confirms every epoch and the window is empty.
func TestAnchorLiveEmbedded(t *testing.T) {
	e := embeddedChain(t)
	key := e.Keys()[0]
	d := deployAnchor(t, e.Client(), key)
	dir := t.TempDir()
	r := logtest.Open(t, dir, recorder.Options{Recorder: "live", EpochSize: 50, Sync: recorder.SyncNone})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := anchor.Open(ctx, dir, e.Client(), anchor.Options{Contract: d.EpochAnchor, Key: key, FromBlock: d.Block, Position: r.Position, Logf: logf(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, r.Sealed()) }()
	for _, ev := range workload.Generate(1, 1000) {
		if _, err := r.Record(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	if w := a.Window(); w.Events == 0 {
		t.Errorf("window empty right after recording: %+v", w)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SyncLog(); err != nil {
		t.Fatal(err)
	}
	if err := a.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	w := a.Window()
	if w.Events != 0 || w.Epochs != 0 || w.LastConfirmed == nil || *w.LastConfirmed != 19 {
		t.Errorf("window after drain: %+v", w)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkAnchored(t, dir, e.Client(), d.EpochAnchor, a.Operator())
	q, err := anchor.ReadQueue(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, an := range q.Anchored[1:] {
		if an.GasUsed > 31_000 {
			t.Errorf("epoch %d: %d gas, over 31,000", an.Epoch, an.GasUsed)
		}
	}
}

// One operator key anchors several logs, each under its own log id; a
// second writer anchoring another version of one of those logs (same
// recorder and session, other events) with the same key collides: the
// anchorer stops with a ForeignAnchorError naming the log instead of
// skipping the epoch.
func TestForeignWriterEmbedded(t *testing.T) {
	e := embeddedChain(t)
	key := e.Keys()[1]
	d := deployAnchor(t, e.Client(), key)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := func(dir string) error {
		a, err := anchor.Open(ctx, dir, e.Client(), anchor.Options{Contract: d.EpochAnchor, Key: key, FromBlock: d.Block, Logf: logf(t)})
		if err != nil {
			return err
		}
		defer a.Close()
		rctx, stop := context.WithCancel(ctx)
		defer stop()
		done := make(chan error, 1)
		go func() { done <- a.Run(rctx, nil) }()
		err = a.Drain(ctx)
		stop()
		<-done
		return err
	}
	first, second := record(t, 200, 50), record(t, 120, 50)
	for _, dir := range []string{first, second} {
		if err := run(dir); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		checkAnchored(t, dir, e.Client(), d.EpochAnchor, chain.Address(key))
	}
	l, err := recorder.OpenLog(first)
	if err != nil {
		t.Fatal(err)
	}
	_, session, err := l.Identity()
	if err != nil {
		t.Fatal(err)
	}
	third := recordAs(t, session, 8, 120, 50) // first's log id, other events
	err = run(third)
	var fe *anchor.ForeignAnchorError
	if !errors.As(err, &fe) || !errors.Is(err, anchor.ErrForeignAnchor) {
		t.Fatalf("second writer: got %v, want a ForeignAnchorError", err)
	}
	id, _ := l.LogID()
	if fe.Epoch != 0 || fe.Log != id || !strings.Contains(err.Error(), id.String()) {
		t.Errorf("foreign epoch %d of log %s (%v), want epoch 0 of %s named in the message", fe.Epoch, fe.Log, err, id)
	}
	t.Log(err)
}

// The anchorer process restarts while a transaction is in flight and epochs
// wait: the queue file carries them over, nothing is lost or sent twice.
func TestRestartResumesEmbedded(t *testing.T) {
	e := embeddedChain(t)
	key := e.Keys()[2]
	d := deployAnchor(t, e.Client(), key)
	dir := record(t, 250, 50) // 5 epochs
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opts := anchor.Options{Contract: d.EpochAnchor, Key: key, FromBlock: d.Block, ResubmitAfter: 500 * time.Millisecond, Logf: logf(t)}

	e.Pause() // nothing is mined: the first anchor stays in flight
	a1, err := anchor.Open(ctx, dir, e.Client(), opts)
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a1.Run(rctx, nil) }()
	waitFor(t, "the first epoch's anchor to be sent", func() bool {
		q := a1.Queue()
		return len(q.Pending) > 0 && q.Pending[0].State == anchor.StateSent
	})
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	a1.Close()
	q, err := anchor.ReadQueue(dir)
	if err != nil || len(q.Pending) != 5 || q.Pending[0].State != anchor.StateSent || len(q.Pending[0].Txs) == 0 {
		t.Fatalf("queue on disk after stop: %v %+v", err, q)
	}

	e.Resume()
	a2, err := anchor.Open(ctx, dir, e.Client(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a2.Close()
	rctx, stop = context.WithCancel(ctx)
	go func() { done <- a2.Run(rctx, nil) }()
	if err := a2.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkAnchored(t, dir, e.Client(), d.EpochAnchor, a2.Operator())
	if n := len(a2.Queue().Anchored); n != 5 {
		t.Fatalf("%d anchors confirmed, want 5", n)
	}
}

// A queue belongs to one chain, contract and operator.
func TestQueueBoundToContract(t *testing.T) {
	e := embeddedChain(t)
	d1 := deployAnchor(t, e.Client(), e.Keys()[3])
	d2 := deployAnchor(t, e.Client(), e.Keys()[3])
	dir := record(t, 60, 50)
	ctx := context.Background()
	a, err := anchor.Open(ctx, dir, e.Client(), anchor.Options{Contract: d1.EpochAnchor, Key: e.Keys()[3]})
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	if _, err := anchor.Open(ctx, dir, e.Client(), anchor.Options{Contract: d2.EpochAnchor, Key: e.Keys()[3]}); err == nil {
		t.Fatal("a queue for another contract was accepted")
	}
}

// A version 1 queue file (before log ids) is read and taken as this log's,
// and rewritten as version 2 with the log id; a queue of another log is
// refused.
func TestQueueVersion1Embedded(t *testing.T) {
	e := embeddedChain(t)
	key := e.Keys()[3]
	d := deployAnchor(t, e.Client(), key)
	dir := record(t, 60, 50)
	ctx := context.Background()
	opts := anchor.Options{Contract: d.EpochAnchor, Key: key}
	a, err := anchor.Open(ctx, dir, e.Client(), opts)
	if err != nil {
		t.Fatal(err)
	}
	pending := len(a.Queue().Pending)
	a.Close()
	path := filepath.Join(dir, anchor.QueueFile)
	var doc map[string]any
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &doc) != nil || doc["version"] != float64(anchor.QueueVersion) || doc["log"] != a.LogID().String() {
		t.Fatalf("queue file: %v %s", err, b)
	}
	doc["version"] = 1
	delete(doc, "log")
	if b, err = json.Marshal(doc); err != nil || os.WriteFile(path, b, 0o600) != nil {
		t.Fatal(err)
	}
	a, err = anchor.Open(ctx, dir, e.Client(), opts)
	if err != nil {
		t.Fatalf("version 1 queue refused: %v", err)
	}
	if q := a.Queue(); q.Version != anchor.QueueVersion || q.Log != a.LogID() || len(q.Pending) != pending || pending != 2 {
		t.Fatalf("version 1 queue read as %+v", q)
	}
	a.Close()
	if q, err := anchor.ReadQueue(dir); err != nil || q.Version != anchor.QueueVersion || q.Log != a.LogID() {
		t.Fatalf("version 1 queue not rewritten as version 2: %v %+v", err, q)
	}
	other := record(t, 60, 50)
	if err := os.WriteFile(filepath.Join(other, anchor.QueueFile), mustRead(t, path), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := anchor.Open(ctx, other, e.Client(), opts); err == nil || !strings.Contains(err.Error(), "log ") {
		t.Fatalf("a queue of another log: %v", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A contract that is not EpochAnchor version 2 (here a PaceSmartAccount,
// as a version 1 EpochAnchor would: it has no nextEpoch(address,bytes32))
// is refused when the anchorer opens with a *ContractError carrying the
// failed call; so is an address with no code at all.
func TestNotEpochAnchorV2Embedded(t *testing.T) {
	e := embeddedChain(t)
	key := e.Keys()[0]
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := chain.Deploy(ctx, e.Client(), key, &chain.PaceConfig{Owner: chain.Address(key), PolicySigner: chain.Address(e.Keys()[1])})
	if err != nil {
		t.Fatal(err)
	}
	dir := record(t, 20, 10)
	_, err = anchor.Open(ctx, dir, e.Client(), anchor.Options{Contract: *d.Pace, Key: key})
	var ce *anchor.ContractError
	if !errors.As(err, &ce) || ce.Contract != *d.Pace || ce.Err == nil || !errors.Is(err, anchor.ErrNotEpochAnchor) || !strings.Contains(err.Error(), "not EpochAnchor version 2") {
		t.Fatalf("anchoring to a PaceSmartAccount: %v, want a *ContractError for %s with the failed call", err, d.Pace)
	}
	nowhere := common.HexToAddress("0x00000000000000000000000000000000000a4f52")
	dir = record(t, 20, 10)
	_, err = anchor.Open(ctx, dir, e.Client(), anchor.Options{Contract: nowhere, Key: key})
	if !errors.As(err, &ce) || ce.Contract != nowhere || ce.Err != nil || !errors.Is(err, anchor.ErrNotEpochAnchor) || !strings.Contains(err.Error(), "no contract at") {
		t.Fatalf("anchoring to an address without code: %v, want a *ContractError without a call", err)
	}
}
