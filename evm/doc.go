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
// Calls never change the Env's state; transactions (Transact, Deploy,
// ApplyTransaction) do. Snapshot and Revert bracket any sequence of them.
//
// # Transactions
//
// Transact sends a message (ethereum.CallMsg) as a transaction: the fields
// it carries decide what it is (a gas price or fee caps, an access list, an
// EIP-7702 authorization list, blob hashes and a blob fee cap, which only
// blob messages carry, as go-ethereum refuses them before Cancun).
// ApplyTransaction and ApplyRawTransaction execute a signed transaction of
// any type exactly as a block would: the sender is recovered with the
// signer of the rules at the block, the consensus checks apply (nonce,
// balance, fee caps), and Result.Receipt holds the receipt fields
// (status, cumulative gas, logs and bloom, created address, effective gas
// price, blob gas). Together with Config.ChainConfig, Config.Alloc and
// Config.Block this runs any transaction on a given pre-state at a given
// block; with a Fork, at a real block of a real chain.
//
// The block context follows go-ethereum's (core.NewEVMBlockContext): a
// non-zero Block.Difficulty makes a proof-of-work block, where DIFFICULTY
// reads it; otherwise PREVRANDAO reads Block.PrevRandao. Under Frontier, a
// creation that cannot pay for its code stands without code, as it did on
// mainnet. Result.ContractAddress is set for every creation, failed ones
// too, as receipts have it, and Result.Err carries the EVM's own error text
// ("out of gas", "invalid opcode: …", or a *RevertError).
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
// Tracing is attached only to calls that ask for it with CallOptions.Trace,
// a TraceConfig with go-ethereum's tracer options (onlyTopCall, withLog;
// diffMode, disableCode, disableStorage); FullTrace is what AFR's replay
// and simulation use. Trace.Calls marshals to the JSON of go-ethereum's
// callTracer byte for byte and Trace.PrestateJSON to that of its
// prestateTracer; go-ethereum's own tracer fixtures check both
// (conformance tests). Any go-ethereum tracing hook switches the
// interpreter off its fast path, so untraced calls attach none.
package evm
