package bugs

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/world/fuzz"
)

var _ = Describe("Planted bugs", Label("fuzz"), func() {
	for _, p := range patterns {
		Describe(p.name, Label(p.labels...), func() {
			It(fmt.Sprintf("finds the planted bug, shrunk to %d call(s) ending in %s, as a committed spec and a verifying log", p.shrunk, p.last), func(ctx SpecContext) {
				c := campaigns[p.forge].planted
				v, err := fuzz.Invariants(ctx, GinkgoT(), w.World, c)
				Expect(err).NotTo(HaveOccurred())
				Expect(v).NotTo(BeNil(), "no violation of the planted bug")
				GinkgoWriter.Printf("%s", v)
				Expect(v.Invariant).To(Equal(c.Invariants[0].Name))
				Expect(v.Calls).To(HaveLen(p.shrunk))
				last := v.Calls[len(v.Calls)-1]
				Expect(last.Method.Name).To(Equal(p.last))
				Expect(last.Reverted).To(BeFalse())
				Expect(v.Trace).To(ContainSubstring(p.last))
				checkEvidence(ctx, p, c, v)
			})

			It("holds on the fixed twin", func(ctx SpecContext) {
				w.Invariants(ctx, campaigns[p.forge].fixed)
			})
		})
	}
})
