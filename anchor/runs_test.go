package anchor_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
)

// drainLog opens the anchorer of dir, runs it until every queued epoch is
// confirmed and returns its queue.
func drainLog(t *testing.T, c chain.Client, dir string, opts anchor.Options) (anchor.Queue, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := anchor.Open(ctx, dir, c, opts)
	if err != nil {
		return anchor.Queue{}, err
	}
	defer a.Close()
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.Run(rctx, nil) }()
	err = a.Drain(ctx)
	stop()
	if rerr := <-done; err == nil {
		err = rerr
	}
	return a.Queue(), err
}

// transactions returns the distinct transactions of the confirmed anchors,
// in order, and checks that each entry's run and gas share add up.
func transactions(t *testing.T, q anchor.Queue) []common.Hash {
	t.Helper()
	var txs []common.Hash
	count := map[common.Hash]int{}
	for _, an := range q.Anchored {
		if count[an.Tx] == 0 {
			txs = append(txs, an.Tx)
		}
		count[an.Tx]++
	}
	for _, an := range q.Anchored {
		if n := max(an.Run, 1); n != count[an.Tx] {
			t.Fatalf("epoch %d: run %d, but %d epochs confirmed in tx %s", an.Epoch, an.Run, count[an.Tx], an.Tx)
		}
	}
	return txs
}

// Epochs that wait when the anchorer sends go in one transaction
// (EpochAnchor.anchorRoots), up to MaxRun: 100 sealed epochs take one
// transaction by default and 13 with MaxRun 8 — not one each, as MaxRun 1
// still does — and the chain holds one Anchored event per epoch, as
// verifiers read it.
func TestRunsOfEpochsEmbedded(t *testing.T) {
	e := embeddedChain(t)
	key := e.Keys()[0]
	d := deployAnchor(t, e.Client(), key)
	for _, tc := range []struct {
		maxRun, epochs, txs int
	}{{0, 100, 1}, {8, 100, 13}, {1, 5, 5}} {
		dir := record(t, 5*tc.epochs, 5)
		q, err := drainLog(t, e.Client(), dir, anchor.Options{Contract: d.EpochAnchor, Key: key, FromBlock: d.Block, MaxRun: tc.maxRun, Confirmations: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(q.Anchored) != tc.epochs {
			t.Fatalf("MaxRun %d: %d epochs confirmed, want %d", tc.maxRun, len(q.Anchored), tc.epochs)
		}
		txs := transactions(t, q)
		if len(txs) != tc.txs {
			t.Errorf("MaxRun %d: %d epochs in %d transactions, want %d", tc.maxRun, tc.epochs, len(txs), tc.txs)
		}
		var gas uint64
		for _, an := range q.Anchored {
			gas += an.GasUsed
		}
		t.Logf("MaxRun %3d: %d epochs in %3d transactions, %6.0f gas per epoch", tc.maxRun, tc.epochs, len(txs), float64(gas)/float64(tc.epochs))
		checkAnchored(t, dir, e.Client(), d.EpochAnchor, chain.Address(key))
	}
}

// An earlier transaction of ours that anchored only the first epochs of a
// run (here sent by hand, as a transaction of a shorter run would have
// been) is taken as the anchor of those epochs; the rest of the run is sent
// again. A transaction holding one of the run's epochs with another root
// is a ForeignAnchorError naming that epoch, not the first.
func TestRunPartlyOnChainEmbedded(t *testing.T) {
	e := embeddedChain(t)
	key := e.Keys()[1]
	d := deployAnchor(t, e.Client(), key)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ea := bindings.NewEpochAnchor()
	anchorByHand := func(dir string, n int, replace func(i int, root [32]byte) [32]byte) {
		t.Helper()
		id, anchors := logtest.Anchors(t, dir)
		roots := make([][32]byte, n)
		for i := range roots {
			roots[i] = replace(i, anchors[i].Root)
		}
		if _, err := chain.Transact(ctx, e.Client(), key, &d.EpochAnchor, nil, ea.PackAnchorRoots(id, 0, roots, [32]byte{})); err != nil {
			t.Fatal(err)
		}
	}
	opts := anchor.Options{Contract: d.EpochAnchor, Key: key, FromBlock: d.Block, Confirmations: 1, Logf: logf(t)}

	dir := record(t, 50, 10) // 5 epochs
	anchorByHand(dir, 3, func(_ int, root [32]byte) [32]byte { return root })
	q, err := drainLog(t, e.Client(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	txs := transactions(t, q)
	if len(q.Anchored) != 5 || len(txs) != 2 || q.Anchored[0].Run != 3 || q.Anchored[3].Run != 2 {
		t.Fatalf("anchored %+v in %d transactions, want epochs 0..2 from the earlier transaction and 3..4 in one more", q.Anchored, len(txs))
	}
	checkAnchored(t, dir, e.Client(), d.EpochAnchor, chain.Address(key))

	dir = record(t, 50, 10)
	anchorByHand(dir, 3, func(i int, root [32]byte) [32]byte {
		if i == 2 {
			return [32]byte{0xba, 0xd}
		}
		return root
	})
	_, err = drainLog(t, e.Client(), dir, opts)
	var fe *anchor.ForeignAnchorError
	if !errors.As(err, &fe) || fe.Epoch != 2 || fe.Theirs != (format.Digest{0xba, 0xd}) {
		t.Fatalf("a run on chain with another root for epoch 2: %v, want a ForeignAnchorError for epoch 2", err)
	}
}

// On a chain that mines each transaction at once, one Drain anchors every
// epoch without waiting for a poll between the states of an epoch (queued,
// sent, mined, confirmed): the anchorer takes its next round at once while
// a round leaves work pending. With a poll of an hour, anchoring that
// waited for it would end only by the test's one-minute deadline.
func TestEagerRoundsInProcess(t *testing.T) {
	c, err := backend.NewInProcess(backend.InProcessOptions{Keys: 1, GenesisTime: 3_000_000_000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	key := c.Keys()[0]
	d := deployAnchor(t, c.Client(), key)
	dir := record(t, 15, 5)
	q, err := drainLog(t, c.Client(), dir, anchor.Options{Contract: d.EpochAnchor, Key: key, FromBlock: d.Block, MaxRun: 1, Confirmations: 1, Poll: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Anchored) != 3 || len(q.Pending) != 0 {
		t.Fatalf("%d epochs confirmed, %d pending; want 3 and 0", len(q.Anchored), len(q.Pending))
	}
	checkAnchored(t, dir, c.Client(), d.EpochAnchor, chain.Address(key))
}
