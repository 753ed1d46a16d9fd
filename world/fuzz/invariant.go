package fuzz

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"pgregory.net/rapid"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/world"
)

// DefaultDepth is the number of calls of a campaign's sequence, as forge's
// invariant depth.
const DefaultDepth = 15

// DefaultSequences is the number of sequences of a campaign. Forge runs
// 256; a sequence here costs its depth in mined transactions (about a
// millisecond each on the in-process chain, docs/PERFORMANCE.md), so the
// default is 64 sequences (960 calls), which keeps a spec under a few
// seconds; Campaign.Runs or -rapid.checks raises it.
const DefaultSequences = 64

// Target is a contract a campaign calls (forge's targetContract), with the
// methods it may call (targetSelector / excludeSelector).
type Target struct {
	// Name names the contract in a printed sequence; "" is the World's
	// name for Address.
	Name    string
	Address common.Address
	ABI     abi.ABI
	// Include, when not empty, lists the only methods called, by name or
	// signature (e.g. "deposit" or "deposit(uint256)"); Exclude lists
	// methods never called. View and pure methods are left out unless
	// Views is set or Include names them.
	Include, Exclude []string
	Views            bool
}

// Invariant is a property of the World that must hold after every call of
// a sequence; Check returns why it does not.
type Invariant struct {
	Name  string
	Check func(ctx context.Context, w *world.World) error
}

// Campaign is an invariant campaign (forge's invariant_ tests): Runs
// sequences of up to Depth calls, each call a method of a target sent by
// one of the senders with arguments drawn from Domain, each sequence from
// the World as it was when the campaign started, every invariant checked
// after every call.
type Campaign struct {
	Targets []Target
	// Senders send the calls (forge's targetSender; leave out who must not
	// call, as excludeSender). They need ether for gas.
	Senders    []*world.Actor
	Invariants []Invariant
	// Domain is where arguments are drawn from (Addresses, MaxLen; Bounds
	// are by argument name and so not used across methods).
	Domain Domain
	// Depth is the longest sequence (default DefaultDepth); Runs the
	// number of sequences (default DefaultSequences; -rapid.checks or
	// $RAPID_CHECKS wins); Seed and NoFailFile as in Options.
	Depth, Runs int
	Seed        uint64
	NoFailFile  bool
	// Shard, when its Count is above 1, runs only that part of the
	// campaign's runs, from a seed of its own (see Shard).
	Shard Shard
}

// Call is one call of a sequence, as it was sent.
type Call struct {
	Sender   *world.Actor
	Target   string // the contract's name
	To       common.Address
	Method   abi.Method
	Args     []any
	Reverted bool
	Result   *world.TxResult
}

// String is the call as a line of a sequence, e.g.
// "attacker → LendingPool.initialize(owner_: attacker, feed_: SpotFeed)".
func (c Call) String() string {
	var reg *calldata.Registry
	if c.Result != nil {
		reg = c.Result.Registry
	}
	s := fmt.Sprintf("%s → %s.%s", c.Sender.Name, c.Target, formatArgs(c.Method, c.Args, reg))
	if c.Reverted {
		s += " (reverted)"
	}
	return s
}

// Violation is the shrunk sequence after whose last call an invariant
// failed.
type Violation struct {
	Calls     []Call
	Invariant string
	Err       error
	// Trace is the trace of the last call (World.Trace), "" when it could
	// not be made.
	Trace string
	// Report is rapid's account of the run.
	Report string
}

// String is the numbered list of calls, the invariant's error and the
// trace of the call that broke it.
func (v *Violation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "invariant %q broken after %d call(s):\n", v.Invariant, len(v.Calls))
	for i, c := range v.Calls {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, c)
	}
	fmt.Fprintf(&b, "%v\n", v.Err)
	if v.Trace != "" {
		fmt.Fprintf(&b, "trace of call %d:\n%s\n", len(v.Calls), strings.TrimRight(v.Trace, "\n"))
	}
	return b.String()
}

// method is one method a campaign may call.
type method struct {
	target int
	m      abi.Method
	in     *Inputs
}

// draw is one drawn call: indexes into the methods and senders, and the
// arguments.
type draw struct {
	method, sender int
	args           []any
}

// methods lists the methods of c's targets that a campaign calls, in a
// fixed order (target, then name), so that a seed draws the same calls.
func (c Campaign) methods() ([]method, error) {
	var ms []method
	for i, t := range c.Targets {
		names := make([]string, 0, len(t.ABI.Methods))
		for n := range t.ABI.Methods {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			m := t.ABI.Methods[n]
			named := func(list []string) bool { return slices.Contains(list, m.Name) || slices.Contains(list, m.Sig) }
			if named(t.Exclude) || len(t.Include) > 0 && !named(t.Include) || len(t.Include) == 0 && !t.Views && m.IsConstant() {
				continue
			}
			in, err := NewInputs(m.Inputs, Domain{Addresses: c.Domain.Addresses, MaxLen: c.Domain.MaxLen})
			if err != nil {
				return nil, fmt.Errorf("fuzz: target %d, %s: %w", i, m.Sig, err)
			}
			ms = append(ms, method{target: i, m: m, in: in})
		}
	}
	if len(ms) == 0 {
		return nil, errors.New("fuzz: campaign: no method to call (no targets, or all filtered out)")
	}
	return ms, nil
}

// Invariants runs campaign c on w and returns the violation its first
// failing sequence shrank to (rapid removes calls and simplifies
// arguments), or nil when every invariant held after every call. The
// World is reverted before every sequence and after the campaign; a
// violation is saved under testdata/rapid/ as in Find and replayed first.
// It fails when the campaign has no senders, invariants or callable
// methods, or the World cannot be reverted.
func Invariants(ctx context.Context, t rapid.TB, w *world.World, c Campaign) (*Violation, error) {
	ms, err := c.methods()
	if err != nil {
		return nil, err
	}
	if len(c.Senders) == 0 || len(c.Invariants) == 0 {
		return nil, errors.New("fuzz: campaign: needs at least one sender and one invariant")
	}
	depth, runs := c.Depth, c.Runs
	if depth <= 0 {
		depth = DefaultDepth
	}
	if runs <= 0 {
		runs = DefaultSequences
	}
	names := make([]string, len(c.Targets))
	for i, t := range c.Targets {
		names[i] = t.Name
		if names[i] == "" {
			names[i] = world.HolderName(w.Registry(), t.Address)
		}
	}
	calls := rapid.Custom(func(rt *rapid.T) draw {
		i := rapid.IntRange(0, len(ms)-1).Draw(rt, "method")
		return draw{method: i, sender: rapid.IntRange(0, len(c.Senders)-1).Draw(rt, "sender"), args: ms[i].in.Draw(rt)}
	})
	snap, err := w.Snapshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("fuzz: saving the World for the campaign: %w", err)
	}
	restore, err := setFlags(Options{Runs: runs, Seed: c.Seed, NoFailFile: c.NoFailFile})
	if err != nil {
		return nil, err
	}
	defer restore()
	unshard, err := c.Shard.apply()
	if err != nil {
		return nil, err
	}
	defer unshard()

	var (
		v         *Violation
		revertErr error
	)
	rt := &recorder{TB: t, name: t.Name() + "/invariants"}
	rt.check(func(r *rapid.T) {
		if err := w.Revert(ctx, snap); err != nil {
			revertErr = err
			r.Fatalf("reverting the World: %v", err)
		}
		v = nil
		seq := rapid.SliceOfN(calls, 1, depth).Draw(r, "calls")
		var done []Call
		for _, d := range seq {
			m := ms[d.method]
			to := c.Targets[m.target].Address
			data, err := m.m.Inputs.Pack(d.args...)
			if err != nil {
				r.Fatalf("packing %s: %v", m.m.Sig, err)
			}
			res := w.Send(ctx, c.Senders[d.sender], to, nil, append(slices.Clone(m.m.ID), data...))
			done = append(done, Call{Sender: c.Senders[d.sender], Target: names[m.target], To: to, Method: m.m, Args: d.args, Reverted: !res.Succeeded(), Result: res})
			for _, inv := range c.Invariants {
				if err := inv.Check(ctx, w); err != nil {
					v = &Violation{Calls: done, Invariant: inv.Name, Err: err}
					r.Fatalf("invariant %q after call %d (%s): %v", inv.Name, len(done), done[len(done)-1], err)
				}
			}
		}
	})
	if revertErr != nil || !rt.failed {
		return nil, revertedOrErr(ctx, w, snap, revertErr)
	}
	if v == nil {
		// The sequence failed for another reason than an invariant.
		return nil, errors.Join(fmt.Errorf("fuzz: campaign failed: %s", strings.TrimSpace(rt.report.String())), revertedOrErr(ctx, w, snap, nil))
	}
	v.Report = rt.report.String()
	// The World is still as the last (shrunk) sequence left it: trace its
	// last call before reverting.
	if tr, err := v.Calls[len(v.Calls)-1].Result.Trace(ctx); err == nil {
		v.Trace = tr.String()
	}
	return v, revertedOrErr(ctx, w, snap, nil)
}

// CheckInvariants is Invariants that fails t with the violation (or the
// reason the campaign could not run).
func CheckInvariants(ctx context.Context, t rapid.TB, w *world.World, c Campaign) {
	t.Helper()
	v, err := Invariants(ctx, t, w, c)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if v != nil {
		t.Fatalf("fuzz: %s\n%s", v, v.Report)
	}
}
