package anchor_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
)

// proxy is a loopback JSON-RPC endpoint that stays put while the anvil
// behind it is killed and restarted (on another port): the anchorer sees
// one URL that goes down and comes back.
type proxy struct {
	mu     sync.Mutex
	target *url.URL
	srv    *httptest.Server
}

func newProxy(t *testing.T) *proxy {
	p := &proxy{}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			p.mu.Lock()
			tgt := p.target
			p.mu.Unlock()
			if tgt != nil {
				r.SetURL(tgt)
			}
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "anvil down", http.StatusBadGateway)
		},
	}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		down := p.target == nil
		p.mu.Unlock()
		if down {
			http.Error(w, "anvil down", http.StatusBadGateway)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *proxy) point(u string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if u == "" {
		p.target = nil
		return
	}
	p.target, _ = url.Parse(u)
}

// faultSubject is what the fault phases drive: an Anchorer of one log or
// a Batcher of several.
type faultSubject interface {
	Drain(ctx context.Context) error
	Queue() anchor.Queue
	Faults() int
	// backlog is the number of sealed epochs not yet confirmed on chain.
	backlog() int
	// check verifies every log against the chain and returns how many
	// epochs they have in all.
	check(t *testing.T, c chain.Client, d *chain.Deployment) int
}

type anchorerSubject struct {
	*anchor.Anchorer
	dir string
}

func (a anchorerSubject) backlog() int { return a.Window().Epochs }

func (a anchorerSubject) check(t *testing.T, c chain.Client, d *chain.Deployment) int {
	checkAnchored(t, a.dir, c, d.EpochAnchor, a.Operator())
	if w := a.Window(); w.Events != 0 {
		t.Fatalf("window after the last drain: %+v", w)
	}
	return int(a.Queue().Confirmed())
}

type batcherSubject struct {
	*anchor.Batcher
	dirs []string
	file string
}

func (b batcherSubject) backlog() int {
	n := b.Waiting()
	for _, e := range b.Queue().Pending {
		n += int(e.Count)
	}
	return n
}

func (b batcherSubject) check(t *testing.T, c chain.Client, d *chain.Deployment) int {
	for _, dir := range b.dirs {
		checkBatched(t, dir, c, d, b.Operator(), b.file)
	}
	if q := b.Queue(); len(q.Pending) != 0 {
		t.Fatalf("%d batches pending after the last drain", len(q.Pending))
	}
	lines, err := format.ReadBatchesFile(b.file)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range lines {
		n += len(l.Entries)
	}
	return n
}

// TestAnchorerFaultsAnvil drives one anchorer through the faults of a real
// chain (faultPhases). Its recorder syncs: the deep reorg re-queues trimmed
// epochs from the log's epoch headers, which a reader finds once durable.
func TestAnchorerFaultsAnvil(t *testing.T) {
	faultPhases(t, 1, recorder.SyncGroup, func(ctx context.Context, c chain.Client, d *chain.Deployment, key *ecdsa.PrivateKey, opts anchor.Options, recs []*recorder.Recorder, dirs []string) (faultSubject, func(context.Context) error) {
		opts.Position = recs[0].Position
		a, err := anchor.Open(ctx, dirs[0], c, opts)
		if err != nil {
			t.Fatal(err)
		}
		return anchorerSubject{a, dirs[0]}, func(ctx context.Context) error { defer a.Close(); return a.Run(ctx, recs[0].Sealed()) }
	})
}

// TestBatcherFaultsAnvil drives one Batcher of three logs, publishing in
// events, through the same faults (faultPhases).
func TestBatcherFaultsAnvil(t *testing.T) {
	faultPhases(t, 3, recorder.SyncNone, func(ctx context.Context, c chain.Client, d *chain.Deployment, key *ecdsa.PrivateKey, opts anchor.Options, recs []*recorder.Recorder, dirs []string) (faultSubject, func(context.Context) error) {
		file := filepath.Join(t.TempDir(), "batches.jsonl")
		b, err := anchor.OpenBatcher(ctx, c, anchor.BatchOptions{Options: opts, BatchesFile: file, Publish: anchor.PublishEvents})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range recs {
			if _, err := b.AddLog(anchor.LogSource{Dir: dirs[i], Sealed: r.Sealed(), Position: r.Position}); err != nil {
				t.Fatal(err)
			}
		}
		return batcherSubject{b, dirs, file}, func(ctx context.Context) error { defer b.Close(); return b.Run(ctx) }
	})
}

// faultPhases drives an anchorer of n logs, recorded with policy, through the
// faults of a real chain, in phases, recording an epoch count into every log between them:
// anvil killed and restarted (state kept with --state), mining stopped
// (stuck transactions replaced with bumped fees), a shallow reorg
// (evm_revert of blocks holding unconfirmed anchors), a deep reorg
// (evm_revert past confirmed anchors, beyond the one the queue keeps: the
// others come back from the log or the batches file), an anvil_reorg, and
// a nonce gap
// left by another user of the key. At the end every epoch of every log is
// on chain exactly once, in order, the logs verify against the chain, and
// nothing is left to anchor.
func faultPhases(t *testing.T, n int, policy recorder.SyncPolicy, open func(ctx context.Context, c chain.Client, d *chain.Deployment, key *ecdsa.PrivateKey, opts anchor.Options, recs []*recorder.Recorder, dirs []string) (faultSubject, func(context.Context) error)) {
	state := filepath.Join(t.TempDir(), "anvil-state.json")
	opts := anvil.Options{Args: []string{"--state", state}}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	node, err := anvil.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { node.Stop() }()
	px := newProxy(t)
	px.point(node.URL())
	rc, err := rpc.DialContext(ctx, px.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	client := ethclient.NewClient(rc)
	key := node.Keys()[0]
	d := deployAnchor(t, client, key)

	dirs := make([]string, n)
	recs := make([]*recorder.Recorder, n)
	for i := range recs {
		dirs[i] = t.TempDir()
		recs[i] = logtest.Open(t, dirs[i], recorder.Options{Recorder: fmt.Sprintf("faults-%d", i), EpochSize: 20, EpochMaxAge: -1, Sync: policy})
	}
	gen := workload.New(3)
	recordEpochs := func(k int) {
		for _, r := range recs {
			for range k * 20 {
				if _, err := r.Record(ctx, gen.Next()); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	a, run := open(ctx, client, d, key, anchor.Options{Contract: d.EpochAnchor, Key: key, FromBlock: d.Block,
		Confirmations: 2, Poll: 50 * time.Millisecond, ResubmitAfter: time.Second, MaxBackoff: 500 * time.Millisecond,
		KeepAnchored: 1, Logf: logf(t)}, recs, dirs)
	runCtx, stop := context.WithCancel(ctx)
	runErr := make(chan error, 1)
	go func() { runErr <- run(runCtx) }()
	drain := func(phase string) {
		t.Helper()
		dctx, c := context.WithTimeout(ctx, 30*time.Second)
		defer c()
		if err := a.Drain(dctx); err != nil {
			t.Fatalf("%s: drain: %v (queue %+v)", phase, err, a.Queue().Pending)
		}
		if k := a.backlog(); k != 0 {
			t.Fatalf("%s: %d epochs not anchored after drain", phase, k)
		}
	}
	call := func(method string, args ...any) any {
		t.Helper()
		var out any
		if err := rc.CallContext(ctx, &out, method, args...); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return out
	}
	// anvil automines transactions; empty blocks (for confirmations) come
	// from this ticker while it is on.
	var ticking sync.Mutex
	tickOn := true
	setTicking := func(on bool) { ticking.Lock(); tickOn = on; ticking.Unlock() }
	go func() {
		for runCtx.Err() == nil {
			time.Sleep(100 * time.Millisecond)
			ticking.Lock()
			on := tickOn
			ticking.Unlock()
			if on {
				_ = rc.CallContext(runCtx, nil, "evm_mine")
			}
		}
	}()

	// 1. Steady state.
	recordEpochs(3)
	drain("steady")

	// 2. anvil killed mid-run: epochs sealed while it is down wait (the
	// backlog grows), are anchored once it is back.
	px.point("")
	if err := node.Stop(); err != nil {
		t.Fatal(err)
	}
	faults := a.Faults()
	recordEpochs(4)
	waitFor(t, "the backlog to grow to ≥ 4 epochs while anvil is down", func() bool { return a.backlog() >= 4 })
	waitFor(t, "an RPC failure while anvil is down", func() bool { return a.Faults() > faults })
	if node, err = anvil.Start(ctx, opts); err != nil {
		t.Fatal(err)
	}
	px.point(node.URL())
	drain("restart")

	// 3. Mining stopped: the anchor transaction stays pending and is replaced
	// with higher fees until mining resumes.
	setTicking(false)
	call("evm_setAutomine", false)
	recordEpochs(1)
	deadline := time.Now().Add(20 * time.Second)
	for {
		q := a.Queue()
		if len(q.Pending) > 0 && len(q.Pending[0].Txs) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no replacement transaction: %+v", q.Pending)
		}
		time.Sleep(100 * time.Millisecond)
	}
	call("evm_setAutomine", true)
	setTicking(true)
	drain("stuck")
	q := a.Queue()
	if last := q.Anchored[len(q.Anchored)-1]; last.Submissions < 2 {
		t.Errorf("stuck entry %d anchored after %d submissions, want ≥ 2", last.Epoch, last.Submissions)
	}

	// 4. Shallow reorg: blocks with mined but unconfirmed anchors disappear.
	setTicking(false)
	snap := call("evm_snapshot")
	recordEpochs(2)
	waitMined(t, a, 1)
	call("evm_revert", snap)
	setTicking(true)
	drain("shallow reorg")

	// 5. Deep reorg: confirmed anchors disappear (a revert past the
	// confirmation depth); they are re-anchored from the queue.
	snap = call("evm_snapshot")
	recordEpochs(2)
	drain("before deep reorg")
	call("evm_revert", snap)
	waitFor(t, "deep reorg noticed", func() bool { return a.backlog() > 0 })
	drain("deep reorg")

	// 6. anvil's own reorg RPC: the block holding a fresh anchor is replaced
	// by an empty one.
	setTicking(false)
	recordEpochs(1)
	waitMined(t, a, 1)
	call("anvil_reorg", 1, []any{})
	setTicking(true)
	drain("anvil_reorg")

	// 7. A nonce gap left by another user of the key: its transaction takes
	// the next nonce, ours the one after, then its transaction is dropped.
	// Ours can never be mined at its nonce; it is re-sent below the gap.
	setTicking(false)
	call("evm_setAutomine", false)
	other := sendOther(t, ctx, client, key)
	recordEpochs(1)
	waitFor(t, "anchor sent above the other sender's nonce", func() bool {
		q := a.Queue()
		return len(q.Pending) > 0 && len(q.Pending[0].Txs) > 0
	})
	call("anvil_dropTransaction", other.Hex())
	call("evm_setAutomine", true)
	setTicking(true)
	drain("nonce gap")
	for _, r := range recs {
		if err := r.Flush(); err != nil {
			t.Fatal(err)
		}
		if pos := r.Position(); pos.OpenEvents != 0 {
			t.Fatalf("open epoch not empty: %+v", pos)
		}
	}

	stop()
	if err := <-runErr; err != nil {
		t.Fatal(err)
	}
	if got := a.check(t, client, d); got != 14*n {
		t.Fatalf("%d epochs confirmed, want %d", got, 14*n)
	}
}

// sendOther sends a plain transfer with key at its next nonce, as another
// program holding the operator key would, and returns its hash.
func sendOther(t *testing.T, ctx context.Context, c *ethclient.Client, key *ecdsa.PrivateKey) common.Hash {
	t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := c.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	chainID, err := c.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tip, feeCap, err := chain.Fees(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
		Gas: 21000, To: &from, Value: big.NewInt(1)}), types.LatestSignerForChainID(chainID), key)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	return tx.Hash()
}

// waitFor polls ok until it holds, and fails the test if it does not
// within waitTimeout.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out after %s waiting for %s", waitTimeout, what)
		case <-tick.C:
		}
	}
}

const waitTimeout = 20 * time.Second

// waitMined waits until n pending entries are mined.
func waitMined(t *testing.T, a faultSubject, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		q := a.Queue()
		m := 0
		for _, e := range q.Pending {
			if e.State == anchor.StateMined {
				m++
			}
		}
		if m >= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, e := range a.Queue().Pending {
		t.Logf("pending %+v", *e)
	}
	t.Fatalf("entries not mined")
}

var _ = errors.New
