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
// holds. Applied in place (World.Apply) a call runs once with it; mined
// (the returned sequence, Campaign.Mined, backends that cannot apply) it
// is sent with it as its limit (world.GasLimit; unsigned, world.Unsigned,
// on the in-process chain): simulated, and mined unless it reverts,
// without a gas estimate.
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
	cov         *backend.Coverage  // the guided mode's, else nil
	apply       bool               // search and shrink with World.Apply
	send        []world.SendOption // how mined calls are sent
	spent       int                // calls sent, shrinking included
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
	r.apply = !c.Mined && w.CanApply()
	// Mined calls go unsigned only where the chain also traces them itself
	// (the in-process chain, the one that applies): elsewhere a trace is a
	// replay, which needs the signature.
	r.send = []world.SendOption{world.GasLimit(CallGas)}
	if w.CanApply() {
		r.send = append(r.send, world.Unsigned())
	}
	if r.snap, err = w.Snapshot(ctx); err != nil {
		return nil, fmt.Errorf("fuzz: saving the World for the campaign: %w", err)
	}
	return r, nil
}

// run reverts the World and runs seq, checking every invariant after
// every call, and returns the calls run, the violation after the first
// call that broke an invariant (nil: all held) and, in the guided mode,
// how many calls of seq it took to reach the last new edge (0: none).
// While the campaign searches and shrinks, its calls are applied in place
// where the World can (World.Apply: no block per call, as forge runs
// them), their Calls without a Result; mined, every call is a transaction
// (see send), as violation runs the sequence it returns. The error is a
// World that cannot be reverted or a call that cannot be packed or run.
func (r *runner) run(seq []draw, mined bool) (done []Call, v *Violation, fresh int, err error) {
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
		call := Call{Sender: r.c.Senders[d.sender], Target: r.names[m.target], To: to, Method: m.m, Args: d.args}
		input := append(slices.Clone(m.m.ID), data...)
		if mined || !r.apply {
			call.Result = r.w.Send(r.ctx, call.Sender, to, nil, input, r.send...)
			call.Reverted = !call.Result.Succeeded()
		} else {
			a, err := r.w.Apply(r.ctx, call.Sender, to, nil, input, CallGas)
			if err != nil {
				return nil, nil, 0, fmt.Errorf("fuzz: call %d (%s): %w", i+1, call, err)
			}
			call.Reverted = a.Reverted
		}
		if r.cov != nil {
			_ = r.w.Cover(nil) // the invariants' calls are not the campaign's coverage
			if r.cov.Edges() > edges {
				fresh = i + 1
			}
		}
		r.spent++
		done = append(done, call)
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
	_, v, _, err := r.run(seq, true)
	if err != nil {
		return nil, err
	}
	if v == nil || v.Invariant != inv {
		why := "is the invariant deterministic?"
		if r.apply {
			why = "it broke it with its calls applied in place, in one block; mined, one block per call, it does not: " +
				"do the contracts read block.number or block.timestamp? Campaign.Mined runs the whole campaign mined"
		}
		return nil, fmt.Errorf("fuzz: the shrunk sequence of %d call(s) no longer breaks invariant %q (%s)", len(seq), inv, why)
	}
	if tr, err := v.Calls[len(v.Calls)-1].Result.Trace(r.ctx); err == nil {
		v.Trace = tr.String()
	}
	return v, nil
}
