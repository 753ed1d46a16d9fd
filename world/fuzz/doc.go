// Package fuzz is property-based fuzzing of contract calls on a World:
// forge's fuzz tests (testFuzz_…(uint256 x), 256 runs, bound, vm.assume,
// shrinking, persisted failures) for Go specs, on pgregory.net/rapid.
//
// NewInputs turns an ABI method's inputs into generators that draw values
// shaped as go-ethereum's abi.Arguments.Pack wants them: uintN and intN
// of any width (uint8…uint64 and int8…int64 as Go integers, the others
// as *big.Int), optionally bounded per argument (Domain.Bounds, forge's
// bound), bool, address (nine in ten from Domain.Addresses — the World's
// actors and contracts —, else any), bytesN, bytes, string, fixed and
// dynamic arrays, and tuples as the structs Pack takes. Function and
// fixed-point types are refused.
//
// Find runs a Property on Options.Runs cases (default 256) over a World:
// it takes one World.Snapshot and reverts to it before every case and at
// the end, so each case starts from the same state and the run leaves
// the World as it found it. On a failing case rapid shrinks the input;
// integer arguments are then narrowed by binary search toward zero (or
// their bound), since rapid shrinks each 64-bit limb alone and can stop
// at 2^64. Find returns the Counterexample; Check fails the test with it.
// afrspec's World.Fuzz is Check in a Ginkgo spec.
//
//	c, err := fuzz.Find(ctx, t, w, art.ABI.Methods["deposit"], fuzz.Options{
//		Domain: fuzz.Domain{Bounds: map[string]fuzz.Bound{"amount": {Max: supply}}},
//	}, func(t *rapid.T, args []any) {
//		amount := args[0].(*big.Int)
//		// send deposit(amount), then t.Fatalf if an invariant is broken;
//		// t.Skip() discards a case (vm.assume)
//	})
//
// # Determinism and saved failures
//
// The seed is fixed (Options.Seed, default DefaultSeed), so CI draws the
// same cases every run; -rapid.seed=N or $RAPID_SEED (0: a new seed each
// run) and -rapid.checks or $RAPID_CHECKS override Options. A
// counterexample is saved by rapid under testdata/rapid/<test>/<test>-….fail
// (the test's name and the method's: t.Name()+"/"+method) and replayed
// before any new case by every later run of the same test (one that
// passes is kept and no longer fails it): commit the file to keep a found
// bug as a regression test, or delete it once the bug is fixed.
// Options.NoFailFile saves none (a spec that expects a counterexample).
// rapid's flags are process-wide: one test process runs one Find at a
// time (Ginkgo's -p runs processes, which is fine).
//
// # Invariant campaigns
//
// Invariants runs a Campaign: sequences of calls to target contracts'
// methods, from chosen senders, each sequence from one snapshot, with
// invariants (Go functions over the World) checked after every call. A
// failing sequence shrinks (calls removed, arguments simplified) to a
// Violation, printed as a numbered list of calls with the trace of the
// call that broke the invariant. Campaign.Shard runs one of several
// shards of a campaign (a share of its runs, from a seed of its own), so
// that one campaign can run on several processes (afrspec's
// CampaignShards declares the shards as specs for ginkgo -p).
//
// # A counterexample as a spec and as evidence
//
// Violation.Spec writes the shrunk sequence as Go source of a Ginkgo spec
// for the suite's package (SpecOptions name the suite's World, actors,
// contracts and invariant), to commit as a regression test or, with
// SpecOptions.Breaks, as a spec that the planted bug still breaks the
// invariant. Violation.Record replays it from the campaign's starting
// state and records it in the World's log — an intent and an outcome with
// effects per call, an observation naming the broken invariant — sealed,
// anchored and verified: the attack as a record a third party can check.
//
// # Coverage guidance
//
// With Campaign.Coverage a campaign is guided by branch coverage, as
// Echidna and Medusa are: the in-process chain hashes every branch edge
// its EVM takes into a map (backend.Coverage, collected through
// World.Cover), the campaign keeps a corpus of the sequences that reached
// a new edge and mutates and extends them, so a bug behind a path of
// calls (one call sets a stage another checks) is reached step by step
// instead of by one lucky draw. The budget is the random mode's (Runs
// sequences of up to Depth calls), the draws come from the seed, and the
// failing sequence is shrunk by the package (calls removed by delta
// debugging, integers narrowed), the shrinker whose narrowing the random
// mode runs on rapid's result too. Other backends collect no coverage: a
// guided campaign on them fails with world.ErrNoCoverage.
package fuzz
