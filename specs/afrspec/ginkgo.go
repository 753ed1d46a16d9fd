package afrspec

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/world"
	"github.com/agentflightrecorder/afr/world/fuzz"
)

var backendFlag = flag.String("afr.backend", "", "chain backend of afrspec Worlds: inproc, embedded, anvil or fork (default $"+world.EnvBackend+", else inproc)")

// SelectedBackend returns the backend chosen by the -afr.backend flag, else
// $AFR_BACKEND, else backend.KindInProcess.
func SelectedBackend() backend.Kind {
	if *backendFlag != "" {
		return backend.Kind(*backendFlag)
	}
	return world.SelectedBackend()
}

// World is a world.World inside a Ginkgo suite: every method of
// world.World, plus Isolate and the Must… forms that fail the spec on
// error.
type World struct {
	*world.World
	base *world.Snapshot // the state Isolate returns to
}

// StartWorld creates a World inside a Ginkgo node (BeforeSuite,
// BeforeAll, BeforeEach or It), fails the spec if it cannot, and closes it
// with ginkgo.DeferCleanup — so an anvil backend is stopped even when the spec
// fails or the run is interrupted. Progress goes to ginkgo.GinkgoWriter.
// Built in BeforeSuite or BeforeAll, with Isolate in a BeforeEach, one World
// serves a whole suite; built in BeforeEach, each spec gets a fresh chain.
func StartWorld(cfg world.Config) *World {
	ginkgo.GinkgoHelper()
	if cfg.Backend == "" {
		cfg.Backend = SelectedBackend()
	}
	if cfg.Logf == nil {
		cfg.Logf = func(format string, args ...any) { fmt.Fprintf(ginkgo.GinkgoWriter, format+"\n", args...) }
	}
	if cfg.AnvilLog == nil && os.Getenv("AFR_ANVIL_LOG") == "1" {
		cfg.AnvilLog = ginkgo.GinkgoWriter
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w, err := world.New(ctx, cfg)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "starting an afrspec World")
	ginkgo.DeferCleanup(func() {
		gomega.Expect(w.Close()).To(gomega.Succeed(), "closing the afrspec World")
	})
	return &World{World: w}
}

// Isolate makes the current spec leave the World as it found it: called in
// a BeforeEach of a suite whose World is built once (BeforeSuite or
// BeforeAll, contracts of the suite deployed there too), it reverts the
// World with ginkgo.DeferCleanup when the spec ends — chain, log, anchors,
// the log's clock, salts and policy (see world.World.Revert) — so every spec
// starts from the same state, in any order, without deploying anything
// again. The state it returns to is saved at its first call; call it
// before anything else of the spec changes the World:
//
//	var w *afrspec.World
//	BeforeAll(func(ctx SpecContext) {
//		w = afrspec.StartWorld(world.Config{})
//		// deploy the suite's contracts, w.SetPolicy(…)
//	})
//	BeforeEach(func() { w.Isolate() })
func (w *World) Isolate() {
	ginkgo.GinkgoHelper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if w.base == nil {
		s, err := w.Snapshot(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "saving the World for Isolate")
		// The first spec runs on a reverted World too, so that every spec
		// records and measures alike whatever the order (see Revert).
		gomega.Expect(w.Revert(ctx, s)).To(gomega.Succeed(), "reverting the World for the first isolated spec")
		w.base = s
	}
	ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) {
		gomega.Expect(w.Revert(ctx, w.base)).To(gomega.Succeed(), "reverting the World after the spec")
	}, ginkgo.NodeTimeout(2*time.Minute))
}

// MustPropose is Propose that fails the spec on error.
func (w *World) MustPropose(ctx context.Context, agent string, call pdr.Call, parents ...uint64) *world.Proposal {
	ginkgo.GinkgoHelper()
	p, err := w.Propose(ctx, agent, call, parents...)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "proposing %x to %s", call.Selector(), call.Target)
	return p
}

// MustRecordOutcome is RecordOutcome that fails the spec on error.
func (w *World) MustRecordOutcome(ctx context.Context, p *world.Proposal, res *world.TxResult, parents ...uint64) recorder.Receipt {
	ginkgo.GinkgoHelper()
	rc, err := w.RecordOutcome(ctx, p, res, parents...)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "recording the outcome")
	return rc
}

// MustRecord is Record that fails the spec on error.
func (w *World) MustRecord(ctx context.Context, ev format.Event) recorder.Receipt {
	ginkgo.GinkgoHelper()
	rc, err := w.Record(ctx, ev)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "recording a %s event", ev.Kind)
	return rc
}

// MustSealAndVerify seals, anchors and verifies the World's log, failing
// the spec if any step cannot run (the verdict is for the spec to judge).
func (w *World) MustSealAndVerify(ctx context.Context) *world.Verification {
	ginkgo.GinkgoHelper()
	rep, err := w.SealAndVerify(ctx)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "sealing, anchoring and verifying the log")
	return rep
}

// MustIndex builds the forensic index of the log, failing the spec on error.
func (w *World) MustIndex() *world.Index {
	ginkgo.GinkgoHelper()
	ix, err := w.Index()
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "indexing the log")
	return ix
}

// Fuzz checks prop on cases of method m's arguments (forge's
// testFuzz_…), each from the World as it is now, and fails the spec with
// the shrunk counterexample: fuzz.Check reporting through GinkgoT(). See
// package world/fuzz for the options (runs, seed, bounds, addresses) and
// the fail files it saves under testdata/rapid/ and replays first.
func (w *World) Fuzz(ctx context.Context, m abi.Method, opts fuzz.Options, prop fuzz.Property) {
	ginkgo.GinkgoHelper()
	fuzz.Check(ctx, ginkgo.GinkgoT(), w.World, m, opts, prop)
}

// Invariants runs an invariant campaign (forge's invariant_ tests) on the
// World as it is now and fails the spec with the shrunk sequence of calls
// that broke an invariant: fuzz.CheckInvariants reporting through
// GinkgoT(). See fuzz.Campaign for targets, senders, depth and runs.
func (w *World) Invariants(ctx context.Context, c fuzz.Campaign) {
	ginkgo.GinkgoHelper()
	fuzz.CheckInvariants(ctx, ginkgo.GinkgoT(), w.World, c)
}
