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
	// number of sequences (default DefaultSequences; in the random mode
	// -rapid.checks or $RAPID_CHECKS wins); Seed and NoFailFile as in
	// Options (a guided campaign writes no fail file).
	Depth, Runs int
	Seed        uint64
	NoFailFile  bool
	// Coverage guides the campaign by branch coverage instead of drawing
	// every sequence afresh (Medusa's and Echidna's corpus): see the
	// package's Coverage guidance.
	// It needs a backend that collects coverage (the in-process chain);
	// on another the campaign fails with world.ErrNoCoverage.
	Coverage bool
	// Mined sends every call of the campaign as a mined transaction, one
	// block each. By default the campaign searches and shrinks with its
	// calls applied in place where the World can (World.Apply on the
	// in-process chain: no block per call, as forge runs them, several
	// times faster) and mines only the sequence it returns; set Mined when
	// the contracts read block.number or block.timestamp, which stay put
	// while calls are applied.
	Mined bool
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
	// Report is the campaign's account of the run: rapid's in the random
	// mode, then the narrowed arguments; in the guided mode its seed, the
	// sequences and calls spent, the coverage and the shrinking.
	Report string
	// start is the World the campaign started from, and check the broken
	// invariant: what Record replays the calls from and checks again.
	start *world.Snapshot
	check Invariant
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
// failing sequence shrank to, or nil when every invariant held after
// every call. In the random mode rapid removes calls and simplifies
// arguments, then integer arguments are narrowed by binary search (as in
// Find), and a violation is saved under testdata/rapid/ as in Find and
// replayed first; with Campaign.Coverage the campaign is guided by
// coverage (see the package's Coverage guidance). The World is reverted before every sequence and
// after the campaign. It fails when the campaign has no senders,
// invariants or callable methods, or the World cannot be reverted.
func Invariants(ctx context.Context, t rapid.TB, w *world.World, c Campaign) (*Violation, error) {
	r, err := newRunner(ctx, w, c)
	if err != nil {
		return nil, err
	}
	if c.Coverage {
		return r.guided()
	}
	ms := r.ms
	calls := rapid.Custom(func(rt *rapid.T) draw {
		i := rapid.IntRange(0, len(ms)-1).Draw(rt, "method")
		return draw{method: i, sender: rapid.IntRange(0, len(c.Senders)-1).Draw(rt, "sender"), args: ms[i].in.Draw(rt)}
	})
	restore, err := setFlags(Options{Runs: r.runs, Seed: c.Seed, NoFailFile: c.NoFailFile})
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
		v       *Violation
		last    []draw
		execErr error
	)
	rt := &recorder{TB: t, name: t.Name() + "/invariants"}
	rt.check(func(rr *rapid.T) {
		seq := rapid.SliceOfN(calls, 1, r.depth).Draw(rr, "calls")
		var done []Call
		done, v, _, execErr = r.run(seq, false)
		if execErr != nil {
			rr.Fatalf("%v", execErr)
		}
		if v != nil {
			last = seq[:len(v.Calls)]
			rr.Fatalf("invariant %q after call %d (%s): %v", v.Invariant, len(done), done[len(done)-1], v.Err)
		}
	})
	if execErr != nil || !rt.failed {
		return nil, errors.Join(execErr, revertedOrErr(ctx, w, r.snap, nil))
	}
	if v == nil {
		// The sequence failed for another reason than an invariant.
		return nil, errors.Join(fmt.Errorf("fuzz: campaign failed: %s", strings.TrimSpace(rt.report.String())), revertedOrErr(ctx, w, r.snap, nil))
	}
	report, spent := rt.report.String(), r.spent
	// rapid shrinks each 64-bit limb of an integer on its own: narrow them.
	narrowed, moved, err := r.narrowCalls(last, v.Invariant)
	if err != nil {
		return nil, errors.Join(err, revertedOrErr(ctx, w, r.snap, nil))
	}
	v, err = r.violation(narrowed, v.Invariant)
	if err != nil {
		return nil, errors.Join(err, revertedOrErr(ctx, w, r.snap, nil))
	}
	if moved {
		report += fmt.Sprintf("[fuzz] integer arguments narrowed by binary search (%d more calls):\n%s", r.spent-spent, numbered(v.Calls))
	}
	v.Report = report
	return v, revertedOrErr(ctx, w, r.snap, nil)
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
