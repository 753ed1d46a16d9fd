// Package afrspec is the harness AFR attack specs are written with: a World
// (a chain backend with funded actors, a deployed EpochAnchor and
// PaceSmartAccount, a durable recorder whose sealed epochs an anchorer
// commits on chain, a policy engine, tracesim, and copies of the log to
// tamper with) and Gomega matchers whose failure messages say what went
// wrong and where: BeVerified, BeTamperedAt, HaveFinding, BeIncomplete for
// logs; RevertWith, RevertWithPanic, Revert, EmitEvent, EmitEventFrom,
// ChangeEtherBalance(s), ChangeTokenBalance(s) and UseGasAtMost for
// transactions; MatchIntent and MatchGasBaseline.
//
// The transaction matchers work on any contract: a *TxResult of
// World.Send or World.Submit carries the World's registry (every artifact
// deployed with DeployArtifact and every ABI added to w.Registry by hand),
// so errors and events of the spec's own contracts decode, and messages
// name the contract (Vault.NotOwner(caller=0x…, owner=0x…)). Require
// strings are RevertWith("Error", "message"). Balance matchers read
// balances at the transaction's block and the one before; the sender's fee
// is left out unless IncludeFee is given.
//
// # Your contracts and evidence
//
// LoadForgeArtifact reads what forge built from the spec's own contracts
// (and refuses an artifact whose sources changed since); DeployArtifact
// deploys it and registers its ABI; TargetArtifact gives AFR's own
// contracts, compiled into the module (package contracts/artifacts), so no
// AFR checkout is needed. World.RecordTx records any transaction a spec
// sent — an attack, not only an agent's PACE flow — as intent and outcome
// events with the effects of its replay; World.Replay replays a mined
// transaction (tracesim) on either backend.
//
// The same spec runs on every backend. The backend is chosen by the
// -afr.backend flag or the AFR_BACKEND environment variable:
//
//   - embedded (default): go-ethereum's in-process simulated chain
//     (chain/backend.Embedded), nothing to start;
//   - anvil: a local anvil process on a free loopback port, started by the
//     World and stopped when it is closed (or when the test process dies);
//   - fork: anvil forking an archive JSON-RPC endpoint at a pinned block,
//     AFR_FORK_RPC and AFR_FORK_BLOCK (both required).
//
// Anvil's binary, port, hardfork, block time and extra flags are set with
// Config.Anvil; a missing binary is an error wrapping anvil.ErrNotFound.
//
// # Determinism
//
// A World's chain starts at a fixed time (Config.GenesisTime) and every
// block is one second after its parent on both local backends; keys,
// session, the log's clock and randomness derive from names and
// Config.Seed; the anchorer sends transactions only when the spec calls
// SealAndAnchor, so it never races the spec's for blocks; PDR and
// delegation expiries count from World.Clock, which moves in half-lifetime
// steps, not per block. So roots, signatures,
// calldata and gas are the same on every run and on both local backends
// (specs/gas checks ten fresh Worlds on each).
//
// # One World per suite
//
// Building a World deploys contracts and opens a log: ~170 ms. A suite
// builds it once (BeforeSuite or an Ordered container's BeforeAll, with the
// suite's own contracts and World.SetPolicy) and calls World.Isolate in a
// BeforeEach: every spec then starts from that state — chain reverted
// (evm_snapshot/evm_revert on anvil, a reorg to the saved head on the
// embedded chain), the log, its keys and anchor queue restored from a copy
// — for ~8 ms instead. World.Snapshot and World.Revert do the same by hand.
//
// A minimal spec (docs/SPECS.md walks through it from an empty folder):
//
//	var w *afrspec.World
//	BeforeSuite(func() { w = afrspec.StartWorld(afrspec.Config{}) })
//	BeforeEach(func() { w.Isolate() })
//	It("refuses a PDR for other calldata", func(ctx SpecContext) {
//		p := w.MustPropose(ctx, "agent", w.CounterCall(1))
//		swapped := w.CounterCall(1_000)
//		res := w.Submit(ctx, w.Agent, &p.PDR, swapped)
//		Expect(res).To(afrspec.RevertWith("UnauthorizedPolicySigner", Not(Equal(w.PolicySigner.Address))))
//		w.MustRecordOutcome(ctx, p, res)
//		Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
//	})
//
// # The paper's incident scenario
//
// RecordIncident records the paper's RQ4 scenario in a World — a prompt
// injection that a support agent reads and passes on by delegation to a
// treasury agent, which tries to drain the account — and
// Incident.Investigate rebuilds its causal chain from the log alone and
// scores it, and grep over a plain JSON log of the same events (Score,
// Grep, WritePlainJSON), against the incident's events. The specs/incident
// suite and `afr bench` (RQ4) both run it.
//
// # Security
//
// Actor keys are derived from their names (ActorKey) so that addresses,
// contract addresses and gas are the same on every backend and run. They
// are public: never use them, or a World, with real funds. Only loopback
// endpoints are started; a fork backend reads from AFR_FORK_RPC and sends
// nothing to it (transactions go to the local anvil).
package afrspec
