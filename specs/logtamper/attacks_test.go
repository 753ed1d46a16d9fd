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

// expect matches the verification of a copy attacked at pos with the
// outcome the attack class must have (tamper.Attack.Expect), located at its
// event.
func expect(a tamper.Attack, clean *tamper.Image, pos int) types.GomegaMatcher {
	want, err := a.Expect(clean, pos)
	Expect(err).NotTo(HaveOccurred())
	any := make([]types.GomegaMatcher, len(want.Kinds))
	for i, k := range want.Kinds {
		any[i] = afrspec.HaveFinding(k)
	}
	switch want.Verdict {
	case verifier.Tampered:
		return And(afrspec.BeTamperedAt(want.At), Or(any...))
	case verifier.Incomplete:
		return And(afrspec.BeIncomplete(), Or(any...))
	}
	return afrspec.BeVerified()
}

var _ = Describe("Tampering with a copy of an anchored log", func() {
	It("a faithful copy verifies (no false positive)", func(ctx SpecContext) {
		img, err := w.LogImage()
		Expect(err).NotTo(HaveOccurred())
		Expect(w.VerifyImage(ctx, img, nil)).To(afrspec.BeVerified())
	})

	const lastEvent, lastEpoch = events - 1, (events+epochSize-1)/epochSize - 1
	for _, a := range tamper.Attacks {
		positions := []int{0, events / 2, lastEvent}
		unit := "event"
		if a.Epochs {
			positions, unit = []int{0, lastEpoch / 2, lastEpoch}, "epoch"
		}
		var entries []TableEntry
		for _, pos := range positions {
			entries = append(entries, Entry(fmt.Sprintf("at %s %d", unit, pos), pos))
		}
		DescribeTable(a.Name+": "+a.Desc,
			func(ctx SpecContext, pos int) {
				clean, err := w.LogImage()
				Expect(err).NotTo(HaveOccurred())
				img := clean.Clone()
				forged, err := a.Apply(img, pos, other)
				Expect(err).NotTo(HaveOccurred())
				var anchors verifier.AnchorSource // nil: the anchors on chain
				if forged != nil {
					anchors = verifier.AnchorList(forged)
				}
				Expect(w.VerifyImage(ctx, img, anchors)).To(expect(a, clean, pos))
			},
			entries,
		)
	}
})
