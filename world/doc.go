// Package world is a chain with AFR deployed on it, for specs, benchmarks
// and the demo: a chain backend (go-ethereum's embedded simulated chain, a
// local anvil, or anvil forking an archive endpoint) with funded actors, a
// deployed EpochAnchor and PaceSmartAccount, a durable recorder whose
// sealed epochs an anchorer commits on chain, a policy engine and the
// agent side of a policy-gated action (package pace), tracesim replays,
// and copies of the log to tamper with. It has no test-framework
// dependency: plain `go test`, `afr bench` and `afr demo` use it directly,
// and package specs/afrspec adds Ginkgo helpers and Gomega matchers on top.
//
// A World is configured once, by the Config given to New; after that its
// state changes only through its methods (SetPolicy, Revert, …), which
// keep the chain, the log, the policy and the agent flow consistent.
//
//	w, err := world.New(ctx, world.Config{})
//	if err != nil { … }
//	defer w.Close()
//	p, err := w.Propose(ctx, "agent", w.CounterCall(1))
//	res := w.Execute(ctx, p)
//	_, err = w.RecordOutcome(ctx, p, res)
//	v, err := w.SealAndVerify(ctx) // v.Verdict == verifier.Verified
//
// # Your contracts and evidence
//
// LoadForgeArtifact reads what forge built from a user's own contracts
// (and refuses an artifact whose sources changed since); DeployArtifact
// deploys it and registers its ABI; TargetArtifact gives AFR's own
// contracts, compiled into the module (package contracts/artifacts), so no
// AFR checkout is needed. RecordTx records any transaction sent with Send
// — an attack, not only an agent's PACE flow — as intent and outcome
// events with the effects of its replay; Replay replays a mined
// transaction (tracesim) on any backend.
//
// # Determinism
//
// A World's chain starts at a fixed time (Config.GenesisTime) and every
// block is one second after its parent on both local backends; keys,
// session, the log's clock and randomness derive from names and
// Config.Seed; the anchorer sends transactions only when asked
// (AnchorOnDemand), so it never races the spec's for blocks; PDR and
// delegation expiries count from Clock, which moves in half-lifetime
// steps, not per block. So roots, signatures, calldata and gas are the
// same on every run and on both local backends. A World with
// Config.BlockTime follows the wall clock instead, as a deployment does.
//
// # Snapshots
//
// Snapshot saves the chain (its journaled state on the in-process chain,
// evm_snapshot on anvil, the head on the embedded chain), a copy of the
// log with its keys and anchor queue, the log's clock, randomness, salts
// and policy; Revert returns to it as often as needed. Revert reverts the
// chain and closes the log; the log is reopened on a copy of the saved one
// at its first use, so a spec that does not record pays only for the
// chain (microseconds on the in-process chain).
//
// # Forks
//
// CreateFork and SelectFork give a World several forks, as forge's
// vm.createFork and vm.selectFork give a test: Send, the cheatcodes,
// balances, calls and traces act on the selected fork, while the log, its
// anchoring and the PACE flow stay on the home chain (HomeFork, the one
// the World started on). Snapshot covers every fork. Forks keep what they
// fetched from their endpoint on disk (Config.ForkCache, keyed by the
// forked block's hash), so a later fork of the same block — in this
// process or the next run — fetches only what is new.
//
// # Security
//
// Actor keys are derived from their names (ActorKey) so that addresses,
// contract addresses and gas are the same on every backend and run. They
// are public: never use them, or a World, with real funds. Only loopback
// endpoints are started; a fork backend reads from its archive endpoint
// and sends nothing to it (transactions go to the local anvil).
package world
