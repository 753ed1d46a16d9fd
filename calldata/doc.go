// Package calldata decodes what a transaction says with an ABI registry,
// without executing anything: calldata by selector (collisions are tried one
// by one and reported), logs by topic and indexing, Error(string),
// Panic(uint256) and custom errors, and calls nested in PaceSmartAccount
// executions and multicalls. What does not decode stays visible as raw
// bytes.
//
// IntentOf rebuilds an agent's intent from a call, Intent.Record gives the
// recorder's typed intent field, and CompareIntent reports every difference
// between a recorded intent and an observed execution (for the verifier's
// on-chain completeness check). Package tracesim executes calls and builds
// on this package to decode what they did.
//
// # Security
//
// Calldata, logs, revert data and ABI files are untrusted: the decoders
// bound nesting, recover from decoder panics, and are fuzzed (the fuzz
// targets live in package tracesim, beside the real executions that seed
// them).
package calldata
