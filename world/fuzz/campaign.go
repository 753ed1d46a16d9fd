package fuzz

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/world"
)

// CallGas is the gas limit of a campaign's calls: 2^24, the most a
// transaction may use under EIP-7825, which any block of a local chain
// holds. Calls are sent with it and unsigned (world.MineReverting,
// world.Unsigned), so each is one execution, as forge's are, rather than
// a simulation, a gas estimate, a signature and the mined execution; a
// call that reverts is mined too (its sender's nonce moves on, its state
// does not), as in forge.
const CallGas = 1 << 24

// runner runs the sequences of one campaign on its World, in either mode.
type runner struct {
	ctx         context.Context
	w           *world.World
	c           Campaign
	ms          []method
	names       []string // the targets' names
	depth, runs int
	snap        *world.Snapshot
	cov         *backend.Coverage // the guided mode's, else nil
	spent       int               // calls sent, shrinking included
}

// newRunner checks c and saves the World for its sequences.
func newRunner(ctx context.Context, w *world.World, c Campaign) (*runner, error) {
	ms, err := c.methods()
	if err != nil {
		return nil, err
	}
	if len(c.Senders) == 0 || len(c.Invariants) == 0 {
		return nil, errors.New("fuzz: campaign: needs at least one sender and one invariant")
	}
	r := &runner{ctx: ctx, w: w, c: c, ms: ms, depth: c.Depth, runs: c.Runs}
	if r.depth <= 0 {
		r.depth = DefaultDepth
	}
	if r.runs <= 0 {
		r.runs = DefaultSequences
	}
	for _, t := range c.Targets {
		name := t.Name
		if name == "" {
			name = world.HolderName(w.Registry(), t.Address)
		}
		r.names = append(r.names, name)
	}
	if c.Coverage {
		r.cov = backend.NewCoverage()
		if err := w.Cover(nil); err != nil {
			return nil, fmt.Errorf("fuzz: a coverage-guided campaign: %w", err)
		}
	}
	if r.snap, err = w.Snapshot(ctx); err != nil {
		return nil, fmt.Errorf("fuzz: saving the World for the campaign: %w", err)
	}
	return r, nil
}

// run reverts the World and sends seq, checking every invariant after
// every call, and returns the calls sent, the violation after the first
// call that broke an invariant (nil: all held) and, in the guided mode,
// how many calls of seq it took to reach the last new edge (0: none).
// The error is a World that cannot be reverted or a call that cannot be
// packed.
func (r *runner) run(seq []draw) (done []Call, v *Violation, fresh int, err error) {
	if err := r.w.Revert(r.ctx, r.snap); err != nil {
		return nil, nil, 0, fmt.Errorf("fuzz: reverting the World: %w", err)
	}
	for i, d := range seq {
		m := r.ms[d.method]
		to := r.c.Targets[m.target].Address
		data, err := m.m.Inputs.Pack(d.args...)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("fuzz: packing %s: %w", m.m.Sig, err)
		}
		edges := 0
		if r.cov != nil {
			edges = r.cov.Edges()
			_ = r.w.Cover(r.cov) // checked by newRunner
		}
		res := r.w.Send(r.ctx, r.c.Senders[d.sender], to, nil, append(slices.Clone(m.m.ID), data...), world.GasLimit(CallGas), world.Unsigned())
		if r.cov != nil {
			_ = r.w.Cover(nil) // the invariants' calls are not the campaign's coverage
			if r.cov.Edges() > edges {
				fresh = i + 1
			}
		}
		r.spent++
		done = append(done, Call{Sender: r.c.Senders[d.sender], Target: r.names[m.target], To: to, Method: m.m, Args: d.args, Reverted: !res.Succeeded(), Result: res})
		for _, inv := range r.c.Invariants {
			if err := inv.Check(r.ctx, r.w); err != nil {
				return done, &Violation{Calls: done, Invariant: inv.Name, Err: err, start: r.snap, check: inv}, fresh, nil
			}
		}
	}
	return done, nil, fresh, nil
}

// violation runs seq, which must break invariant inv, and returns the
// Violation with the trace of its last call (the World is left as seq
// left it).
func (r *runner) violation(seq []draw, inv string) (*Violation, error) {
	_, v, _, err := r.run(seq)
	if err != nil {
		return nil, err
	}
	if v == nil || v.Invariant != inv {
		return nil, fmt.Errorf("fuzz: the shrunk sequence of %d call(s) no longer breaks invariant %q (is the invariant deterministic?)", len(seq), inv)
	}
	if tr, err := v.Calls[len(v.Calls)-1].Result.Trace(r.ctx); err == nil {
		v.Trace = tr.String()
	}
	return v, nil
}
