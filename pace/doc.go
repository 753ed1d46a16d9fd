// Package pace is the agent side of a policy-gated on-chain action through a
// PaceSmartAccount (PACE: Policy-Approved Contract Execution, docs/DESIGN.md §3
// and §4.7): it records what the agent intends, has the policy decide with a
// signed Policy Decision Record bound to that record, collects approvals,
// executes through the account and records what happened, so that every
// execution of the account matches an intent in the log (the verifier's
// on-chain completeness check, verifier/onchain.Executions).
//
// The flow of one action, each step a method of Agent:
//
//  1. Propose decodes the call into an intent (calldata.IntentOf), records it
//     as a chain_tx event, evaluates the policy (pdr.Policy.Decide), signs
//     the PDR for the recorded event's id (its record digest) with the
//     policy signer, and records the decision as a policy event. A denial is
//     a result, not an error: the PDR then carries decision deny, which the
//     account refuses.
//  2. Approve, when the evaluation asks for human approval, adds an
//     approver's signature to the PDR and records it as an approval event.
//  3. Submit (or Execute, for the proposal's own PDR and call) sends the
//     account calldata from a relayer key, after simulating it: a call the
//     account would refuse is not broadcast, and the Outcome carries the
//     decoded revert.
//  4. RecordOutcome records the Outcome as a chain_tx event: ok with the
//     transaction, its block and its receipt logs as effects
//     (calldata.LogEffects); reverted with the decoded error; or denied when
//     the agent stopped at the policy's denial and submitted nothing.
//
// Every event after the intent names the intent as a context parent, so a
// forensic query walks from an outcome back to what was proposed. Events of
// the flow use tool "pace" (intent and outcome), "policy" and "approval".
//
// # Security
//
// The agent is trusted with nothing it can abuse on chain: it holds no key
// the account accepts. It can propose, record and relay; it can also lie to
// its own log or not record at all, which the account cannot stop but the
// verifier detects (an execution whose event id is not in the log, or whose
// recorded intent differs from the executed call).
//
// The policy signer is trusted to sign only what the policy allows: a PDR it
// signs for any call executes (within the account's checks of nonce, expiry
// and approvals). Keep its key away from the agent host in production; the
// Agent takes it as a field because evaluation and signing are one step here.
//
// Approvers are trusted with the calls the policy marks as needing a human:
// the account requires Threshold of their signatures over the PDR digest,
// and each approval is recorded with its signature, which anyone can
// recover to the approver's address.
//
// The relayer only pays gas: the calldata it sends is fixed by the PDR, and
// the account refuses any other call.
package pace
