package serve_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/embedded"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/serve"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

// With in-process anchoring on the embedded chain, sealed epochs are
// anchored while the daemon serves (the window in /v1/status closes), the
// last one at shutdown, and the log verifies against the chain.
func TestAnchoring(t *testing.T) {
	e, err := embedded.New(backend.EmbeddedOptions{BlockPeriod: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	key := e.Keys()[0]
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dep, err := chain.Deploy(ctx, e.Client(), key, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	d := start(t, serve.Config{Dir: dir, Recorder: recorder.Options{EpochSize: 5, EpochMaxAge: -1},
		Anchor: &serve.Anchoring{Open: func(ctx context.Context, dir string, position func() recorder.Position) (serve.Anchorer, error) {
			return anchor.Open(ctx, dir, e.Client(), anchor.Options{Contract: dep.EpochAnchor, Key: key, FromBlock: dep.Block, Logf: t.Logf, Position: position})
		}}})
	c := newClient(t, d)
	if s := c.status(); s.Anchoring == nil || s.Anchoring.LastConfirmed != nil {
		t.Fatalf("status before any event: anchoring %+v, want a window with nothing confirmed", s.Anchoring)
	}
	for i := range 23 {
		c.receipt(event(i))
	}
	// Epochs 0..3 are sealed; wait until all are confirmed.
	var s serve.Status
	for s = c.status(); s.Anchoring.LastConfirmed == nil || *s.Anchoring.LastConfirmed < 3; s = c.status() {
		if ctx.Err() != nil {
			t.Fatalf("epochs not anchored in time: %+v", s.Anchoring)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s.Anchoring.Epochs != 0 || s.Anchoring.Events != 3 {
		t.Errorf("window after 4 confirmed epochs: %+v, want 0 epochs and the 3 open events", s.Anchoring)
	}
	shutdown(t, d) // seals epoch 4 and waits for its anchor
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	id, err := l.LogID()
	if err != nil {
		t.Fatal(err)
	}
	src := onchain.LogAnchors{Client: e.Client(), Contract: dep.EpochAnchor, Operator: chain.Address(key), LogID: id, FromBlock: dep.Block}
	rep, err := verifier.VerifyLog(ctx, l, src, verifier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != verifier.Verified || rep.AnchoredEvents != 23 || rep.AnchoredEpochs != 5 {
		t.Fatalf("verdict %s, %d events in %d anchored epochs, want verified with 23 in 5: %v", rep.Verdict, rep.AnchoredEvents, rep.AnchoredEpochs, rep.Findings)
	}
	q, err := anchor.ReadQueue(dir)
	if err != nil || len(q.Anchored) != 5 || len(q.Pending) != 0 {
		t.Fatalf("anchor queue after shutdown: %+v %v", q, err)
	}
}

// An anchorer that cannot be opened fails Start with its error, closing the
// log: a typed nil returned beside the error is not kept (it used to make
// Start's clean-up call a nil stop function).
func TestAnchoringOpenFails(t *testing.T) {
	refused := errors.New("no EpochAnchor there")
	_, err := serve.Start(context.Background(), serve.Config{Dir: t.TempDir(), Recorder: recorder.Options{Recorder: "op"}, Listen: "127.0.0.1:0",
		Anchor: &serve.Anchoring{Open: func(context.Context, string, func() recorder.Position) (serve.Anchorer, error) {
			var a *anchor.Anchorer
			return a, refused
		}}})
	if !errors.Is(err, refused) {
		t.Fatalf("Start = %v, want the anchorer's error", err)
	}
}

// With Limits.MaxWindow, appends are refused with 503 and Retry-After while
// the unanchored window has reached the bound (here: the chain mines
// nothing, so sealed epochs wait), nothing of them is recorded, and they
// are accepted again once the anchors are confirmed; /v1/status shows the
// backlog meanwhile.
func TestMaxWindowBackPressure(t *testing.T) {
	e, err := embedded.New(backend.EmbeddedOptions{BlockPeriod: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	key := e.Keys()[1]
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dep, err := chain.Deploy(ctx, e.Client(), key, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := start(t, serve.Config{Dir: t.TempDir(), Recorder: recorder.Options{EpochSize: 5, EpochMaxAge: -1},
		Limits: serve.Limits{MaxWindow: recorder.WindowLimit{Events: 10}},
		Anchor: &serve.Anchoring{Open: func(ctx context.Context, dir string, position func() recorder.Position) (serve.Anchorer, error) {
			return anchor.Open(ctx, dir, e.Client(), anchor.Options{Contract: dep.EpochAnchor, Key: key, FromBlock: dep.Block, Confirmations: 1, Logf: t.Logf, Position: position})
		}}})
	defer shutdown(t, d)
	c := newClient(t, d)
	e.Pause()
	for i := range 10 {
		c.receipt(event(i))
	}
	// The second epoch reaches the anchorer's queue shortly after it seals.
	s := c.status()
	for ; s.Anchoring.Epochs < 2; s = c.status() {
		select {
		case <-ctx.Done():
			t.Fatalf("second epoch never queued: %+v", s.Anchoring)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if s.Anchoring.Events != 10 || s.Anchoring.Epochs != 2 || s.Anchoring.Oldest <= 0 {
		t.Fatalf("window after 10 events, nothing mined: %+v, want 10 events in 2 sealed epochs, the oldest sealed a while ago", s.Anchoring)
	}
	req, _ := http.NewRequest("POST", "http://"+d.Addr().String()+"/v1/events", strings.NewReader(event(10)))
	req.Header.Set("Authorization", "Bearer "+d.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "unanchored window holds 10 events, the limit is 10") {
		t.Fatalf("append past the window: %d (Retry-After %q) %s, want 503 with Retry-After naming the window", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if st, b := c.do("POST", "/v1/events:batch", "["+event(10)+"]"); st != http.StatusServiceUnavailable {
		t.Fatalf("batch past the window: %d %s", st, b)
	}
	if p := c.status().Position; p.Next != 10 {
		t.Fatalf("refused appends recorded: next seq %d, want 10", p.Next)
	}
	e.Resume()
	for s = c.status(); s.Anchoring.Events >= 10; s = c.status() {
		select {
		case <-ctx.Done():
			t.Fatalf("window never closed: %+v", s.Anchoring)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if rc := c.receipt(event(10)); rc.Seq != 10 {
		t.Fatalf("append after the anchors: seq %d, want 10", rc.Seq)
	}
}
