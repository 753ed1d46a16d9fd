// Package tracesim replays mined transactions and simulates proposed calls on
// AFR's in-process EVM (package evm), decodes what they did with an ABI
// registry, and rebuilds the recorder's intent and effects fields from it.
//
//   - Replay fetches a transaction by hash, its block and receipts from any
//     JSON-RPC endpoint, forks the state at the parent block (evm fork mode,
//     optionally recorded to a cache directory and replayed offline), executes
//     the transactions before it in the block, executes it with tracing, and
//     checks status, gas used and logs against the receipt. A disagreement is
//     a *FidelityError returned with the full result, never hidden.
//   - Simulate and SimulateBundle run proposed calls on a pinned state with
//     eth_call-style state and block overrides: what a policy can judge before
//     a PDR is signed.
//   - Registry decodes calldata by selector (collisions are tried one by one
//     and reported), logs by topic and indexing, Error(string), Panic(uint256)
//     and custom errors, and calls nested in PaceSmartAccount executions and
//     multicalls. What does not decode stays visible as raw bytes.
//   - Intent.Record, Effects.Record and ReplayResult.Payload give the
//     recorder's typed fields; CompareIntent reports every difference between
//     a recorded intent and an observed execution, for the verifier.
//
// The JSON output and the replay cache format are specified in docs/SPEC.md,
// "Tracesim output".
//
// # Security
//
// Calldata, logs, revert data, ABI files and cache files are untrusted: the
// decoders bound nesting, recover from decoder panics, and are fuzzed. A
// replay is only as faithful as its fork rules: ReplayOptions.ChainConfig must
// match the rules the chain ran the block with, and the fidelity check is what
// says whether it did.
package tracesim
