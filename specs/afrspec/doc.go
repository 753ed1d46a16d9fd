// Package afrspec is the Ginkgo and Gomega layer of AFR's attack specs, on
// top of package world (a chain with AFR deployed: actors, EpochAnchor and a
// PaceSmartAccount, a recorder wired to an anchorer, the agent's PACE flow).
// It adds what only a test framework needs: StartWorld (a World closed with
// DeferCleanup), World.Isolate (each spec reverted to the suite's state),
// the Must… forms that fail the spec on error, and matchers whose failure
// messages say what went wrong and where: BeVerified, BeTamperedAt,
// HaveFinding, BeIncomplete for logs; RevertWith, RevertWithPanic, Revert,
// EmitEvent, EmitEventFrom, ChangeEtherBalance(s), ChangeTokenBalance(s)
// and UseGasAtMost for transactions; MatchIntent and MatchGasBaseline.
//
// The transaction matchers work on any contract: a *world.TxResult of
// World.Send or World.Submit carries the World's registry (every artifact
// deployed with DeployArtifact and every ABI added to w.Registry() by
// hand), so errors and events of the spec's own contracts decode, and
// messages name the contract (Vault.NotOwner(caller=0x…, owner=0x…)).
// Require strings are RevertWith("Error", "message"). Balance matchers
// read balances at the transaction's block and the one before; the
// sender's fee is left out unless IncludeFee is given.
//
// The same spec runs on every backend, chosen by the -afr.backend flag or
// the AFR_BACKEND environment variable (SelectedBackend):
//
//   - inproc (default): a chain executed by AFR's evm package in the test
//     process, as forge runs tests on revm: no node, snapshots in
//     microseconds, JSON-RPC on loopback only when a spec asks for it
//     (world.Config.RPC);
//   - embedded: go-ethereum's node in the test process (the blocks-by-the-
//     clock World of the demo), linked only into a test binary that imports
//     chain/backend/embedded;
//   - anvil: a local anvil process on a free loopback port, started by the
//     World and stopped when it is closed (or when the test process dies);
//   - fork: anvil forking an archive JSON-RPC endpoint at a pinned block,
//     AFR_FORK_RPC and AFR_FORK_BLOCK (both required), with what it
//     fetched kept on disk for the next fork of that block
//     (world.Config.ForkCache).
//
// # One World per suite
//
// Building a World deploys contracts and opens a log: 25–100 ms. A suite
// builds it once (BeforeSuite or an Ordered container's BeforeAll, with the
// suite's own contracts and World.SetPolicy) and calls World.Isolate in a
// BeforeEach: every spec then starts from that state — chain reverted, the
// log, its keys and anchor queue restored from a copy at the log's first
// use — for under 1 ms on the in-process chain when the spec records
// nothing (a spec that records pays the log's reopening once).
//
// A minimal spec (docs/SPECS.md walks through it from an empty folder):
//
//	var w *afrspec.World
//	BeforeSuite(func() { w = afrspec.StartWorld(world.Config{}) })
//	BeforeEach(func() { w.Isolate() })
//	It("refuses a PDR for other calldata", func(ctx SpecContext) {
//		p := w.MustPropose(ctx, "agent", w.CounterCall(1))
//		swapped := w.CounterCall(1_000)
//		res := w.Submit(ctx, w.Agent(), &p.PDR, swapped)
//		Expect(res).To(afrspec.RevertWith("UnauthorizedPolicySigner", Not(Equal(w.PolicySigner().Address))))
//		w.MustRecordOutcome(ctx, p, res)
//		Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
//	})
//
// Determinism, snapshots and the security of the World's keys are those of
// package world.
package afrspec
