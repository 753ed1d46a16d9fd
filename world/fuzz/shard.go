package fuzz

import (
	"flag"
	"fmt"
	"strconv"
)

// Shard is one of Count parts of an invariant campaign, so that one
// campaign can run on several processes at once (rapid's flags are
// process-wide and its Check is serial, so one process runs one campaign
// at a time). Index counts from 0. Shard i runs its share of the
// campaign's runs — Runs/Count, the first Runs%Count shards one more —
// from a seed of its own: shard 0 keeps the campaign's seed (so it draws
// the first sequences of the unsharded campaign), every other shard a
// seed mixed from the campaign's seed and i, so the shards together draw
// Runs different sequences rather than the same ones Count times. The
// zero Shard, like Count 1, is the whole campaign, unchanged.
//
// The runs and seed split are the ones in effect: -rapid.checks and
// -rapid.seed (or $RAPID_CHECKS, $RAPID_SEED), when given, are split as
// Campaign.Runs and Campaign.Seed are. A shard's counterexample is saved
// under the name of the test that ran it (t.Name()), so shards run as
// separate tests (as afrspec's CampaignShards declares them) keep fail
// files of their own. A coverage-guided campaign (Campaign.Coverage) is
// split the same way: its shard runs its share of Runs from the shard's
// seed, with a corpus of its own.
type Shard struct {
	Index, Count int
}

// String is the shard as "i/n", counting from 1 as it is shown in spec
// names (shard 0 of 2 is "1/2").
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index+1, s.Count) }

// sharded reports whether s splits its campaign, or why s is not a shard.
func (s Shard) sharded() (bool, error) {
	switch {
	case s.Count == 0 && s.Index == 0:
		return false, nil
	case s.Count < 1 || s.Index < 0 || s.Index >= s.Count:
		return false, fmt.Errorf("fuzz: shard index %d of %d: want 0 ≤ index < count", s.Index, s.Count)
	}
	return s.Count > 1, nil
}

// split is the shard's number of runs and seed, of a campaign of runs
// sequences from seed.
func (s Shard) split(runs int, seed uint64) (int, uint64) {
	n := runs / s.Count
	if s.Index < runs%s.Count {
		n++
	}
	if s.Index == 0 {
		return n, seed
	}
	return n, splitmix64(seed ^ uint64(s.Index)*0x9e3779b97f4a7c15)
}

// splitmix64 is the finalizer of the SplitMix64 generator: it spreads the
// bits of x, so that nearby inputs give unrelated seeds. rapid draws a
// run's cases from seed, seed+1, seed+3, … (the seed plus a growing
// step), so shards' seeds must be far apart, not consecutive.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// apply sets rapid's flags, already set for the whole campaign by
// setFlags (or the command line), to shard s's runs and seed, and returns
// what restores them. It changes nothing for an unsharded s; a seed of 0
// (a new seed each run, -rapid.seed=0) stays 0 in every shard.
func (s Shard) apply() (restore func(), err error) {
	sharded, err := s.sharded()
	if err != nil || !sharded {
		return func() {}, err
	}
	checks, seedFlag := flag.Lookup("rapid.checks"), flag.Lookup("rapid.seed")
	if checks == nil || seedFlag == nil {
		return nil, fmt.Errorf("fuzz: rapid has no -rapid.checks or -rapid.seed flag")
	}
	runs, err := strconv.Atoi(checks.Value.String())
	if err != nil {
		return nil, fmt.Errorf("fuzz: -rapid.checks: %w", err)
	}
	seed, err := strconv.ParseUint(seedFlag.Value.String(), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("fuzz: -rapid.seed: %w", err)
	}
	n, sseed := s.split(runs, seed)
	if seed == 0 {
		sseed = 0
	}
	if n == 0 {
		return nil, fmt.Errorf("fuzz: shard %s of a campaign of %d runs has no run: use at most %d shards", s, runs, runs)
	}
	return forceFlags(map[string]string{"rapid.checks": strconv.Itoa(n), "rapid.seed": strconv.FormatUint(sseed, 10)}), nil
}
