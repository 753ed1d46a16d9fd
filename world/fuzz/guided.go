package fuzz

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// guided runs the campaign guided by coverage (Campaign.Coverage), as
// Medusa and Echidna do: it keeps a corpus of the sequences that reached
// an edge no earlier sequence had (each cut after its last new edge).
// Each of the campaign's Runs sequences is, one time in four or while the
// corpus is empty, drawn afresh as in the random mode (1 to Depth calls);
// otherwise it is a corpus entry mutated once: a call replaced, inserted,
// appended or deleted, one argument re-drawn, or two entries spliced. So
// a sequence that reached a state deep in a contract is kept and
// extended, where the random mode must draw the whole path again. The
// draws come from a PCG seeded with Campaign.Seed (argument values from
// rapid's generators, Generator.Example): a seed gives the same campaign
// every run, and no fail file is written. A failing sequence is shrunk by
// shrink.
func (r *runner) guided() (*Violation, error) {
	v, err := r.guide()
	if err != nil {
		return nil, errors.Join(err, revertedOrErr(r.ctx, r.w, r.snap, nil))
	}
	return v, revertedOrErr(r.ctx, r.w, r.snap, nil)
}

// guide is guided's campaign; it leaves the World as its last sequence
// left it.
func (r *runner) guide() (*Violation, error) {
	seed := r.c.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	sharded, err := r.c.Shard.sharded()
	if err != nil {
		return nil, err
	}
	if total := r.runs; sharded {
		if r.runs, seed = r.c.Shard.split(total, seed); r.runs == 0 {
			return nil, fmt.Errorf("fuzz: shard %s of a guided campaign has no run: use at most %d shards", r.c.Shard, total)
		}
	}
	g := &generator{r: r, rng: rand.New(rand.NewPCG(seed, 0x636f76))} // "cov"
	var corpus [][]draw
	for run := 1; run <= r.runs; run++ {
		var seq []draw
		if len(corpus) == 0 || g.rng.IntN(4) == 0 {
			seq = g.sequence()
		} else {
			seq = g.pick(corpus)
			for range 1 + g.rng.IntN(3) {
				seq = g.mutate(seq, g.pick(corpus))
			}
		}
		_, v, fresh, err := r.run(seq, false)
		if err != nil {
			return nil, err
		}
		if fresh > 0 {
			corpus = append(corpus, seq[:fresh])
		}
		if v == nil {
			continue
		}
		found, spent := len(v.Calls), r.spent
		shrunk, err := r.shrink(seq[:found], v.Invariant)
		if err != nil {
			return nil, err
		}
		if v, err = r.violation(shrunk, v.Invariant); err != nil {
			return nil, err
		}
		v.Report = fmt.Sprintf("[fuzz] coverage-guided campaign, seed %d: sequence %d of %d broke invariant %q after %d call(s), %d calls spent "+
			"(%d edges covered, %d sequences in the corpus); shrunk to %d call(s) in %d more calls:\n%s",
			seed, run, r.runs, v.Invariant, found, spent, r.cov.Edges(), len(corpus), len(v.Calls), r.spent-spent, numbered(v.Calls))
		return v, nil
	}
	return nil, nil
}

// numbered is calls as a numbered list, one a line.
func numbered(calls []Call) string {
	var b strings.Builder
	for i, c := range calls {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, c)
	}
	return b.String()
}

// generator draws and mutates a guided campaign's sequences.
type generator struct {
	r   *runner
	rng *rand.Rand
}

// call is a call drawn afresh: a method, a sender, its arguments.
func (g *generator) call() draw {
	i := g.rng.IntN(len(g.r.ms))
	return draw{method: i, sender: g.rng.IntN(len(g.r.c.Senders)), args: g.args(i)}
}

// args draws the arguments of method i, each from its rapid generator.
func (g *generator) args(i int) []any {
	in := g.r.ms[i].in
	args := make([]any, len(in.gens))
	for j, gen := range in.gens {
		args[j] = gen.Example(int(g.rng.Int64()))
	}
	return args
}

// sequence is a sequence of 1 to depth calls drawn afresh.
func (g *generator) sequence() []draw {
	seq := make([]draw, 1+g.rng.IntN(g.r.depth))
	for i := range seq {
		seq[i] = g.call()
	}
	return seq
}

// argument is a new value of argument j of method i in seq: one time in
// two, when seq has others, an argument of the same ABI type that another
// call of seq was sent with (Medusa's value set: a condition such as
// "y == the x of an earlier call" is met by reuse, not by chance), else a
// fresh draw.
func (g *generator) argument(seq []draw, i, j int) any {
	typ := g.r.ms[i].m.Inputs[j].Type.String()
	var same []any
	for _, d := range seq {
		for n, a := range g.r.ms[d.method].m.Inputs {
			if a.Type.String() == typ && (d.method != i || n != j) {
				same = append(same, d.args[n])
			}
		}
	}
	if len(same) > 0 && g.rng.IntN(2) == 0 {
		return same[g.rng.IntN(len(same))]
	}
	return g.r.ms[i].in.gens[j].Example(int(g.rng.Int64()))
}

// pick is a corpus entry: the newest one time in two (it reached the
// deepest state so far), else any.
func (g *generator) pick(corpus [][]draw) []draw {
	if g.rng.IntN(2) == 0 {
		return corpus[len(corpus)-1]
	}
	return corpus[g.rng.IntN(len(corpus))]
}

// mutate is a copy of a changed once; b is the other entry of a splice.
func (g *generator) mutate(a, b []draw) []draw {
	seq := slices.Clone(a)
	k := len(seq) - 1 // the call that reached the entry's last new edge, one time in two
	if g.rng.IntN(2) == 0 {
		k = g.rng.IntN(len(seq))
	}
	switch g.rng.IntN(6) {
	case 0: // replace a call
		seq[k] = g.call()
	case 1: // insert a call
		seq = slices.Insert(seq, k, g.call())
	case 2: // append a call: go on from where the entry got
		seq = append(seq, g.call())
	case 3: // delete a call
		if len(seq) > 1 {
			seq = slices.Delete(seq, k, k+1)
		} else {
			seq[0] = g.call()
		}
	case 4: // re-draw one argument
		if args := slices.Clone(seq[k].args); len(args) > 0 {
			j := g.rng.IntN(len(args))
			args[j] = g.argument(seq, seq[k].method, j)
			seq[k].args = args
		} else {
			seq[k] = g.call()
		}
	case 5: // splice: a's start, b's end
		seq = slices.Concat(seq[:k+1], b[g.rng.IntN(len(b)):])
	}
	if len(seq) > g.r.depth {
		seq = seq[:g.r.depth]
	}
	return seq
}
