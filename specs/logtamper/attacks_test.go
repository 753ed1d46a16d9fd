package logtamper_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// attack is one attack class of verifier/tamper: apply it at pos (an event,
// or an epoch for header attacks) of a copy of the anchored log, and match
// the verification of the copy against the anchors on chain.
type attack struct {
	name   string
	desc   string
	epochs bool
	// apply returns the anchors to verify against: nil for the chain's,
	// others when the attack forges what was anchored (linear-fake).
	apply  func(img *tamper.Image, pos int) (verifier.AnchorSource, error)
	expect func(pos int) types.GomegaMatcher
}

const lastEvent, lastEpoch = events - 1, (events+epochSize-1)/epochSize - 1

func onChain(err error) (verifier.AnchorSource, error) { return nil, err }

func tamperedWith(pos int, kinds ...verifier.FindingKind) types.GomegaMatcher {
	any := make([]types.GomegaMatcher, len(kinds))
	for i, k := range kinds {
		any[i] = afrspec.HaveFinding(k)
	}
	return And(afrspec.BeTamperedAt(uint64(pos)), Or(any...))
}

func epochTampered(kind verifier.FindingKind) func(int) types.GomegaMatcher {
	return func(t int) types.GomegaMatcher {
		return And(afrspec.BeTamperedAt(uint64(t*epochSize)), afrspec.HaveFinding(kind))
	}
}

var attacks = []attack{
	{name: "edit-record", desc: "a record's tool re-encoded canonically, nothing else fixed",
		apply:  func(img *tamper.Image, i int) (verifier.AnchorSource, error) { return onChain(img.EditRecord(i)) },
		expect: func(i int) types.GomegaMatcher { return tamperedWith(i, verifier.KindMerkleMismatch) }},
	{name: "flip-record-bit", desc: "one bit flipped in a record",
		apply: func(img *tamper.Image, i int) (verifier.AnchorSource, error) { return onChain(img.FlipRecordByte(i)) },
		expect: func(i int) types.GomegaMatcher {
			return tamperedWith(i, verifier.KindRecordDecode, verifier.KindMerkleMismatch)
		}},
	{name: "edit-payload", desc: "one bit flipped in a stored payload",
		apply:  func(img *tamper.Image, i int) (verifier.AnchorSource, error) { return onChain(img.EditPayload(i)) },
		expect: func(i int) types.GomegaMatcher { return tamperedWith(i, verifier.KindPayloadMismatch) }},
	{name: "delete-record", desc: "a record and its payload removed",
		apply: func(img *tamper.Image, i int) (verifier.AnchorSource, error) { return onChain(img.DeleteRecord(i)) },
		expect: func(i int) types.GomegaMatcher {
			if i == lastEvent {
				return tamperedWith(i, verifier.KindRecordsMissing)
			}
			return tamperedWith(i, verifier.KindSequence)
		}},
	{name: "insert-record", desc: "a well-formed forged record chained in",
		apply:  func(img *tamper.Image, i int) (verifier.AnchorSource, error) { return onChain(img.InsertRecord(i)) },
		expect: func(i int) types.GomegaMatcher { return tamperedWith(i, verifier.KindSequence) }},
	{name: "reorder", desc: "two neighbouring records swapped",
		apply: func(img *tamper.Image, i int) (verifier.AnchorSource, error) {
			j := i + 1
			if i == lastEvent {
				j = i - 1
			}
			return onChain(img.SwapRecords(i, j))
		},
		expect: func(i int) types.GomegaMatcher { return tamperedWith(i, verifier.KindSequence) }},
	{name: "payload-swap", desc: "two events' payloads swapped",
		apply: func(img *tamper.Image, i int) (verifier.AnchorSource, error) {
			return onChain(img.SwapPayloads(i, (i+1)%events))
		},
		expect: func(i int) types.GomegaMatcher { return tamperedWith(i, verifier.KindPayloadMismatch) }},
	{name: "cross-session-splice", desc: "a record of another session spliced in",
		apply:  func(img *tamper.Image, i int) (verifier.AnchorSource, error) { return onChain(img.Splice(i, other)) },
		expect: func(i int) types.GomegaMatcher { return tamperedWith(i, verifier.KindForeignRecord) }},
	{name: "fork", desc: "history rewritten from an event on, consistently, headers recomputed",
		apply:  func(img *tamper.Image, i int) (verifier.AnchorSource, error) { return onChain(img.Fork(i)) },
		expect: func(i int) types.GomegaMatcher { return tamperedWith(i, verifier.KindAnchorMismatch) }},
	{name: "truncate", desc: "the log cut before anchored epochs",
		apply: func(img *tamper.Image, i int) (verifier.AnchorSource, error) { return onChain(img.Truncate(i)) },
		expect: func(i int) types.GomegaMatcher {
			if i%epochSize == 0 { // cut at an epoch boundary: a copy of an older log
				return And(afrspec.BeIncomplete(), afrspec.HaveFinding(verifier.KindTruncated))
			}
			// cut inside an anchored epoch whose header is gone: no crash
			// of ours leaves an anchored epoch without its header
			return And(afrspec.BeTamperedAt(uint64(i/epochSize*epochSize)), afrspec.HaveFinding(verifier.KindEpochMissing))
		}},
	{name: "replace-header", desc: "an epoch header replaced by a well-formed other one", epochs: true,
		apply:  func(img *tamper.Image, t int) (verifier.AnchorSource, error) { return onChain(img.ReplaceHeader(t)) },
		expect: epochTampered(verifier.KindAnchorMismatch)},
	{name: "drop-epoch", desc: "an epoch header removed", epochs: true,
		apply:  func(img *tamper.Image, t int) (verifier.AnchorSource, error) { return onChain(img.DropHeader(t)) },
		expect: epochTampered(verifier.KindEpochMissing)},
	{name: "rewrite-tail", desc: "records rewritten from an event on (chain recomputed), headers dropped from its epoch on",
		apply: func(img *tamper.Image, i int) (verifier.AnchorSource, error) { return onChain(img.RewriteTail(i)) },
		expect: func(i int) types.GomegaMatcher {
			return And(afrspec.BeTamperedAt(uint64(i/epochSize*epochSize)), afrspec.HaveFinding(verifier.KindEpochMissing))
		}},
	{name: "rollback", desc: "rolled back to an epoch start and rewritten", epochs: true,
		apply:  func(img *tamper.Image, t int) (verifier.AnchorSource, error) { return onChain(img.Rollback(t)) },
		expect: epochTampered(verifier.KindAnchorMismatch)},
	{name: "linear-fake", desc: "the operator anchors a header whose chain head is not its last record", epochs: true,
		apply: func(img *tamper.Image, t int) (verifier.AnchorSource, error) {
			forged, err := img.LinearFake(t)
			return verifier.AnchorList(forged), err
		},
		expect: epochTampered(verifier.KindChainHeadMismatch)},
}

// BeTamperedAt for an epoch: tampered at its first event.
func BeTamperedAt(t int) types.GomegaMatcher { return afrspec.BeTamperedAt(uint64(t * epochSize)) }

var _ = Describe("Tampering with a copy of an anchored log", func() {
	It("a faithful copy verifies (no false positive)", func(ctx SpecContext) {
		img, err := w.LogImage()
		Expect(err).NotTo(HaveOccurred())
		Expect(w.VerifyImage(ctx, img, nil)).To(afrspec.BeVerified())
	})

	for _, a := range attacks {
		positions := []int{0, events / 2, lastEvent}
		unit := "event"
		if a.epochs {
			positions, unit = []int{0, lastEpoch / 2, lastEpoch}, "epoch"
		}
		var entries []TableEntry
		for _, pos := range positions {
			entries = append(entries, Entry(fmt.Sprintf("at %s %d", unit, pos), pos))
		}
		DescribeTable(a.name+": "+a.desc,
			func(ctx SpecContext, pos int) {
				img, err := w.LogImage()
				Expect(err).NotTo(HaveOccurred())
				anchors, err := a.apply(img, pos)
				Expect(err).NotTo(HaveOccurred())
				Expect(w.VerifyImage(ctx, img, anchors)).To(a.expect(pos))
			},
			entries,
		)
	}
})
