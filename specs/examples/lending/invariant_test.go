package lending

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/world"
	"github.com/agentflightrecorder/afr/world/fuzz"
)

// ownerUnchanged is the invariant "the pool's owner is still admin", which
// forge writes as invariant_OwnerUnchanged().
func ownerUnchanged(ctx SpecContext, at common.Address) fuzz.Invariant {
	return fuzz.Invariant{Name: "owner unchanged", Check: func(context.Context, *world.World) error {
		if owner := call(ctx, at, "owner").(common.Address); owner != admin {
			return fmt.Errorf("owner is %s, want admin %s", owner, admin)
		}
		return nil
	}}
}

// poolCampaign calls every state-changing method of the pool at, as the
// attacker, alice or bob, with addresses drawn from the actors and
// contracts. Shrinking moves toward the first sender and the first
// address, so the attacker comes first: the shrunk sequence then names who
// the spec is about rather than whichever actor can also call.
func poolCampaign(ctx SpecContext, at common.Address, a *world.Artifact) fuzz.Campaign {
	return fuzz.Campaign{
		Targets:    []fuzz.Target{{Name: "pool", Address: at, ABI: a.ABI}},
		Senders:    []*world.Actor{attacker, alice, bob},
		Invariants: []fuzz.Invariant{ownerUnchanged(ctx, at)},
		Domain:     fuzz.Domain{Addresses: []common.Address{attacker.Address, alice.Address, bob.Address, spot, twap, coll, usd}},
		NoFailFile: true,
	}
}

var _ = Describe("Invariant campaigns", Label("fuzz"), func() {
	It("finds the re-callable initializer, shrunk to the attacker's one call", func(ctx SpecContext) {
		v, err := fuzz.Invariants(ctx, GinkgoT(), w.World, poolCampaign(ctx, pool, poolArt))
		Expect(err).NotTo(HaveOccurred())
		Expect(v).NotTo(BeNil(), "no violation for the planted bug")
		GinkgoWriter.Printf("%s", v)
		Expect(v.Calls).To(HaveLen(1))
		Expect(v.Calls[0].Sender).To(Equal(attacker))
		Expect(v.Calls[0].Method.Name).To(Equal("initialize"))
		Expect(v.Calls[0].Args[0]).To(Equal(attacker.Address))
		Expect(v.Calls[0].Reverted).To(BeFalse())
		Expect(v.Invariant).To(Equal("owner unchanged"))
		Expect(v.Trace).To(ContainSubstring("initialize"))
	})

	It("holds on the fixed pool (its initializer runs once)", func(ctx SpecContext) {
		w.Invariants(ctx, poolCampaign(ctx, fixedPool, fixedArt))
	})
})
