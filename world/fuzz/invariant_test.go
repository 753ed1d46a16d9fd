package fuzz_test

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/world"
	"github.com/agentflightrecorder/afr/world/fuzz"
)

// countBelow1000 is the invariant "Counter.count() < 1000".
func countBelow1000(w *world.World, a *world.Artifact) fuzz.Invariant {
	return fuzz.Invariant{Name: "count below 1000", Check: func(ctx context.Context, w *world.World) error {
		if n := count(ctx, failer{}, w, a); n.Cmp(big.NewInt(1000)) >= 0 {
			return fmt.Errorf("count = %s", n)
		}
		return nil
	}}
}

// failer panics: count's errors are not expected in these tests.
type failer struct{}

func (failer) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

func counterCampaign(w *world.World, a *world.Artifact) fuzz.Campaign {
	return fuzz.Campaign{
		Targets:    []fuzz.Target{{Address: w.Counter(), ABI: a.ABI}},
		Senders:    []*world.Actor{w.Agent()},
		Invariants: []fuzz.Invariant{countBelow1000(w, a)},
		NoFailFile: true,
	}
}

// TestInvariantsShrinkTheSequence: "count < 1000" breaks once the bumps of
// a sequence add up to 1000; the sequence shrinks to one bump(1000), with
// the trace of that call, and the World is left as it was.
func TestInvariantsShrinkTheSequence(t *testing.T) {
	ctx := context.Background()
	w, a := counterWorld(t)
	v, err := fuzz.Invariants(ctx, t, w, counterCampaign(w, a))
	if err != nil || v == nil {
		t.Fatalf("Invariants = %v, %v; want a violation", v, err)
	}
	t.Log(v)
	if len(v.Calls) != 1 || v.Calls[0].Method.Name != "bump" || v.Calls[0].Args[0].(*big.Int).Int64() != 1000 {
		t.Errorf("shrunk to %v, want one bump(1000)", v.Calls)
	}
	if !strings.Contains(v.String(), "1. agent") || !strings.Contains(v.String(), "bump(by: 1000)") || v.Trace == "" {
		t.Errorf("String() =\n%s", v)
	}
	if n := count(ctx, t, w, a); n.Sign() != 0 {
		t.Errorf("count after the campaign = %s, want 0 (the World as it was)", n)
	}
}

// TestInvariantsFilterMethods: with bump excluded no call can change count,
// so the invariant holds; with nothing left to call the campaign is refused.
func TestInvariantsFilterMethods(t *testing.T) {
	ctx := context.Background()
	w, a := counterWorld(t)
	c := counterCampaign(w, a)
	c.Targets[0].Views = true
	c.Targets[0].Exclude = []string{"bump(uint256)"}
	c.Runs = 4
	if v, err := fuzz.Invariants(ctx, t, w, c); err != nil || v != nil {
		t.Fatalf("without bump: Invariants = %v, %v; want it to hold", v, err)
	}
	c.Targets[0].Views = false
	if _, err := fuzz.Invariants(ctx, t, w, c); err == nil || !strings.Contains(err.Error(), "no method to call") {
		t.Errorf("nothing to call: err = %v", err)
	}
}

// BenchmarkInvariantCalls: calls per second of a campaign on the
// in-process chain (Counter.bump, the invariant a count() call after each),
// beside a baseline in the same run: the same calls without the campaign
// (a Revert every DefaultDepth calls, a bump, a count()).
func BenchmarkInvariantCalls(b *testing.B) {
	ctx := context.Background()
	w, a := counterWorld(b)
	b.Run("campaign", func(b *testing.B) {
		calls := 0
		c := counterCampaign(w, a)
		c.Runs = 8
		c.Invariants = []fuzz.Invariant{{Name: "count readable", Check: func(ctx context.Context, w *world.World) error {
			calls++
			count(ctx, failer{}, w, a)
			return nil
		}}}
		for range b.N {
			if v, err := fuzz.Invariants(ctx, b, w, c); err != nil || v != nil {
				b.Fatalf("Invariants = %v, %v", v, err)
			}
		}
		b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "calls/s")
	})
	// The baselines: the same bodies without the campaign, run as the
	// campaign runs its calls (applied in place), mined as it mines the
	// sequence it returns, and as a plain Send (simulation, gas estimate,
	// signature, mining).
	bump := func(i int) []byte { return a.Pack("bump", big.NewInt(int64(i))) }
	for _, base := range []struct {
		name string
		call func(i int) error
	}{
		{"baseline", func(i int) error {
			_, err := w.Apply(ctx, w.Agent(), w.Counter(), nil, bump(i), fuzz.CallGas)
			return err
		}},
		{"baseline-mined", func(i int) error {
			if res := w.Send(ctx, w.Agent(), w.Counter(), nil, bump(i), world.GasLimit(fuzz.CallGas), world.Unsigned()); !res.Succeeded() {
				return fmt.Errorf("bump: %s", res)
			}
			return nil
		}},
		{"baseline-send", func(i int) error {
			if res := w.Send(ctx, w.Agent(), w.Counter(), nil, bump(i)); !res.Succeeded() {
				return fmt.Errorf("bump: %s", res)
			}
			return nil
		}},
	} {
		b.Run(base.name, func(b *testing.B) {
			snap, err := w.Snapshot(ctx)
			if err != nil {
				b.Fatal(err)
			}
			for i := range b.N * 8 * fuzz.DefaultDepth {
				if i%fuzz.DefaultDepth == 0 {
					if err := w.Revert(ctx, snap); err != nil {
						b.Fatal(err)
					}
				}
				if err := base.call(i); err != nil {
					b.Fatal(err)
				}
				count(ctx, b, w, a)
			}
			b.ReportMetric(float64(b.N*8*fuzz.DefaultDepth)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}
