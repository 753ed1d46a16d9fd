// Package format implements the byte formats of an AFR log as docs/SPEC.md specifies them: the
// deterministic CBOR every object is written in ("Deterministic CBOR"), records and payloads
// ("Record (envelope)", "Payload", "Limits"), key derivation ("Keys"), payload frames and their
// commitments ("Payload frames and commitments"), epoch headers ("Epoch header"), RFC 6962 trees
// and inclusion proofs ("Merkle trees and inclusion proofs"), the event JSON of writers that are
// not Go ("Event JSON", "Links by id"), the log id and aggregate batches ("Log id", "Aggregate
// batches"), and the two files a verifier is given besides a log ("Anchors file", "Batches
// file"). The framing of the segment files that hold the streams is package format/segment
// ("Segment files"). fixtures/vectors holds the language-neutral vectors of these formats
// ("Test vectors").
//
// An Event is what a caller records; the recorder turns it into an Envelope (the record: seq,
// clock, chain head, payload digest, …) and a payload frame. EncodeEnvelope, EncodePayload and
// EncodeEpochHeader write the three objects, DecodeEnvelope, DecodePayload and DecodeEpochHeader
// read them, and RecordDigest and EpochRoot name them. Marshal and NewDecoder are the one CBOR
// codec, for AFR's own objects and for those of the packages built on it (pdr's PDRs and
// policies). EpochKey and DeriveEventKey derive keys, SealPayload and OpenPayload write and open
// frames, Tree and MerkleRoot build epoch trees and VerifyInclusion checks a path. Anchor and
// ReadAnchorsFile, Batch and ReadBatchesFile are the anchors file and the batches file.
//
// The package is the leaf of AFR: it imports nothing of go-ethereum or of any other AFR package,
// so that a verifier (verifier, verifier/light in a web page) carries no chain client.
//
// # Security
//
// Everything decoded here may come from an attacker: a log copied off a compromised host, a
// disclosure bundle, an anchors file. Decoders accept exactly the canonical encoding of the value
// they return (ErrNonCanonical otherwise), refuse unknown fields and enumeration values, and bound
// size, nesting and item counts (ErrLimit), so that one value has one encoding and one digest and
// no input makes a decoder allocate without bound. Failures keep their classes apart (a *DecodeError, a frame
// that does not decrypt, ErrCommitmentMismatch), since a verifier reports each as a different
// finding. Encoders refuse to write what a decoder would reject.
//
// Encrypted frames (format version 2) are ChaCha20-Poly1305 under a per-event key bound to the
// session and seq, with a key commitment, so that a frame opens under one key only; erasing an
// epoch's salt erases its keys (ErrKeyErased). A plaintext frame (mode 0) is readable by anyone
// who has the log.
//
// # Compatibility
//
// Version is the format version of new logs; records and epoch headers carry the version of the
// log that holds them. Readers read every version up to Version and refuse a newer one with an
// error wrapping ErrNewerVersion, never misreading it. A record's version decides its fields, its
// event kinds and its payload frame's construction (AES-256-GCM in version 1 logs,
// ChaCha20-Poly1305 from version 2), so logs written by older builds keep verifying. The bytes of every format are fixed by docs/SPEC.md and the vectors: a change that
// alters them is a new format version, not an edit.
package format
