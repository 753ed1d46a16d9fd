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
// # Tracing
//
// Tracing (a call tree with logs, and the prestate/poststate diff) is attached
// only to calls that ask for it with CallOptions.Trace. Any go-ethereum tracing
// hook switches the interpreter off its fast path, so untraced calls attach
// none.
package evm
