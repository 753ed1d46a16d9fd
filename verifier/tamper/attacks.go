package tamper

import (
	"fmt"
	"slices"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
)

// Attack is one attack class as the adversarial tests, the log-tampering
// specs and `afr bench` (Table IV) run it: Apply it at a position of a
// copy of a clean, fully anchored log, verify the copy against the clean
// log's anchors (or the forged ones Apply returns), and the report must be
// what Expect says.
type Attack struct {
	Name string
	Desc string
	// Paper is the paper's name for the attack when it is one of the four
	// the paper measured (edit, delete, reorder, fork), "" otherwise.
	Paper string
	// Epochs: positions are epochs, not records.
	Epochs bool
	// Apply mutates img, a copy of the clean log, at pos; other is a log of
	// another session, at least as long, for splices. It returns nil when
	// the copy is to be verified against the anchors of the clean log, and
	// the anchors to use instead when the attack forges what was anchored.
	Apply func(img *Image, pos int, other *Image) (forged []format.Anchor, err error)
	// Expect is the outcome the attack must have at pos of the clean log.
	Expect func(clean *Image, pos int) (Outcome, error)
}

// Outcome is what a verification of an attacked log must report.
type Outcome struct {
	Verdict verifier.Verdict
	// Kinds: the report has a finding of at least one of these kinds.
	Kinds []verifier.FindingKind
	// At is the first event the tampering is located at: the attacked
	// record, or the first record of the attacked epoch.
	At uint64
}

// Check returns nil when rep has the outcome's verdict and a finding of
// one of its kinds, else an error saying what differs.
func (o Outcome) Check(rep *verifier.Report) error {
	if rep.Verdict != o.Verdict {
		return fmt.Errorf("verdict %s, want %s; findings %v", rep.Verdict, o.Verdict, rep.Findings)
	}
	if slices.ContainsFunc(o.Kinds, rep.Has) {
		return nil
	}
	return fmt.Errorf("no finding of kind %v; findings %v", o.Kinds, rep.Findings)
}

// Detected is the finding of rep that shows the attack: the first of one
// of the outcome's kinds (nil when there is none).
func (o Outcome) Detected(rep *verifier.Report) *verifier.Finding {
	for i, f := range rep.Findings {
		if slices.Contains(o.Kinds, f.Kind) {
			return &rep.Findings[i]
		}
	}
	return nil
}

// at: tampered at the attacked record.
func at(k ...verifier.FindingKind) func(*Image, int) (Outcome, error) {
	return func(_ *Image, i int) (Outcome, error) {
		return Outcome{Verdict: verifier.Tampered, Kinds: k, At: uint64(i)}, nil
	}
}

// atEpochOf: tampered at the first record of the epoch holding record i.
func atEpochOf(k verifier.FindingKind) func(*Image, int) (Outcome, error) {
	return func(clean *Image, i int) (Outcome, error) {
		t, err := clean.EpochOf(i)
		if err != nil {
			return Outcome{}, err
		}
		return atEpoch(k)(clean, t)
	}
}

// atEpoch: tampered at the first record of epoch t.
func atEpoch(k verifier.FindingKind) func(*Image, int) (Outcome, error) {
	return func(clean *Image, t int) (Outcome, error) {
		h, err := clean.header(t)
		if err != nil {
			return Outcome{}, err
		}
		return Outcome{Verdict: verifier.Tampered, Kinds: []verifier.FindingKind{k}, At: h.FirstSeq}, nil
	}
}

// honest: the attack leaves the anchors alone.
func honest(err error) ([]format.Anchor, error) { return nil, err }

// neighbour is the record an attack pairs with record i: the next one, or
// the previous one for the last record.
func neighbour(img *Image, i int) int {
	if i == len(img.RecordFrames)-1 {
		return i - 1
	}
	return i + 1
}

// Attacks is every attack class, the paper's four first.
var Attacks = []Attack{
	{Name: "edit-record", Paper: "edit", Desc: "a record's tool re-encoded canonically, nothing else fixed",
		Apply:  func(img *Image, i int, _ *Image) ([]format.Anchor, error) { return honest(img.EditRecord(i)) },
		Expect: at(verifier.KindMerkleMismatch)},
	{Name: "delete-record", Paper: "delete", Desc: "a record and its payload removed",
		Apply: func(img *Image, i int, _ *Image) ([]format.Anchor, error) { return honest(img.DeleteRecord(i)) },
		Expect: func(clean *Image, i int) (Outcome, error) {
			k := verifier.KindSequence
			if i == len(clean.RecordFrames)-1 {
				k = verifier.KindRecordsMissing
			}
			return at(k)(clean, i)
		}},
	{Name: "reorder", Paper: "reorder", Desc: "two neighbouring records swapped",
		Apply: func(img *Image, i int, _ *Image) ([]format.Anchor, error) {
			return honest(img.SwapRecords(i, neighbour(img, i)))
		},
		Expect: at(verifier.KindSequence)},
	{Name: "fork", Paper: "fork", Desc: "history rewritten from an event on, consistently, headers recomputed",
		Apply:  func(img *Image, i int, _ *Image) ([]format.Anchor, error) { return honest(img.Fork(i)) },
		Expect: at(verifier.KindAnchorMismatch)},
	{Name: "flip-record-bit", Desc: "one bit flipped in a record",
		Apply:  func(img *Image, i int, _ *Image) ([]format.Anchor, error) { return honest(img.FlipRecordByte(i)) },
		Expect: at(verifier.KindRecordDecode, verifier.KindMerkleMismatch)},
	{Name: "edit-payload", Desc: "one bit flipped in a stored payload",
		Apply:  func(img *Image, i int, _ *Image) ([]format.Anchor, error) { return honest(img.EditPayload(i)) },
		Expect: at(verifier.KindPayloadMismatch)},
	{Name: "insert-record", Desc: "a well-formed forged record chained in",
		Apply:  func(img *Image, i int, _ *Image) ([]format.Anchor, error) { return honest(img.InsertRecord(i)) },
		Expect: at(verifier.KindSequence)},
	{Name: "payload-swap", Desc: "two events' payloads swapped",
		Apply: func(img *Image, i int, _ *Image) ([]format.Anchor, error) {
			return honest(img.SwapPayloads(i, (i+1)%len(img.PayloadFrames)))
		},
		Expect: at(verifier.KindPayloadMismatch)},
	{Name: "cross-session-splice", Desc: "a record of another session spliced in (cross-session replay)",
		Apply: func(img *Image, i int, other *Image) ([]format.Anchor, error) {
			if other == nil {
				return nil, fmt.Errorf("tamper: cross-session-splice needs a log of another session")
			}
			return honest(img.Splice(i, other))
		},
		Expect: at(verifier.KindForeignRecord)},
	// A copy cut at an epoch boundary is an old or partial copy; cut inside
	// an anchored epoch, records of that epoch remain without the header
	// that was anchored, which no crash of an honest writer leaves.
	{Name: "truncate", Desc: "the log cut before anchored epochs",
		Apply: func(img *Image, i int, _ *Image) ([]format.Anchor, error) { return honest(img.Truncate(i)) },
		Expect: func(clean *Image, i int) (Outcome, error) {
			t, err := clean.EpochOf(i)
			if err != nil {
				return Outcome{}, err
			}
			h, err := clean.header(t)
			if err != nil {
				return Outcome{}, err
			}
			if h.FirstSeq == uint64(i) {
				return Outcome{Verdict: verifier.Incomplete, Kinds: []verifier.FindingKind{verifier.KindTruncated}, At: uint64(i)}, nil
			}
			return atEpoch(verifier.KindEpochMissing)(clean, t)
		}},
	{Name: "rewrite-tail", Desc: "records rewritten from an event on (chain recomputed), headers dropped from its epoch on",
		Apply:  func(img *Image, i int, _ *Image) ([]format.Anchor, error) { return honest(img.RewriteTail(i)) },
		Expect: atEpochOf(verifier.KindEpochMissing)},
	{Name: "replace-header", Epochs: true, Desc: "an epoch header replaced by a well-formed other one",
		Apply:  func(img *Image, t int, _ *Image) ([]format.Anchor, error) { return honest(img.ReplaceHeader(t)) },
		Expect: atEpoch(verifier.KindAnchorMismatch)},
	// The records of a dropped last epoch are still there: not a truncated
	// copy.
	{Name: "drop-epoch", Epochs: true, Desc: "an epoch header removed",
		Apply:  func(img *Image, t int, _ *Image) ([]format.Anchor, error) { return honest(img.DropHeader(t)) },
		Expect: atEpoch(verifier.KindEpochMissing)},
	{Name: "rollback", Epochs: true, Desc: "rolled back to an epoch start and rewritten",
		Apply:  func(img *Image, t int, _ *Image) ([]format.Anchor, error) { return honest(img.Rollback(t)) },
		Expect: atEpoch(verifier.KindAnchorMismatch)},
	{Name: "linear-fake", Epochs: true, Desc: "the operator anchors a header whose chain head is not its last record",
		Apply:  func(img *Image, t int, _ *Image) ([]format.Anchor, error) { return img.LinearFake(t) },
		Expect: atEpoch(verifier.KindChainHeadMismatch)},
}
