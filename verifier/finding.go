package verifier

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Verdict is the outcome of a verification.
type Verdict uint8

// Verdicts. Tampered takes precedence over Incomplete.
const (
	Verified   Verdict = iota // every check passed and every event is covered by a matching anchor
	Incomplete                // nothing contradicts the anchors, but something is missing or unanchored
	Tampered                  // some evidence contradicts itself or the anchors
)

func (v Verdict) String() string {
	switch v {
	case Verified:
		return "verified"
	case Incomplete:
		return "incomplete"
	case Tampered:
		return "tampered"
	}
	return fmt.Sprintf("verdict(%d)", uint8(v))
}

// MarshalText implements encoding.TextMarshaler.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// Class says how a finding affects the verdict.
type Class uint8

// Classes.
const (
	ClassNotice     Class = iota // informational: does not change the verdict
	ClassIncomplete              // makes the verdict at best incomplete
	ClassTampered                // makes the verdict tampered
)

func (c Class) String() string {
	return [...]string{"notice", "incomplete", "tampered"}[c]
}

// MarshalText implements encoding.TextMarshaler.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// FindingKind names what a finding is about. Each kind belongs to one class, and
// the kinds are disjoint: a decode failure, a chain break, a Merkle
// mismatch and an anchor mismatch are never folded into one another.
type FindingKind string

// Finding kinds. docs/SPEC.md ("Verification") lists them with their meaning.
const (
	// Tampered: the evidence contradicts itself or the anchors.
	KindSegmentCorrupt    FindingKind = "segment_corrupt"      // stream bytes damaged before their end (checksum, length, header)
	KindRecordDecode      FindingKind = "record_decode"        // a record is not a valid canonical record
	KindHeaderDecode      FindingKind = "header_decode"        // an epoch header is not a valid canonical header
	KindSequence          FindingKind = "sequence"             // a record's seq is not its position (insert, delete, reorder)
	KindChainBreak        FindingKind = "chain_break"          // a record's prev is not the digest of the record before it
	KindForeignRecord     FindingKind = "foreign_record"       // a record or header of another session or recorder
	KindClock             FindingKind = "clock"                // logical clock not strictly increasing
	KindEpochSequence     FindingKind = "epoch_sequence"       // an epoch header's number or first_seq does not continue the previous epoch
	KindEpochLink         FindingKind = "epoch_link"           // an epoch header's prev_root is not the previous epoch's root
	KindMerkleMismatch    FindingKind = "merkle_mismatch"      // the records of an epoch do not give its Merkle root
	KindChainHeadMismatch FindingKind = "chain_head_mismatch"  // an epoch's last_record is not the digest of its last record (chain and tree disagree)
	KindRecordsMissing    FindingKind = "records_missing"      // an anchored epoch header covers records that are not in the log
	KindAnchorMismatch    FindingKind = "anchor_mismatch"      // an epoch root differs from the root anchored for that epoch (replaced header, fork, equivocation)
	KindEpochMissing      FindingKind = "epoch_missing"        // an anchored epoch is missing between epochs that are present
	KindAnchorConflict    FindingKind = "anchor_conflict"      // the anchor source itself is inconsistent (two roots for an epoch, broken back-pointer)
	KindPayloadMismatch   FindingKind = "payload_mismatch"     // a stored payload frame is not the one its record commits to (edited, swapped)
	KindPayloadLost       FindingKind = "payload_lost"         // the payload of an event in an anchored epoch is missing or unreadable
	KindPayloadDecrypt    FindingKind = "payload_decrypt"      // a disclosed payload does not decrypt under its event key
	KindPayloadCommit     FindingKind = "payload_commitment"   // a disclosed payload does not match its commitment
	KindPayloadDecode     FindingKind = "payload_decode"       // a disclosed payload is not a valid canonical payload
	KindProofInvalid      FindingKind = "proof_invalid"        // a bundle's inclusion proof does not lead to its epoch's Merkle root
	KindExecUnrecorded    FindingKind = "execution_unrecorded" // a PACE execution on chain whose event id is not in the log, though the log was anchored after it
	KindExecMismatch      FindingKind = "execution_mismatch"   // a PACE execution whose recorded event is not a matching chain_tx intent

	// Incomplete: nothing contradicts the anchors, but evidence is missing.
	KindTornTail       FindingKind = "torn_tail"           // a stream ends in a torn frame (a crash, or a partial copy)
	KindUnsealed       FindingKind = "unsealed"            // events after the last sealed epoch
	KindUnanchored     FindingKind = "unanchored"          // epochs (and their events) after the last anchored epoch
	KindTruncated      FindingKind = "truncated"           // the log ends before epochs that were anchored, or inside an epoch not anchored
	KindPayloadMissing FindingKind = "payload_missing"     // payloads of events not yet anchored absent, or not disclosed
	KindExecAfterLog   FindingKind = "execution_after_log" // a PACE execution after the last anchored epoch whose event id is not in the log

	// Notices.
	KindPayloadErased FindingKind = "payload_erased"             // the epoch's key material was destroyed (crypto-erasure)
	KindExecUnchecked FindingKind = "execution_intent_unchecked" // PACE executions matched by event id only: their payloads were not readable
)

var kindClass = map[FindingKind]Class{
	KindSegmentCorrupt: ClassTampered, KindRecordDecode: ClassTampered, KindHeaderDecode: ClassTampered,
	KindSequence: ClassTampered, KindChainBreak: ClassTampered, KindForeignRecord: ClassTampered,
	KindClock: ClassTampered, KindEpochSequence: ClassTampered, KindEpochLink: ClassTampered,
	KindMerkleMismatch: ClassTampered, KindChainHeadMismatch: ClassTampered, KindRecordsMissing: ClassTampered,
	KindAnchorMismatch: ClassTampered, KindEpochMissing: ClassTampered, KindAnchorConflict: ClassTampered,
	KindPayloadMismatch: ClassTampered, KindPayloadLost: ClassTampered, KindPayloadDecrypt: ClassTampered, KindPayloadCommit: ClassTampered,
	KindPayloadDecode: ClassTampered, KindProofInvalid: ClassTampered,
	KindExecUnrecorded: ClassTampered, KindExecMismatch: ClassTampered, KindExecAfterLog: ClassIncomplete,
	KindExecUnchecked: ClassNotice,
	KindTornTail:      ClassIncomplete, KindUnsealed: ClassIncomplete, KindUnanchored: ClassIncomplete,
	KindTruncated: ClassIncomplete, KindPayloadMissing: ClassIncomplete,
	KindPayloadErased: ClassNotice,
}

// Class returns the class of findings of kind k.
func (k FindingKind) Class() Class { return kindClass[k] }

// Finding is one thing the verifier found. Seq and Epoch locate it (nil when
// not applicable); a run of consecutive records with the same finding is
// reported once with Count > 1.
type Finding struct {
	Kind     FindingKind `json:"kind"`
	Class    Class       `json:"class"`
	Epoch    *uint64     `json:"epoch,omitempty"`
	Seq      *uint64     `json:"seq,omitempty"`
	Count    uint64      `json:"count,omitempty"` // records in the run, when more than one
	Expected string      `json:"expected,omitempty"`
	Found    string      `json:"found,omitempty"`
	Detail   string      `json:"detail"`
}

func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)", f.Kind, f.Class)
	if f.Epoch != nil {
		fmt.Fprintf(&b, " epoch %d", *f.Epoch)
	}
	if f.Seq != nil {
		if f.Count > 1 {
			fmt.Fprintf(&b, " events %d..%d", *f.Seq, *f.Seq+f.Count-1)
		} else {
			fmt.Fprintf(&b, " event %d", *f.Seq)
		}
	}
	fmt.Fprintf(&b, ": %s", f.Detail)
	if f.Expected != "" || f.Found != "" {
		fmt.Fprintf(&b, " (expected %s, found %s)", f.Expected, f.Found)
	}
	return b.String()
}

// Report is the result of a verification.
type Report struct {
	Verdict  Verdict   `json:"verdict"`
	Findings []Finding `json:"findings"`
	// Dropped counts findings left out beyond Options.MaxFindings.
	Dropped uint64 `json:"dropped_findings,omitempty"`

	Events          uint64 `json:"events"`           // records read
	Epochs          uint64 `json:"epochs"`           // epoch headers read
	AnchoredEpochs  uint64 `json:"anchored_epochs"`  // epochs whose root matches its anchor
	AnchoredEvents  uint64 `json:"anchored_events"`  // events in those epochs
	PayloadsChecked uint64 `json:"payloads_checked"` // payload frames checked against their records
	PayloadsOpened  uint64 `json:"payloads_opened"`  // payloads decrypted and checked against their commitments
	// Executions summarises the completeness check, if one ran
	// (Options.Completeness).
	Executions *ExecutionReport `json:"executions,omitempty"`
}

// Has reports whether the report contains a finding of kind k.
func (r *Report) Has(k FindingKind) bool {
	for _, f := range r.Findings {
		if f.Kind == k {
			return true
		}
	}
	return false
}

// JSON returns the report as indented JSON (the format of afr verify --json).
func (r *Report) JSON() ([]byte, error) { return json.MarshalIndent(r, "", "  ") }

// collector gathers findings, merging runs and bounding their number.
type collector struct {
	max      int
	findings []Finding
	dropped  uint64
	verdict  Verdict // over every finding, dropped ones included
}

func u64(v uint64) *uint64 { return &v }

func (c *collector) add(f Finding) {
	f.Class = f.Kind.Class()
	switch {
	case f.Class == ClassTampered:
		c.verdict = Tampered
	case f.Class == ClassIncomplete && c.verdict == Verified:
		c.verdict = Incomplete
	}
	if n := len(c.findings); n > 0 && f.Seq != nil {
		last := &c.findings[n-1]
		if last.Kind == f.Kind && last.Detail == f.Detail && last.Seq != nil && *last.Seq+max(last.Count, 1) == *f.Seq && sameEpoch(last.Epoch, f.Epoch) {
			last.Count = max(last.Count, 1) + 1
			last.Expected, last.Found = "", ""
			return
		}
	}
	if c.max > 0 && len(c.findings) >= c.max {
		c.dropped++
		return
	}
	c.findings = append(c.findings, f)
}

func sameEpoch(a, b *uint64) bool { return a == nil || b == nil || *a == *b }
