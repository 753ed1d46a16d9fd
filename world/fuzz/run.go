package fuzz

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"pgregory.net/rapid"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/world"
)

// DefaultRuns is the number of cases of a run, as forge's fuzz runs.
const DefaultRuns = 256

// DefaultSeed is the seed of a run whose Options give none: every run
// draws the same cases, in CI as on a laptop.
const DefaultSeed = 0xAF2

// Property is what every case must satisfy. It gets the case's arguments
// and fails the case through t (t.Fatalf, t.Errorf); t.Skip discards the
// case as forge's vm.assume does. It runs on the World as it was when the
// run started, and may change it freely: the next case starts from that
// state again.
type Property func(t *rapid.T, args []any)

// Options configure a run.
type Options struct {
	Domain
	// Runs is the number of cases (default DefaultRuns). The flag
	// -rapid.checks or $RAPID_CHECKS, when given, wins.
	Runs int
	// Seed is the seed of the cases (default DefaultSeed). The flag
	// -rapid.seed or $RAPID_SEED, when given, wins; 0 there draws a new
	// seed each run.
	Seed uint64
	// NoFailFile keeps a counterexample out of testdata/rapid (a spec
	// that expects one); saved ones are still replayed first.
	NoFailFile bool
}

// Counterexample is the shrunk input on which a property failed.
type Counterexample struct {
	Method abi.Method
	Args   []any // in the order of Method.Inputs, as Pack wants them
	// Report is rapid's account: the failure, how to reproduce it, the
	// draws and what the property logged.
	Report string
}

// String is the call with its arguments, e.g. deposit(amount: 1000).
func (c *Counterexample) String() string { return formatArgs(c.Method, c.Args, nil) }

// formatArgs is the call of m with args, e.g. deposit(amount: 1000), the
// addresses among the top-level arguments named after reg's actors and
// contracts when reg is not nil.
func formatArgs(m abi.Method, args []any, reg *calldata.Registry) string {
	parts := make([]string, len(args))
	for i, a := range args {
		name := m.Inputs[i].Name
		if name == "" {
			name = fmt.Sprintf("arg%d", i)
		}
		if addr, ok := a.(common.Address); ok && reg != nil {
			a = world.HolderName(reg, addr)
		}
		parts[i] = fmt.Sprintf("%s: %v", name, a)
	}
	return m.Name + "(" + strings.Join(parts, ", ") + ")"
}

// Find runs prop on cases of m's arguments drawn from opts.Domain, each
// from the World as it is now (one w.Snapshot, then w.Revert before every
// case and after the run), and returns the counterexample a failing case
// shrank to (by rapid, then Inputs.narrow on its integers), or nil when
// every case held. A counterexample is saved under testdata/rapid/<test
// name>/ (rapid's fail files, named after t.Name() and m) and replayed
// first by the next run. Find returns an error when the run cannot start,
// the World cannot be reverted, or the property skipped too many cases;
// t receives rapid's log. Runs change rapid's flags for their duration,
// so one test process runs one Find at a time.
func Find(ctx context.Context, t rapid.TB, w *world.World, m abi.Method, opts Options, prop Property) (*Counterexample, error) {
	in, err := NewInputs(m.Inputs, opts.Domain)
	if err != nil {
		return nil, err
	}
	snap, err := w.Snapshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("fuzz: saving the World for the run: %w", err)
	}
	restore, err := setFlags(opts)
	if err != nil {
		return nil, err
	}
	defer restore()

	var (
		last      []any
		revertErr error
	)
	rt := &recorder{TB: t, name: t.Name() + "/" + m.Name}
	rt.check(func(c *rapid.T) {
		if err := w.Revert(ctx, snap); err != nil {
			revertErr = err
			c.Fatalf("reverting the World: %v", err)
		}
		last = in.Draw(c)
		prop(c, last)
	})
	if !rt.failed || revertErr != nil {
		return nil, revertedOrErr(ctx, w, snap, revertErr)
	}
	if report := rt.report.String(); strings.HasPrefix(report, "[rapid] only generated") {
		// Not a counterexample: the property skipped too many cases.
		return nil, errors.Join(fmt.Errorf("fuzz: %s: too many cases skipped (t.Skip): %s", m.Sig, strings.TrimSpace(report)),
			revertedOrErr(ctx, w, snap, nil))
	}
	c := &Counterexample{Method: m, Args: last, Report: rt.report.String()}
	// One case with fixed arguments, run by rapid for its *rapid.T.
	once := func(args []any) (failed bool, report string) {
		r := &recorder{TB: t, name: rt.name + "/narrow", quiet: true}
		undo := forceFlags(map[string]string{"rapid.checks": "1", "rapid.nofailfile": "true"})
		defer undo()
		r.check(func(c *rapid.T) {
			if err := w.Revert(ctx, snap); err != nil {
				revertErr = err
				return
			}
			prop(c, args)
		})
		// Keep what the property said, not rapid's account of this run.
		_, said, _ := strings.Cut(r.report.String(), "Failed test output:\n")
		return r.failed && revertErr == nil, said
	}
	if narrowed := in.narrow(c.Args, once); narrowed != nil {
		c.Args = narrowed
		_, report := once(narrowed)
		c.Report += "[fuzz] integer arguments narrowed to " + c.String() + ":\n" + report
	}
	return c, revertedOrErr(ctx, w, snap, revertErr)
}

// revertedOrErr reverts w to snap after a run, or reports why the run or
// the revert failed.
func revertedOrErr(ctx context.Context, w *world.World, snap *world.Snapshot, runErr error) error {
	if err := w.Revert(ctx, snap); err != nil || runErr != nil {
		return fmt.Errorf("fuzz: reverting the World: %w", errors.Join(runErr, err))
	}
	return nil
}

// Check is Find that fails t when a case fails (with the counterexample
// and rapid's report) or the run cannot run.
func Check(ctx context.Context, t rapid.TB, w *world.World, m abi.Method, opts Options, prop Property) {
	t.Helper()
	c, err := Find(ctx, t, w, m, opts, prop)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if c != nil {
		t.Fatalf("fuzz: %s fails for %s\n%s", m.Sig, c, c.Report)
	}
}

// errStop ends rapid.Check when it calls FailNow on a failed run.
var errStop = errors.New("fuzz: run failed")

// recorder is the testing.TB rapid reports to: it forwards the log, keeps
// rapid's failure report instead of failing the test, and names the run
// (rapid's fail files are named after it).
type recorder struct {
	rapid.TB
	name   string
	quiet  bool // keep the log from the test
	failed bool
	report strings.Builder
}

// check runs rapid.Check on prop, reporting to r.
func (r *recorder) check(prop func(*rapid.T)) {
	defer func() {
		if p := recover(); p != nil && p != errStop {
			panic(p)
		}
	}()
	rapid.Check(r, prop)
}

func (r *recorder) Name() string { return r.name }
func (r *recorder) Failed() bool { return r.failed }
func (r *recorder) Fail()        { r.failed = true }
func (r *recorder) FailNow()     { r.failed = true; panic(errStop) }

func (r *recorder) Logf(format string, args ...any) {
	if !r.quiet {
		r.TB.Logf(format, args...)
	}
	if r.failed {
		fmt.Fprintf(&r.report, format+"\n", args...)
	}
}

func (r *recorder) Log(args ...any) { r.Logf("%s", fmt.Sprint(args...)) }

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	fmt.Fprintf(&r.report, format+"\n", args...)
}

func (r *recorder) Error(args ...any) { r.Errorf("%s", fmt.Sprint(args...)) }

func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); r.FailNow() }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...); r.FailNow() }

// setFlags sets rapid's flags for a run of opts, unless the command line
// or the environment set them, and returns what restores them.
func setFlags(opts Options) (restore func(), err error) {
	runs, seed := opts.Runs, opts.Seed
	if runs <= 0 {
		runs = DefaultRuns
	}
	if seed == 0 {
		seed = DefaultSeed
	}
	given := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var undo []func()
	restore = func() {
		for _, u := range undo {
			u()
		}
	}
	for _, s := range []struct{ name, env, value string }{
		{"rapid.checks", "RAPID_CHECKS", strconv.Itoa(runs)},
		{"rapid.seed", "RAPID_SEED", strconv.FormatUint(seed, 10)},
		{"rapid.nofailfile", "RAPID_NOFAILFILE", strconv.FormatBool(opts.NoFailFile)},
	} {
		if _, set := os.LookupEnv(s.env); set || given[s.name] {
			continue
		}
		f := flag.Lookup(s.name)
		if f == nil {
			restore()
			return nil, fmt.Errorf("fuzz: rapid has no flag -%s", s.name)
		}
		old := f.Value.String()
		if err := f.Value.Set(s.value); err != nil {
			restore()
			return nil, fmt.Errorf("fuzz: setting -%s: %w", s.name, err)
		}
		undo = append(undo, func() { _ = f.Value.Set(old) })
	}
	return restore, nil
}

// forceFlags sets rapid's flags to values whatever the command line says,
// and returns what restores them.
func forceFlags(values map[string]string) (restore func()) {
	var undo []func()
	for name, v := range values {
		if f := flag.Lookup(name); f != nil {
			old := f.Value.String()
			if f.Value.Set(v) == nil {
				undo = append(undo, func() { _ = f.Value.Set(old) })
			}
		}
	}
	return func() {
		for _, u := range undo {
			u()
		}
	}
}
