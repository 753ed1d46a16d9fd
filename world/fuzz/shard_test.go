package fuzz_test

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/world"
	"github.com/agentflightrecorder/afr/world/fuzz"
)

// drawnSequences runs campaign c with an invariant that always holds and
// returns the sequences it drew, each as the counts Counter.count() had
// after its calls ("3,1003,1003"): a sequence starts on the block after
// the campaign's first, since the World is reverted before each (the
// campaign runs Mined, so that each call is a block).
func drawnSequences(t *testing.T, w *world.World, a *world.Artifact, c fuzz.Campaign) []string {
	t.Helper()
	c.Mined = true
	ctx := context.Background()
	start, err := w.Client().BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var seqs [][]string
	c.Invariants = []fuzz.Invariant{{Name: "records the counts", Check: func(ctx context.Context, w *world.World) error {
		head, err := w.Client().BlockNumber(ctx)
		if err != nil {
			return err
		}
		if head == start+1 {
			seqs = append(seqs, nil)
		}
		seqs[len(seqs)-1] = append(seqs[len(seqs)-1], count(ctx, failer{}, w, a).String())
		return nil
	}}}
	if v, err := fuzz.Invariants(ctx, t, w, c); err != nil || v != nil {
		t.Fatalf("Invariants = %v, %v; want it to hold", v, err)
	}
	out := make([]string, len(seqs))
	for i, s := range seqs {
		out[i] = strings.Join(s, ",")
	}
	return out
}

// TestShardsSplitTheCampaign: two shards of a campaign of 9 runs draw 5
// and 4 sequences, none drawn by both; shard 1/2 draws the first 5
// sequences of the unsharded campaign (its seed), and a campaign of one
// shard draws exactly the unsharded campaign's sequences.
func TestShardsSplitTheCampaign(t *testing.T) {
	w, a := counterWorld(t)
	c := counterCampaign(w, a)
	c.Runs = 9
	whole := drawnSequences(t, w, a, c)
	if len(whole) != 9 {
		t.Fatalf("the unsharded campaign drew %d sequences, want 9", len(whole))
	}
	c.Shard = fuzz.Shard{Index: 0, Count: 1}
	if one := drawnSequences(t, w, a, c); !slices.Equal(one, whole) {
		t.Errorf("one shard drew\n%q\nwant the unsharded campaign's\n%q", one, whole)
	}
	c.Shard = fuzz.Shard{Index: 0, Count: 2}
	first := drawnSequences(t, w, a, c)
	c.Shard = fuzz.Shard{Index: 1, Count: 2}
	second := drawnSequences(t, w, a, c)
	if len(first) != 5 || len(second) != 4 {
		t.Fatalf("shards drew %d and %d sequences, want 5 and 4", len(first), len(second))
	}
	if !slices.Equal(first, whole[:5]) {
		t.Errorf("shard 1/2 drew\n%q\nwant the unsharded campaign's first five\n%q", first, whole[:5])
	}
	for _, s := range second {
		if slices.Contains(first, s) {
			t.Errorf("both shards drew the sequence %s", s)
		}
	}
}

// TestShardFindsWhatItDraws: the invariant "count is not N", N a count
// reached only by a sequence of shard 2/2, is broken in shard 2/2 and
// holds in shard 1/2.
func TestShardFindsWhatItDraws(t *testing.T) {
	ctx := context.Background()
	w, a := counterWorld(t)
	c := counterCampaign(w, a)
	c.Runs = 8
	c.Shard = fuzz.Shard{Index: 0, Count: 2}
	counts := map[string]bool{}
	for _, s := range drawnSequences(t, w, a, c) {
		for _, n := range strings.Split(s, ",") {
			counts[n] = true
		}
	}
	c.Shard = fuzz.Shard{Index: 1, Count: 2}
	var planted string
	for _, s := range drawnSequences(t, w, a, c) {
		for _, n := range strings.Split(s, ",") {
			if !counts[n] && planted == "" {
				planted = n
			}
		}
	}
	if planted == "" {
		t.Fatal("shard 2/2 reached no count that shard 1/2 did not")
	}
	want, _ := new(big.Int).SetString(planted, 10)
	c.Invariants = []fuzz.Invariant{{Name: "count is not " + planted, Check: func(ctx context.Context, w *world.World) error {
		if n := count(ctx, failer{}, w, a); n.Cmp(want) == 0 {
			return fmt.Errorf("count = %s", n)
		}
		return nil
	}}}
	for i, wantFound := range []bool{false, true} {
		c.Shard = fuzz.Shard{Index: i, Count: 2}
		v, err := fuzz.Invariants(ctx, t, w, c)
		if err != nil {
			t.Fatal(err)
		}
		if (v != nil) != wantFound {
			t.Errorf("shard %s: violation %v, want found = %v", c.Shard, v, wantFound)
		}
	}
}

// TestShardRefusesBadShards: an index out of range, or more shards than
// runs, is an error that says so.
func TestShardRefusesBadShards(t *testing.T) {
	ctx := context.Background()
	w, a := counterWorld(t)
	c := counterCampaign(w, a)
	c.Runs = 2
	for _, tc := range []struct {
		shard fuzz.Shard
		want  string
	}{
		{fuzz.Shard{Index: 2, Count: 2}, "want 0 ≤ index < count"},
		{fuzz.Shard{Index: -1, Count: 2}, "want 0 ≤ index < count"},
		{fuzz.Shard{Index: 2, Count: 3}, "has no run: use at most 2 shards"},
	} {
		c.Shard = tc.shard
		if _, err := fuzz.Invariants(ctx, t, w, c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("shard %+v: err = %v, want %q", tc.shard, err, tc.want)
		}
	}
}
