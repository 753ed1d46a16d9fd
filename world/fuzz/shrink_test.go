package fuzz

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/world"
)

// TestShrinkRemovesCallsAndNarrows: a sequence of four bumps whose sum
// breaks "count below 1000" only at its third call (2^100, then 5, 7, 3)
// shrinks to the one call that matters, narrowed to bump(1000), and the
// shrunk sequence still breaks the invariant.
func TestShrinkRemovesCallsAndNarrows(t *testing.T) {
	ctx := context.Background()
	w, err := world.New(ctx, world.Config{Backend: backend.KindInProcess})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	a, err := world.TargetArtifact("Counter")
	if err != nil {
		t.Fatal(err)
	}
	counter := w.Counter()
	below := Invariant{Name: "count below 1000", Check: func(ctx context.Context, w *world.World) error {
		out, err := w.Client().CallContract(ctx, ethereum.CallMsg{To: &counter, Data: a.Pack("count")}, nil)
		if err != nil {
			return err
		}
		if n := new(big.Int).SetBytes(out); n.Cmp(big.NewInt(1000)) >= 0 {
			return fmt.Errorf("count = %s", n)
		}
		return nil
	}}
	r, err := newRunner(ctx, w, Campaign{
		Targets:    []Target{{Address: counter, ABI: a.ABI, Include: []string{"bump"}}},
		Senders:    []*world.Actor{w.Agent()},
		Invariants: []Invariant{below},
	})
	if err != nil {
		t.Fatal(err)
	}
	bump := func(n *big.Int) draw { return draw{args: []any{n}} } // method 0: bump, the only one
	seq := []draw{bump(big.NewInt(5)), bump(big.NewInt(7)), bump(new(big.Int).Lsh(big.NewInt(1), 100)), bump(big.NewInt(3))}
	shrunk, err := r.shrink(seq, below.Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(shrunk) != 1 || shrunk[0].args[0].(*big.Int).Int64() != 1000 {
		t.Fatalf("shrunk to %v, want one bump(1000)", shrunk)
	}
	if _, ok, err := r.breaks(shrunk, below.Name); !ok || err != nil {
		t.Errorf("the shrunk sequence breaks the invariant: %v, %v; want true", ok, err)
	}
}
