package cheats

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/world"
)

// A local anvil plays the archive node: the protocol (Guarded, whose admin
// is a keyless address, and an OpenZeppelin token) is deployed there first,
// and the World forks it, as a protocol team forks mainnet.
var _ = Describe("Cheatcodes on the fork backend", Label("anvil"), func() {
	It("acts as the protocol's keyless admin and deals its token, on the forked state", func(ctx SpecContext) {
		archive, err := anvil.Start(context.Background(), anvil.Options{Accounts: 1, Hardfork: "prague"})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(archive.Stop)
		c, err := ethclient.DialContext(ctx, archive.URL())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		guardedArt, tokenArt := artifact("Guarded.sol", "Guarded"), artifact("OZToken.sol", "OZToken")
		deploy := func(a *world.Artifact, args ...any) (common.Address, uint64) {
			GinkgoHelper()
			ctor, err := a.ABI.Pack("", args...)
			Expect(err).NotTo(HaveOccurred())
			rc, err := chain.Transact(ctx, c, archive.Keys()[0], nil, nil, append(append([]byte(nil), a.Bin...), ctor...))
			Expect(err).NotTo(HaveOccurred())
			return rc.ContractAddress, rc.BlockNumber.Uint64()
		}
		guarded, _ := deploy(guardedArt, admin)
		token, pin := deploy(tokenArt, eth(1000))

		// A fork cache of its own: the archive is gone after the spec.
		w := afrspec.StartWorld(world.Config{Backend: backend.KindFork, ForkRPC: archive.URL(), ForkBlock: pin, ForkCache: GinkgoT().TempDir()})
		bound, err := w.LoadArtifacts(ctx, "out", guarded, token)
		Expect(err).NotTo(HaveOccurred())
		Expect(bound).To(HaveLen(2))

		Expect(w.Send(ctx, w.Attacker(), guarded, nil, guardedArt.Pack("set", big.NewInt(5)))).
			To(afrspec.RevertWith("NotAdmin", w.Attacker().Address))
		Expect(w.Deal(ctx, admin, eth(1))).To(Succeed())
		Expect(w.Prank(admin)).To(Succeed())
		res := w.Send(ctx, w.Attacker(), guarded, nil, guardedArt.Pack("set", big.NewInt(5)))
		Expect(res.Succeeded()).To(BeTrue(), "%s", res)
		Expect(u(call(ctx, w, guardedArt, guarded, "value"))).To(Equal(uint64(5)))

		alice := w.Actor("alice")
		Expect(w.DealToken(ctx, token, alice, eth(5), world.AdjustSupply())).To(Succeed())
		Expect(w.TokenBalances(ctx, token, alice)).To(Equal([]*big.Int{eth(5)}))
		Expect(call(ctx, w, tokenArt, token, "totalSupply")).To(Equal(eth(1005)))

		now, err := w.Now(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(w.Warp(ctx, now+3600)).To(Succeed())
		Expect(u(call(ctx, w, guardedArt, guarded, "time"))).To(Equal(now + 3600))
	})
})
