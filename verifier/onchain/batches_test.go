package onchain_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/embedded"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// batchWorld is a chain with EpochAnchor and two recorded logs, each of
// three epochs, whose epochs the tests anchor as an operator would —
// honestly or not — in aggregate batches with raw transactions.
type batchWorld struct {
	t    *testing.T
	ctx  context.Context
	c    chain.Client
	dep  *chain.Deployment
	keys []*ecdsa.PrivateKey // one fresh operator per case
	logs [2]*recorder.Log
	ids  [2]format.Digest
	eps  [2][]format.BatchEntry // each log's epochs as batch entries
}

func newBatchWorld(t *testing.T) *batchWorld {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	em, err := embedded.New(backend.EmbeddedOptions{Keys: 16, BlockPeriod: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { em.Close() })
	w := &batchWorld{t: t, ctx: ctx, c: em.Client(), keys: em.Keys()[1:]}
	if w.dep, err = chain.Deploy(ctx, w.c, em.Keys()[0], nil); err != nil {
		t.Fatal(err)
	}
	for i := range w.logs {
		w.logs[i] = logtest.Write(t, recorder.Options{Recorder: fmt.Sprintf("fleet-%d", i), EpochSize: 10, Sync: recorder.SyncNone}, workload.Generate(uint64(i+1), 30))
		if w.ids[i], err = w.logs[i].LogID(); err != nil {
			t.Fatal(err)
		}
		as, err := verifier.AnchorsFromLog(w.logs[i])
		if err != nil || len(as) != 3 {
			t.Fatalf("log %d: %d epochs (%v)", i, len(as), err)
		}
		for _, a := range as {
			w.eps[i] = append(w.eps[i], format.BatchEntry{Log: w.ids[i], Epoch: a.Epoch, Root: a.Root, PrevRoot: a.PrevRoot})
		}
	}
	return w
}

// operator is one operator anchoring batches: its key, its batch chain so
// far and its batches file.
type operator struct {
	w    *batchWorld
	key  *ecdsa.PrivateKey
	next uint64
	prev format.Digest
	file string
}

func (w *batchWorld) operator() *operator {
	k := w.keys[0]
	w.keys = w.keys[1:]
	return &operator{w: w, key: k, file: filepath.Join(w.t.TempDir(), "batches.jsonl")}
}

func (o *operator) addr() common.Address { return chain.Address(o.key) }

// batch anchors the next batch with these entries: in the batches file and
// with anchor(0, …), or in events with anchorBatch.
func (o *operator) batch(events bool, entries ...format.BatchEntry) *types.Receipt {
	o.w.t.Helper()
	ea := bindings.NewEpochAnchor()
	var root format.Digest
	var err error
	var data []byte
	if events {
		root, err = format.BatchRoot(o.next, entries)
		data = ea.PackAnchorBatch(o.next, root, o.prev, format.EncodeBatchEntries(entries))
	} else {
		root, err = format.AppendBatch(o.file, o.next, o.prev, entries)
		data = ea.PackAnchor([32]byte{}, o.next, root, o.prev)
	}
	if err != nil {
		o.w.t.Fatal(err)
	}
	rc, err := chain.Transact(o.w.ctx, o.w.c, o.key, &o.w.dep.EpochAnchor, nil, data)
	if err != nil {
		o.w.t.Fatalf("batch %d: %v", o.next, err)
	}
	o.next, o.prev = o.next+1, root
	return rc
}

// anchor anchors one epoch of log i per log.
func (o *operator) anchor(i int, e format.BatchEntry) {
	o.w.t.Helper()
	data := bindings.NewEpochAnchor().PackAnchor(o.w.ids[i], e.Epoch, e.Root, e.PrevRoot)
	if _, err := chain.Transact(o.w.ctx, o.w.c, o.key, &o.w.dep.EpochAnchor, nil, data); err != nil {
		o.w.t.Fatal(err)
	}
}

func (o *operator) source(i int) onchain.LogAnchors {
	return onchain.LogAnchors{Client: o.w.c, Contract: o.w.dep.EpochAnchor, Operator: o.addr(), LogID: o.w.ids[i],
		FromBlock: o.w.dep.Block, BatchesFile: o.file}
}

// verify verifies log i (or src when given) against the operator's anchors.
func (o *operator) verify(i int, src verifier.Source) *verifier.Report {
	o.w.t.Helper()
	if src == nil {
		src = o.w.logs[i]
	}
	rep, err := verifier.VerifyLog(o.w.ctx, src, o.source(i), verifier.Options{})
	if err != nil {
		o.w.t.Fatal(err)
	}
	return rep
}

func kinds(rep *verifier.Report) []verifier.FindingKind {
	var out []verifier.FindingKind
	for _, f := range rep.Findings {
		out = append(out, f.Kind)
	}
	return out
}

func expect(t *testing.T, what string, rep *verifier.Report, verdict verifier.Verdict, kind verifier.FindingKind) {
	t.Helper()
	if rep.Verdict != verdict || (kind != "" && !slices.Contains(kinds(rep), kind)) {
		t.Fatalf("%s: verdict %s with %v, want %s with %s", what, rep.Verdict, rep.Findings, verdict, kind)
	}
}

// Every property of per-log anchoring holds per log inside aggregate
// batches: honest batches in both publication modes verify, and each
// attack an operator can mount with batches the contract cannot see into
// is a finding of the verifier.
func TestBatchAnchors(t *testing.T) {
	w := newBatchWorld(t)
	a, b := w.eps[0], w.eps[1]

	t.Run("clean, file publication", func(t *testing.T) {
		o := w.operator()
		// Several consecutive epochs of one log in one batch, in order.
		o.batch(false, a[0], b[0])
		o.batch(false, a[1], a[2], b[1])
		// A line written for batch 2 whose submission never landed, then
		// the batch anchored: the reader keeps the anchored line.
		if _, err := format.AppendBatch(o.file, 2, o.prev, []format.BatchEntry{b[2], a[2]}); err != nil {
			t.Fatal(err)
		}
		o.batch(false, b[2])
		for i := range 2 {
			rep := o.verify(i, nil)
			expect(t, fmt.Sprintf("log %d", i), rep, verifier.Verified, "")
			if rep.AnchoredEpochs != 3 {
				t.Fatalf("log %d: %d anchored epochs, want 3", i, rep.AnchoredEpochs)
			}
		}
	})

	t.Run("clean, event publication", func(t *testing.T) {
		o := w.operator()
		o.file = "" // contents only on chain
		rc := o.batch(true, a[0], a[1], b[0])
		o.batch(true, b[1], b[2], a[2])
		if len(rc.Logs) != 2 {
			t.Fatalf("anchorBatch emitted %d events, want Anchored and BatchContents", len(rc.Logs))
		}
		bs, err := onchain.ChainBatches{Client: w.c, Contract: w.dep.EpochAnchor, Operator: o.addr(), FromBlock: w.dep.Block}.Batches(w.ctx)
		if err != nil || len(bs) != 2 || len(bs[0].Entries) != 3 || !strings.Contains(bs[0].Source, "BatchContents") {
			t.Fatalf("batches read from the chain: %v %+v", err, bs)
		}
		for i := range 2 {
			expect(t, fmt.Sprintf("log %d", i), o.verify(i, nil), verifier.Verified, "")
		}
	})

	t.Run("per-log anchors and batches together", func(t *testing.T) {
		o := w.operator()
		o.anchor(0, a[0])
		o.anchor(0, a[1])
		o.batch(false, a[2], b[0])
		o.batch(true, b[1], b[2])
		for i := range 2 {
			expect(t, fmt.Sprintf("log %d", i), o.verify(i, nil), verifier.Verified, "")
		}
		// A second root for an epoch anchored per log, in a batch: an
		// equivocation across the two ways of anchoring, which only the
		// union of both kinds of anchors shows.
		p := w.operator()
		for _, e := range a {
			p.anchor(0, e)
		}
		fake := a[1]
		fake.Root = format.Digest{0xfa, 0x4e}
		p.batch(false, fake)
		rep := p.verify(0, nil)
		expect(t, "epoch 1 per log and again in a batch", rep, verifier.Tampered, verifier.KindAnchorConflict)
		if !slices.ContainsFunc(rep.Findings, func(f verifier.Finding) bool { return strings.Contains(f.Detail, "two different roots") }) {
			t.Fatalf("no equivocation finding: %v", rep.Findings)
		}
	})

	t.Run("withheld batch contents", func(t *testing.T) {
		o := w.operator()
		o.batch(false, a[0], b[0])
		o.batch(false, a[1], a[2], b[1], b[2])
		full := o.file
		o.file = filepath.Join(t.TempDir(), "absent.jsonl")
		expect(t, "no batches file", o.verify(0, nil), verifier.Incomplete, verifier.KindBatchWithheld)
		// A file without batch 1 (the one holding the rest of log 0).
		lines, err := verifier.BatchesFile(full).Batches(w.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := format.AppendBatch(o.file, 0, format.Digest{}, lines[0].Entries); err != nil {
			t.Fatal(err)
		}
		rep := o.verify(1, nil)
		expect(t, "batch 1 withheld", rep, verifier.Incomplete, verifier.KindBatchWithheld)
		if slices.ContainsFunc(rep.Findings, func(f verifier.Finding) bool { return f.Class == verifier.ClassTampered }) {
			t.Fatalf("withheld contents made a tampered finding: %v", rep.Findings)
		}
	})

	t.Run("an entry in two batches", func(t *testing.T) {
		o := w.operator()
		o.batch(false, a[0], a[1])
		o.batch(true, a[1], a[2])
		expect(t, "epoch 1 in batches 0 and 1", o.verify(0, nil), verifier.Tampered, verifier.KindAnchorConflict)
	})

	t.Run("two entries for one epoch", func(t *testing.T) {
		o := w.operator()
		other := a[1]
		other.Root = format.Digest{0x0e, 0x91}
		o.batch(false, a[0], a[1], other, a[2])
		expect(t, "two roots for epoch 1", o.verify(0, nil), verifier.Tampered, verifier.KindAnchorConflict)
	})

	t.Run("a skipped epoch", func(t *testing.T) {
		o := w.operator()
		o.batch(false, a[0], b[0])
		o.batch(false, a[2], b[1])
		expect(t, "epoch 1 skipped", o.verify(0, nil), verifier.Tampered, verifier.KindAnchorConflict)
	})

	t.Run("a batch that reorders epochs", func(t *testing.T) {
		o := w.operator()
		o.batch(true, a[0], a[2], a[1])
		expect(t, "epochs 2 before 1", o.verify(0, nil), verifier.Tampered, verifier.KindAnchorConflict)
		p := w.operator()
		p.batch(false, b[1])
		p.batch(false, b[0], b[2])
		expect(t, "epoch 1 in a batch before epoch 0", p.verify(1, nil), verifier.Tampered, verifier.KindAnchorConflict)
	})

	t.Run("a tampered log against batch anchors", func(t *testing.T) {
		o := w.operator()
		o.batch(false, a[0], a[1], b[0])
		o.batch(true, a[2], b[1], b[2])
		img, err := tamper.Load(w.logs[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := img.ReplaceHeader(1); err != nil {
			t.Fatal(err)
		}
		expect(t, "epoch 1's header replaced", o.verify(0, img), verifier.Tampered, verifier.KindAnchorMismatch)
	})

	t.Run("another operator has no anchors for the log", func(t *testing.T) {
		o, other := w.operator(), w.operator()
		o.anchor(0, a[0])
		o.anchor(0, a[1])
		o.anchor(0, a[2])
		other.anchor(1, b[0]) // the other operator anchors another log only
		other.batch(false, b[1], b[2])
		rep := other.verify(0, nil)
		expect(t, "log 0 against an operator that never anchored it", rep, verifier.Incomplete, verifier.KindUnanchored)
		hint := ""
		for _, f := range rep.Findings {
			if strings.Contains(f.Detail, "per-log anchors of this log id exist from") {
				hint = f.Detail
			}
		}
		// The addresses that anchored the log id are named as leads, with
		// the warning that anchoring under an id proves nothing, and never
		// recommended as the --operator to use.
		if !strings.Contains(hint, o.addr().Hex()) || !strings.Contains(hint, "says nothing about who runs the log") || strings.Contains(hint, "--operator 0x") {
			t.Fatalf("no warning hint naming %s: %v", o.addr(), rep.Findings)
		}
		// Nobody at all: unanchored, saying so.
		rep = w.operator().verify(0, nil)
		expect(t, "an operator with nothing anchored", rep, verifier.Incomplete, verifier.KindUnanchored)
		if !slices.ContainsFunc(rep.Findings, func(f verifier.Finding) bool { return strings.Contains(f.Detail, o.addr().Hex()) }) {
			t.Fatalf("no hint naming operator %s: %v", o.addr(), rep.Findings)
		}
	})

	t.Run("a node that hides a batch", func(t *testing.T) {
		o := w.operator()
		o.batch(false, a[0], b[0])
		o.batch(false, a[1], b[1])
		src := o.source(0)
		src.Client = hidingNode{w.c}
		_, err := verifier.VerifyLog(w.ctx, w.logs[0], src, verifier.Options{})
		var ne *chain.NodeError
		if !errors.As(err, &ne) {
			t.Fatalf("a node hiding the first Anchored event: %v, want a *chain.NodeError", err)
		}
	})
}

// hidingNode drops the first log of every answer to eth_getLogs.
type hidingNode struct{ onchain.ChainReader }

func (n hidingNode) FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	ls, err := n.ChainReader.FilterLogs(ctx, q)
	if len(ls) > 0 {
		ls = ls[1:]
	}
	return ls, err
}
