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

// Finding kinds. The table kinds gives each one's class and meaning
// (Class, Doc); docs/SPEC.md ("Verification") lists the same table.
const (
	KindSegmentCorrupt     FindingKind = "segment_corrupt"
	KindRecordDecode       FindingKind = "record_decode"
	KindHeaderDecode       FindingKind = "header_decode"
	KindSequence           FindingKind = "sequence"
	KindChainBreak         FindingKind = "chain_break"
	KindForeignRecord      FindingKind = "foreign_record"
	KindClock              FindingKind = "clock"
	KindEpochSequence      FindingKind = "epoch_sequence"
	KindEpochLink          FindingKind = "epoch_link"
	KindMerkleMismatch     FindingKind = "merkle_mismatch"
	KindChainHeadMismatch  FindingKind = "chain_head_mismatch"
	KindRecordsMissing     FindingKind = "records_missing"
	KindAnchorMismatch     FindingKind = "anchor_mismatch"
	KindEpochMissing       FindingKind = "epoch_missing"
	KindAnchorConflict     FindingKind = "anchor_conflict"
	KindPayloadMismatch    FindingKind = "payload_mismatch"
	KindPayloadLost        FindingKind = "payload_lost"
	KindPayloadDecrypt     FindingKind = "payload_decrypt"
	KindPayloadCommit      FindingKind = "payload_commitment"
	KindPayloadDecode      FindingKind = "payload_decode"
	KindProofInvalid       FindingKind = "proof_invalid"
	KindBundleOrder        FindingKind = "bundle_order"
	KindManifestMismatch   FindingKind = "manifest_mismatch"
	KindTornTail           FindingKind = "torn_tail"
	KindUnsupportedVersion FindingKind = "unsupported_version"
	KindUnsealed           FindingKind = "unsealed"
	KindUnanchored         FindingKind = "unanchored"
	KindTruncated          FindingKind = "truncated"
	KindBatchWithheld      FindingKind = "batch_withheld"
	KindPayloadMissing     FindingKind = "payload_missing"
	KindBundleEmpty        FindingKind = "bundle_empty"
	KindManifestUnreadable FindingKind = "manifest_unreadable"
	KindPayloadErased      FindingKind = "payload_erased"
	KindExecUnrecorded     FindingKind = "execution_unrecorded"
	KindExecMismatch       FindingKind = "execution_mismatch"
	KindExecAfterLog       FindingKind = "execution_after_log"
	KindExecUnchecked      FindingKind = "execution_intent_unchecked"
)

// kinds is the one table of finding kinds, in the order docs/SPEC.md lists
// them (a test checks that every FindingKind constant is here and that
// SPEC.md's table is this one).
var kinds = []struct {
	kind  FindingKind
	class Class
	doc   string
}{
	{KindSegmentCorrupt, ClassTampered, "a stream is damaged before its end (checksum, length, header)"},
	{KindRecordDecode, ClassTampered, "a record is not a valid canonical record"},
	{KindHeaderDecode, ClassTampered, "an epoch header is not a valid canonical header"},
	{KindSequence, ClassTampered, "a record's `seq` is not its position (reported where the offset changes)"},
	{KindChainBreak, ClassTampered, "`prev` is not the previous record's digest"},
	{KindForeignRecord, ClassTampered, "a record or header of another session or recorder"},
	{KindClock, ClassTampered, "the logical clock does not increase"},
	{KindEpochSequence, ClassTampered, "a header's `epoch` or `first_seq` does not continue the previous epoch"},
	{KindEpochLink, ClassTampered, "a header's `prev_root` is not the previous header's root"},
	{KindMerkleMismatch, ClassTampered, "an epoch's records do not give its `merkle_root`"},
	{KindChainHeadMismatch, ClassTampered, "an epoch's `last_record` is not its last record's digest: chain and tree disagree (the \"linear-fake\" class)"},
	{KindRecordsMissing, ClassTampered, "an anchored header covers records that are absent; a bundle event no bundled header covers"},
	{KindAnchorMismatch, ClassTampered, "a header's root differs from the anchored root of its epoch (replaced header, fork, rollback)"},
	{KindEpochMissing, ClassTampered, "an anchored epoch's header is missing while later epochs, or records after the last header, are present"},
	{KindAnchorConflict, ClassTampered, "the anchors are inconsistent (two roots for an epoch, broken back-pointer, any gap below the highest anchored epoch)"},
	{KindPayloadMismatch, ClassTampered, "a stored payload is not the one its record commits to (edited, swapped)"},
	{KindPayloadLost, ClassTampered, "the payload of an event in an anchored epoch is missing or unreadable"},
	{KindPayloadDecrypt, ClassTampered, "a payload does not decrypt under its event key"},
	{KindPayloadCommit, ClassTampered, "a decrypted payload does not match its commitment"},
	{KindPayloadDecode, ClassTampered, "a decrypted payload is not a valid canonical payload"},
	{KindProofInvalid, ClassTampered, "a bundle's audit path does not lead to its epoch's Merkle root"},
	{KindBundleOrder, ClassTampered, "a bundle's headers are not in strictly increasing `epoch` order, or its events not in strictly increasing `seq` order (reordered or duplicated)"},
	{KindManifestMismatch, ClassTampered, "the `MANIFEST` names another recorder or session than the records and headers carry"},
	{KindTornTail, ClassIncomplete, "a stream ends in a torn frame"},
	{KindUnsupportedVersion, ClassIncomplete, "a segment file of a format version this build cannot read: its frames are not checked"},
	{KindUnsealed, ClassIncomplete, "events after the last epoch header"},
	{KindUnanchored, ClassIncomplete, "epochs without an anchor after the last anchored epoch, no anchors at all, or nothing to verify (an empty log)"},
	{KindTruncated, ClassIncomplete, "the log ends at an epoch boundary before epochs that were anchored, or inside an epoch that is not anchored"},
	{KindBatchWithheld, ClassIncomplete, "an aggregate batch of the operator is missing or its published contents are not available or do not give its anchored root: an anchor of this log in it cannot be excluded"},
	{KindPayloadMissing, ClassIncomplete, "payloads of events not yet anchored absent; payloads or keys not disclosed"},
	{KindBundleEmpty, ClassIncomplete, "a bundle discloses no events: nothing is verified"},
	{KindManifestUnreadable, ClassIncomplete, "the `MANIFEST` is missing or unreadable; the identity is taken from the records"},
	{KindPayloadErased, ClassNotice, "the epoch's key material was destroyed; hashes, proofs and anchors still verify"},
	{KindExecUnrecorded, ClassTampered, "a PACE `Executed` event names an event id that is not in the log, and the execution is older than the seal of the last anchored epoch (see \"On-chain completeness\")"},
	{KindExecMismatch, ClassTampered, "the event an execution names is not a `chain_tx` event, records no intent, or its intent differs from the executed call"},
	{KindExecAfterLog, ClassIncomplete, "an execution's event id is not in the log, and the execution is after the last anchored epoch"},
	{KindExecUnchecked, ClassNotice, "executions found by event id whose encrypted intents could not be compared (no keys)"},
}

// kindIndex maps a kind to its row in kinds.
var kindIndex = func() map[FindingKind]int {
	m := make(map[FindingKind]int, len(kinds))
	for i, k := range kinds {
		m[k.kind] = i
	}
	return m
}()

// Kinds returns every finding kind, in the order docs/SPEC.md lists them.
func Kinds() []FindingKind {
	out := make([]FindingKind, len(kinds))
	for i, k := range kinds {
		out[i] = k.kind
	}
	return out
}

// Class returns the class of findings of kind k. A kind missing from the
// table is tampered: a check whose kind was never registered must not let
// a log verify.
func (k FindingKind) Class() Class {
	if i, ok := kindIndex[k]; ok {
		return kinds[i].class
	}
	return ClassTampered
}

// Doc returns what a finding of kind k means (empty for an unknown kind).
func (k FindingKind) Doc() string {
	if i, ok := kindIndex[k]; ok {
		return kinds[i].doc
	}
	return ""
}

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

// Covers reports whether the finding locates event seq: a finding with a Seq
// covers its run of events, [Seq, Seq+Count) (Seq alone when Count is 0 or
// 1); a finding with an Epoch covers every event of that epoch, by epochOf,
// the epoch layout of the log (nil: not known, and Epoch covers nothing).
// A finding about an epoch may also name one of its events (a Merkle
// mismatch names the first): it covers the whole epoch when epochOf is
// given. A finding with neither covers no event.
func (f Finding) Covers(seq uint64, epochOf func(seq uint64) (epoch uint64, ok bool)) bool {
	if f.Seq != nil && seq >= *f.Seq && seq < f.end() {
		return true
	}
	if f.Epoch != nil && epochOf != nil {
		t, ok := epochOf(seq)
		return ok && t == *f.Epoch
	}
	return false
}

// end is the sequence number after the finding's run of events (Seq set).
func (f Finding) end() uint64 { return *f.Seq + max(f.Count, 1) }

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
		if last.Kind == f.Kind && last.Detail == f.Detail && last.Seq != nil && last.end() == *f.Seq && sameEpoch(last.Epoch, f.Epoch) {
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
