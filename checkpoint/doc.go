// Package checkpoint makes AFR logs witness-cosignable without any chain.
//
// A log's epoch roots R_0, R_1, … are the leaves of a second, log-level
// RFC 6962 tree (leaf data: the 32-byte R_t). Its head at size n — the
// number of sealed epochs it covers — is exported as a C2SP tlog-checkpoint
// (https://c2sp.org/tlog-checkpoint): a signed note whose text is
//
//	<origin>
//	<n>
//	<base64 root>
//
// signed with the operator's golang.org/x/mod/sumdb/note Ed25519 key. Each
// R_t commits to its epoch header, which links R_{t−1}, so a checkpoint of
// size n fixes the whole log up to epoch n−1. The origin names the log:
// "<prefix>/<log id in hex>" (DefaultOriginPrefix unless the operator
// chooses another prefix), which binds a checkpoint to one log
// (format.LogID) so that it cannot be passed off for another.
//
// Between two checkpoints of a growing log there is an RFC 6962 consistency
// proof (ConsistencyProof, VerifyConsistency); Request is the C2SP
// tlog-witness add-checkpoint body that feeds it to a witness, and
// Witness.AddCheckpoint sends it and checks the witness's cosignature
// (C2SP tlog-cosignature, cosignature/v1). Cosignatures are appended to the
// checkpoint's note (AddSignatures).
//
// A verifier reads a checkpoint with Verify under a Policy: the operator's
// signature and at least N of M trusted witnesses. Anchors turns published
// checkpoints — each note with its leaves, the epoch roots it covers, in the
// anchors file format — into a verifier.AnchorSource, beside or instead of
// chain anchors. Parsing and signature checks use
// github.com/transparency-dev/formats (its checkpoint parser and note
// verifiers). docs/SPEC.md, "Checkpoints", is the specification.
package checkpoint
