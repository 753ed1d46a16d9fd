package world_test

import (
	"context"
	"errors"
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/world"
)

func newWorld(t testing.TB, cfg world.Config) *world.World {
	t.Helper()
	w, err := world.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	return w
}

// count reads Counter.count().
func count(t testing.TB, w *world.World) uint64 {
	t.Helper()
	at := w.Counter()
	out, err := w.Client().CallContract(context.Background(), ethereum.CallMsg{To: &at, Data: common.FromHex("0x06661abd")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(out).Uint64()
}

// A World on anvil whose binary is missing fails with the lookup's error,
// not a panic in the World's cleanup.
func TestMissingAnvilBinary(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "anvil")
	_, err := world.New(context.Background(), world.Config{Backend: backend.KindAnvil, Anvil: world.AnvilConfig{Binary: missing}})
	if !errors.Is(err, anvil.ErrNotFound) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("err = %v, want anvil.ErrNotFound naming %s", err, missing)
	}
	t.Chdir(t.TempDir()) // no module root: no node_modules/.bin/anvil
	t.Setenv("PATH", t.TempDir())
	_, err = world.New(context.Background(), world.Config{Backend: backend.KindAnvil})
	if !errors.Is(err, anvil.ErrNotFound) || !strings.Contains(err.Error(), "$PATH") {
		t.Fatalf("err = %v, want anvil.ErrNotFound saying where it looked", err)
	}
}

func TestSetPolicy(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, world.Config{})
	onlyPing := &pdr.Policy{Name: "only-ping", Rules: []pdr.Rule{{Name: "ping", Effect: format.DecisionAllow, Targets: []common.Address{w.Sink()}, Method: "ping()"}}}
	w.SetPolicy(onlyPing)
	if w.Policy() != onlyPing {
		t.Fatal("SetPolicy did not set the World's policy")
	}
	p, err := w.Propose(ctx, "agent", w.CounterCall(1))
	if err != nil {
		t.Fatal(err)
	}
	if p.Evaluation.Allowed() {
		t.Fatal("Counter.bump allowed by a policy that allows only Sink.ping")
	}
	w.SetPolicy(nil)
	if p, err = w.Propose(ctx, "agent", w.CounterCall(1)); err != nil {
		t.Fatal(err)
	}
	if !p.Evaluation.Allowed() || w.Policy().Name != "afrspec-default" {
		t.Fatalf("SetPolicy(nil): policy %q, Counter.bump allowed %v; want the default policy, allowing it", w.Policy().Name, p.Evaluation.Allowed())
	}
}

// Revert undoes the chain, the log and its anchors: after it, a spec sees
// the snapshot's state and a log that verifies against the reverted chain.
func TestSnapshotRevert(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, world.Config{})
	s, err := w.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var roots []format.Digest
	for round := range 3 {
		if err := w.Revert(ctx, s); err != nil {
			t.Fatal(err)
		}
		if c := count(t, w); c != 0 {
			t.Fatalf("round %d: Counter.count() = %d after Revert, want 0", round, c)
		}
		if n := w.Position().Next; n != 0 {
			t.Fatalf("round %d: the log has %d events after Revert, want 0", round, n)
		}
		p, err := w.Propose(ctx, "agent", w.CounterCall(5))
		if err != nil {
			t.Fatal(err)
		}
		res := w.Execute(ctx, p)
		if !res.Succeeded() {
			t.Fatalf("round %d: %s", round, res)
		}
		if _, err := w.RecordOutcome(ctx, p, res); err != nil {
			t.Fatal(err)
		}
		if c := count(t, w); c != 5 {
			t.Fatalf("round %d: Counter.count() = %d, want 5", round, c)
		}
		anchored, err := w.SealAndAnchor(ctx)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if len(anchored) != 1 || anchored[0].Epoch != 0 {
			t.Fatalf("round %d: anchored %+v, want epoch 0 alone (the chain's anchor head was reverted)", round, anchored)
		}
		v, err := w.Verify(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if v.Verdict != verifier.Verified || v.Report.Executions.Matched != 1 {
			t.Fatalf("round %d: verdict %s, %d executions matched, findings %v; want verified, 1", round, v.Verdict, v.Report.Executions.Matched, v.Findings)
		}
		roots = append(roots, anchored[0].Root)
	}
	if roots[0] != roots[1] || roots[1] != roots[2] {
		t.Fatalf("roots after each Revert differ: %x", roots)
	}
}

// A revert that fails (here: another World's snapshot, whose block this
// chain does not have) leaves the World as it was, usable: its log still
// records and verifies (before, the recorder was closed and left nil).
func TestFailedRevertLeavesTheWorldUsable(t *testing.T) {
	ctx := context.Background()
	a, b := newWorld(t, world.Config{}), newWorld(t, world.Config{Seed: 2})
	foreign, err := a.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res := b.Send(ctx, b.Agent(), b.Counter(), nil, b.CounterCall(1).Data); !res.Succeeded() {
		t.Fatal(res)
	}
	if err := b.Revert(ctx, foreign); err == nil {
		t.Fatal("a revert to another chain's snapshot succeeded")
	}
	if _, err := b.Record(ctx, format.Event{Tool: "after", Kind: format.KindToolCall}); err != nil {
		t.Fatalf("recording after a failed revert: %v", err)
	}
	if got := count(t, b); got != 1 {
		t.Fatalf("count %d after a failed revert, want 1 (nothing reverted)", got)
	}
	v, err := b.SealAndVerify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v.Verdict != verifier.Verified {
		t.Fatalf("verdict %s after a failed revert: %v", v.Verdict, v.Findings)
	}
}
