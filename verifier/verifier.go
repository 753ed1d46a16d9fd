// Package verifier decides whether an AFR log (or a disclosure bundle) is
// intact: it checks every record, the hash chain, each epoch's RFC 6962
// Merkle root and chain head, the epoch chain, and each epoch root against
// the roots anchored on chain, and optionally the payloads — by digest, or
// decrypted with event keys and checked against their commitments. The
// formats are those of docs/SPEC.md; the checks and finding kinds are listed
// in its "Verification" section.
//
// The outcome is one of three verdicts with a list of findings:
//
//   - Verified: every check passed and every event is in an epoch whose
//     root matches its anchor.
//   - Tampered: some evidence contradicts itself or the anchors.
//   - Incomplete: nothing contradicts the anchors, but something is
//     missing: events after the last anchored (or sealed) epoch, a
//     truncated or torn tail, payloads missing or not disclosed.
//
// # Queries
//
// IndexLog and IndexBundle index a log's (or bundle's) events for forensic
// queries (afr query). A Query combines envelope conditions (tool, kind,
// group, a sequence range, a range of the recorder's time) with payload
// field conditions on the payload's JSON: every one of Fields holds and at
// least one of Any. ParseFieldMatch reads "PATH OP VALUE": OP is = (exact
// text), ~ (substring), != (differs), or <, <=, >, >= (numbers, compared
// exactly); PATH names fields with dots, list elements by index or * (any
// element), as in "effects.*.file_write.path~/etc". A path the payload
// cannot have is an error naming it and the fields known there.
// Index.Around adds neighbouring events to matches, as grep -B/-A;
// CausalChain and Delegations follow provenance links.
//
// # Security
//
// A log is never reported verified unless every record is covered by an
// epoch whose root equals the anchored root. Failure classes are kept apart:
// a decode failure, a chain break, a Merkle mismatch and an anchor mismatch
// are separate findings, and one never hides another.
package verifier

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentflightrecorder/afr/format"
)

// Source is a log to verify. *recorder.Log implements it; so does an
// in-memory image (see package tamper). Each method calls visit with the
// frames of one stream in increasing position; a position skipped is a
// frame lost to damage. Damage is returned after the frames, as
// segment.ReadAll does: a *segment.CorruptError, *segment.TornTailError or
// *segment.VersionError, or several joined with errors.Join. The verifier
// turns them into findings; other errors abort the verification.
type Source interface {
	Records(visit func(seq uint64, raw []byte) error) error
	Payloads(visit func(seq uint64, frame []byte) error) error
	Epochs(visit func(epoch uint64, raw []byte) error) error
}

// ManifestSource is a Source whose log also has a manifest naming its
// identity: *recorder.Log (the MANIFEST file) implements it. The manifest
// is not evidence — VerifyLog takes the identity from the records and
// headers — but a writer always writes one that matches them, so VerifyLog
// reports a manifest that disagrees (or is missing) as a finding of its own.
type ManifestSource interface {
	Source
	// ManifestIdentity returns the recorder and session the manifest names.
	// The error is non-nil when the manifest is missing or unreadable.
	ManifestIdentity() (recorder string, session format.SessionID, err error)
}

// PayloadLevel selects how far payloads are checked.
type PayloadLevel uint8

// Payload levels: the paper's two verification levels, plus skipping.
const (
	// PayloadsDigest checks every stored payload frame against the digest in
	// its record: no keys needed (the default).
	PayloadsDigest PayloadLevel = iota
	// PayloadsSkip checks hashes, proofs and anchors only.
	PayloadsSkip
	// PayloadsOpen also decrypts every payload with its event key and checks
	// the plaintext against its commitment and the payload format.
	PayloadsOpen
)

// Keys returns the event key of event seq in epoch of a log of format
// version (the version of the event's record: keys are derived per version,
// docs/SPEC.md "Keys"). It returns an error wrapping format.ErrKeyErased for
// an erased epoch. VerifyLog calls it from its workers at once: it must be
// safe for concurrent use, as *recorder.Keyring, which implements it, is.
type Keys interface {
	EventKey(version int, epoch, seq uint64) (format.EventKey, error)
}

// Options tune a verification.
type Options struct {
	Payloads PayloadLevel
	Keys     Keys // required for PayloadsOpen
	// Recorder and Session, when set, are the identity the log must have.
	// Otherwise it is taken from the first epoch header (or record): the
	// anchors then decide whether that identity is the operator's.
	Recorder string
	Session  *format.SessionID
	// MaxFindings bounds the findings kept (default 1000); the verdict
	// always accounts for all of them.
	MaxFindings int
	// Workers is the number of goroutines verifying a log's epochs in
	// parallel (records decoded and hashed, Merkle roots, payload digests);
	// the links between them and the findings are checked in order, so the
	// report is the same for any number. 0 means runtime.GOMAXPROCS(0); 1
	// verifies on the caller's goroutine.
	Workers int
	// Completeness, when set, also checks the log against an outside
	// record of the actions it must hold (package verifier/onchain: the
	// executions of a PaceSmartAccount), after every other check. Keys, when
	// set, let it read encrypted payloads at any payload level.
	Completeness Completeness
}

// record is what the verifier keeps per record.
type record struct {
	digest  format.Digest
	leaf    format.Digest // RFC 6962 leaf hash of digest
	payload format.Digest // commitment to the payload frame (zero if undecodable)
	version uint8         // format version (0 if undecodable)
	ok      bool          // decoded
	lost    bool          // lost to stream damage: a placeholder
}

// header is what the verifier keeps per epoch header.
type header struct {
	read bool // false: lost to stream damage, a placeholder
	root format.Digest
	h    *format.EpochHeader // nil if undecodable
}

// VerifyLog verifies a log against anchors. The error is non-nil only when
// the verification could not run (an I/O error, a cancelled context, keys
// missing for PayloadsOpen); every problem with the log itself is a finding.
func VerifyLog(ctx context.Context, src Source, anchors AnchorSource, opts Options) (*Report, error) {
	if opts.Payloads == PayloadsOpen && opts.Keys == nil {
		return nil, errors.New("verifier: PayloadsOpen needs Options.Keys")
	}
	if opts.MaxFindings == 0 {
		opts.MaxFindings = 1000
	}
	v := &logVerifier{ctx: ctx, opts: opts, c: &collector{max: opts.MaxFindings}}
	as, complete, err := readAnchors(ctx, anchors, v.c)
	if err != nil {
		return nil, err
	}
	if err := v.readHeaders(src); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	err = v.readRecords(src)
	if v.commits != nil {
		defer v.commits.close()
	}
	if err != nil {
		return nil, err
	}
	if ms, ok := src.(ManifestSource); ok {
		v.checkManifest(ms)
	}
	idx := anchorIndex(as, complete, v.c)
	v.checkEpochs(idx)
	v.checkAnchors(idx)
	if opts.Payloads != PayloadsSkip {
		if err := v.checkPayloads(src); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Completeness != nil {
		if err := v.checkCompleteness(ctx, src); err != nil {
			return nil, err
		}
	}
	rep := &v.rep
	rep.Findings, rep.Dropped, rep.Verdict = v.c.findings, v.c.dropped, v.c.verdict
	if rep.Findings == nil {
		rep.Findings = []Finding{}
	}
	return rep, nil
}

type logVerifier struct {
	ctx     context.Context
	opts    Options
	c       *collector
	rep     Report
	headers []header
	count   uint64      // records read (lost ones included)
	trees   *epochTrees // the epochs' roots and last records, from the records pass
	commits *commits    // each record's payload commitment, for the payloads pass
	lost    [][2]uint64 // runs [from, to) of records lost to stream damage
	// identity every record and header must carry
	recorder string
	session  format.SessionID
	haveID   bool
	// sealedEnd is the first event not covered by the epoch headers.
	sealedEnd uint64
	// newerRecords are the first records of segment files of a newer
	// format version (unsupported_version): the records from each on that
	// were not read are not missing, this build cannot read them.
	newerRecords []uint64
	newer        [][2]uint64 // runs of records unread for a newer version (newerVersionIn)
	// newerEpochs is the first position of an epochs file of a newer
	// format version the stream ends in: anchored epochs from it on are
	// unread, not missing.
	newerEpochs *uint64
	// state of the in-order record checks
	prev      format.Digest
	prevClock uint64
	shift     int64 // seq − position of the last record, to report each shift once
	afterLost bool  // the previous record was lost to stream damage: nothing to link to
}

func (v *logVerifier) setIdentity(rec string, s format.SessionID) {
	if v.haveID {
		return
	}
	v.recorder, v.session, v.haveID = rec, s, true
	if v.opts.Recorder != "" {
		v.recorder = v.opts.Recorder
	}
	if v.opts.Session != nil {
		v.session = *v.opts.Session
	}
}

// checkManifest compares the manifest's identity with the one the log
// must have (Options, else the first header's or record's).
func (v *logVerifier) checkManifest(ms ManifestSource) {
	rec, s, err := ms.ManifestIdentity()
	switch {
	case err != nil:
		v.c.add(Finding{Kind: KindManifestUnreadable, Detail: fmt.Sprintf("the log's manifest is missing or unreadable (%v): the identity is taken from the records", err)})
	case v.haveID && (rec != v.recorder || s != v.session):
		v.c.add(Finding{Kind: KindManifestMismatch, Expected: idString(v.recorder, v.session), Found: idString(rec, s),
			Detail: "the manifest names another recorder or session than the records and headers: it was edited or belongs to another log (hint: keys derived for the manifest's session open no payload of this log)"})
	}
}
