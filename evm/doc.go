// Package evm implements AFR's in-process what-if engine: go-ethereum's EVM
// (pinned at v1.17) behind a small API that deploys contracts, makes calls and
// transactions, applies eth_call-compatible state and block overrides, and
// traces on request.
//
// An Env executes against one state source:
//
//   - an empty or genesis-allocated state (Config.Alloc, Config.FundedAccounts);
//   - a Fork: the state of any JSON-RPC endpoint (a running chain backend, a
//     local anvil, an archive node) at a pinned block, loaded lazily, account by
//     account and slot by slot, and kept in an on-disk cache keyed by chain id
//     and block (see OpenFork and the "Fork cache" section of docs/SPEC.md).
//
// Calls never change the Env's state; transactions (Transact, Deploy) do.
// Snapshot and Revert bracket any sequence of them.
//
// # Compatibility
//
// StateOverride and BlockOverrides decode and encode the JSON of the third and
// fourth arguments of eth_call (balance, nonce, code, state, stateDiff,
// movePrecompileToAddress; number, time, gasLimit, feeRecipient, prevRandao,
// baseFeePerGas, blobBaseFee), and reject "state" with "stateDiff" on one
// account as eth_call does. Calls follow eth_call's rules: no nonce or EOA
// check, no base fee when no gas price is given, and the gas limit defaults to
// the block gas limit.
//
// # Forked state
//
// A Fork implements go-ethereum's state.Reader and is handed to
// state.NewWithReader; the Env never computes a state root or commits, because
// the trie of a forked state is not local. Errors from the reader (network
// failures, cache misses in replay-only mode) are stored by go-ethereum's
// StateDB rather than returned; every Env operation checks StateDB.Error() and
// returns it, so a missing account is never read as an empty one. After such an
// error the Env refuses further work until it is reverted to a snapshot taken
// before the error (or replaced by a new Env on the same Fork, which costs no
// network requests for state already fetched).
//
// # Fork rules
//
// The fork rules (go-ethereum's params.ChainConfig: which hardforks are
// active at which block or time) decide gas costs, opcodes and precompiles.
// Nothing is guessed: a chain id alone never brings rules it did not ask
// for. They are chosen in this order, and the first that applies wins:
//
//  1. given: Config.ChainConfig of New, or ForkConfig.ChainConfig of OpenFork
//     (its chain id must be the fork's). HardforkConfig builds rules with every
//     fork up to a named one active from genesis (as anvil --hardfork NAME
//     runs); LoadChainConfig reads a genesis file or a bare chain config (the
//     CLI's --hardfork NAME and --chain-config FILE);
//  2. for a fork in Live or Record mode: go-ethereum's shipped config when the
//     chain is one it ships (ChainConfigFor: mainnet, sepolia, hoodi); else the
//     endpoint's answer to debug_chainConfig (nodes that serve it, among them
//     AFR's embedded chain, chain/backend), else to anvil_nodeInfo (anvil names
//     its hardfork; HardforkConfig of it). The questions ride along with the
//     batches OpenFork sends anyway, and an error answer counts as no answer;
//  3. for a fork in ReplayOnly mode: the rules recorded in the cache file
//     (chain_config, version 2), else for a version 1 file go-ethereum's config
//     of a chain it ships;
//  4. otherwise OpenFork (and ChainConfigFor) fail with an *UnknownChainError
//     that says how to give them.
//
// Fork.RulesSource says which applied ("given", "go-ethereum config for chain
// 1", "debug_chainConfig", "anvil_nodeInfo hardfork Shanghai", "fork cache
// chain_config"); New with a Fork and no Config.ChainConfig runs the Fork's
// rules. A local Env without a Fork and without rules runs
// DefaultChainConfig: every fork up to Osaka, chain id DefaultChainID.
//
// A pre-state file (an allocation with its block, such as a go-ethereum
// tracer fixture's genesis) replays through the same path: WritePrestate
// writes it as a fork cache with its rules, and OpenFork in ReplayOnly mode
// with AbsentIsEmpty reads it as the complete state it is.
//
// # Tracing
//
// Tracing (a call tree with logs, and the prestate/poststate diff) is attached
// only to calls that ask for it with CallOptions.Trace. Any go-ethereum tracing
// hook switches the interpreter off its fast path, so untraced calls attach
// none.
package evm
