// Package tracesim replays mined transactions and simulates proposed calls on
// AFR's in-process EVM (package evm), decodes what they did with an ABI
// registry (package calldata), and rebuilds the recorder's effects and
// execution fields from it.
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
//   - Effects.Record and ReplayResult.Payload give the recorder's typed
//     fields (the intent comes from calldata.IntentOf).
//
// The JSON output and the replay cache format are specified in docs/SPEC.md,
// "Tracesim output".
//
// # Security
//
// Calldata, logs, revert data, ABI files and cache files are untrusted: the
// decoders (package calldata) bound nesting, recover from decoder panics,
// and are fuzzed here. A
// replay is only as faithful as its fork rules: they are ReplayOptions.ChainConfig
// when given, else the fork's (go-ethereum's config for a chain it ships, the
// endpoint's debug_chainConfig or anvil_nodeInfo answer, or the rules recorded
// in the fork cache; never guessed, see "Fork rules" in package evm). They must
// match the rules the chain ran the block with, and the fidelity check is what
// says whether they did.
package tracesim
