package vault

import (
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/world"
)

// admin is an address nobody has the key of.
var admin = common.HexToAddress("0x00000000000000000000000000000000000aD111")

// refused reports whether the World's backend refused the cheatcode named
// cheat: the embedded chain (a go-ethereum node) sets no state without a
// transaction and sends nothing without a key, and says so; every other
// backend performs it.
func refused(w *afrspec.World, cheat string, err error) bool {
	GinkgoHelper()
	if w.Backend() != backend.KindEmbedded {
		Expect(err).NotTo(HaveOccurred(), cheat)
		return false
	}
	var ce *world.CheatError
	Expect(errors.As(err, &ce)).To(BeTrue(), "%s on the embedded chain: %v", cheat, err)
	Expect(ce.Cheat).To(Equal(cheat))
	Expect(err).To(MatchError(ContainSubstring("use inproc, anvil, fork")))
	return true
}

var _ = Describe("Cheatcodes against the vault", Label("cheats", "anvil"), func() {
	var (
		w                           *afrspec.World
		vaultArt, fixedArt, coinArt *world.Artifact
		fixed                       common.Address
	)
	BeforeEach(func(ctx SpecContext) {
		w = afrspec.StartWorld(world.Config{}) // the backend of AFR_BACKEND, else in-process
		vaultArt, fixedArt = artifact("Vault.sol", "Vault"), artifact("FixedVault.sol", "FixedVault")
		coinArt = artifact("Coin.sol", "Coin")
		var err error
		fixed, err = w.DeployArtifact(ctx, w.Owner(), fixedArt)
		Expect(err).NotTo(HaveOccurred())
		w.Label(admin, "admin") // vm.label: traces and messages name it
		Expect(world.HolderName(w.Registry(), admin)).To(ContainSubstring("admin"))
	})

	It("Store makes a keyless address the owner, Load reads it, Prank acts as it", func(ctx SpecContext) {
		ownerSlot := common.Hash{} // FixedVault.owner, the first state variable
		if refused(w, "Store", w.Store(ctx, fixed, ownerSlot, common.BytesToHash(admin.Bytes()))) {
			Expect(w.Load(ctx, fixed, ownerSlot)).To(Equal(common.BytesToHash(w.Owner().Address.Bytes())))
			Expect(refused(w, "Prank", w.Prank(admin))).To(BeTrue())
			Expect(refused(w, "StartPrank", w.StartPrank(admin))).To(BeTrue())
			return
		}
		Expect(w.Load(ctx, fixed, ownerSlot)).To(Equal(common.BytesToHash(admin.Bytes())))
		Expect(refused(w, "Deal", w.Deal(ctx, admin, eth(1)))).To(BeFalse()) // admin pays its gas
		Expect(refused(w, "Prank", w.Prank(admin))).To(BeFalse())
		res := w.Send(ctx, w.Attacker(), fixed, nil, fixedArt.Pack("setOwner", w.Attacker().Address))
		Expect(res).To(afrspec.EmitEvent("OwnerChanged", afrspec.Args{admin, w.Attacker().Address}))
		Expect(w.Send(ctx, w.Agent(), fixed, nil, fixedArt.Pack("setOwner", w.Agent().Address))).
			To(afrspec.RevertWith("NotOwner", w.Agent().Address)) // the prank was for one send

		Expect(refused(w, "StartPrank", w.StartPrank(w.Attacker().Address))).To(BeFalse())
		for range 2 { // every Send until StopPrank, whoever it names
			Expect(w.Send(ctx, w.Agent(), fixed, nil, fixedArt.Pack("setOwner", w.Attacker().Address)).Succeeded()).To(BeTrue())
		}
		w.StopPrank()
		Expect(w.Send(ctx, w.Agent(), fixed, nil, fixedArt.Pack("sweep", w.Agent().Address))).
			To(afrspec.RevertWith("NotOwner", w.Agent().Address))
	})

	It("Deal sets any ether balance, DealToken any token balance and the supply with it", func(ctx SpecContext) {
		alice := w.Actor("alice")
		if refused(w, "Deal", w.Deal(ctx, alice, big.NewInt(123))) {
			Expect(refused(w, "DealToken", w.DealToken(ctx, fixed, alice, eth(1)))).To(BeTrue())
			Expect(w.Balances(ctx, alice)).To(HaveExactElements(afrspec.BeNumerically("==", 0))) // nothing changed
			return
		}
		Expect(w.Balances(ctx, alice)).To(Equal([]*big.Int{big.NewInt(123)}))
		coin, err := w.DeployArtifact(ctx, w.Deployer(), coinArt, eth(1000))
		Expect(err).NotTo(HaveOccurred())
		Expect(w.DealToken(ctx, coin, alice, eth(5), world.AdjustSupply())).To(Succeed())
		Expect(w.TokenBalances(ctx, coin, alice, w.Deployer())).To(Equal([]*big.Int{eth(5), eth(1000)}))
		Expect(w.Load(ctx, coin, common.BigToHash(big.NewInt(1)))).To(Equal(common.BigToHash(eth(1005)))) // totalSupply
		Expect(w.Send(ctx, alice, coin, nil, coinArt.Pack("transfer", w.Attacker().Address, eth(6)))).
			To(afrspec.RevertWith("InsufficientBalance", alice.Address, eth(5), eth(6)))
	})

	It("Etch puts the unfixed vault's code where the fix is, and the old attack drains it", func(ctx SpecContext) {
		alice := w.Actor("alice")
		Expect(w.Fund(ctx, alice, eth(6))).To(Succeed())
		dep := w.Send(ctx, alice, fixed, eth(5), fixedArt.Pack("deposit"))
		Expect(dep.Succeeded()).To(BeTrue(), "%s", dep)
		if refused(w, "Etch", w.Etch(ctx, fixed, vaultArt.Runtime)) {
			return
		}
		// Same storage, the bugs' code: the owner is whoever asks.
		res := w.Send(ctx, w.Attacker(), fixed, nil, vaultArt.Pack("setOwner", w.Attacker().Address))
		Expect(res.Succeeded()).To(BeTrue(), "%s", res)
		Expect(w.Send(ctx, w.Attacker(), fixed, nil, vaultArt.Pack("sweep", w.Attacker().Address))).
			To(afrspec.ChangeEtherBalances([]any{fixed, w.Attacker()}, []any{eth(-5), eth(5)}))
	})

	It("Warp and Roll move time and block number; Snapshot and Revert undo everything", func(ctx SpecContext) {
		s, err := w.Snapshot(ctx) // vm.snapshotState
		Expect(err).NotTo(HaveOccurred())
		now, err := w.Now(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(w.Warp(ctx, now+30*24*3600)).To(Succeed()) // a month later
		Expect(w.Now(ctx)).To(Equal(now + 30*24*3600))
		head, err := w.Client().BlockNumber(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(w.Roll(ctx, head+100)).To(Succeed())
		res := w.Send(ctx, w.Attacker(), fixed, eth(1), fixedArt.Pack("deposit"))
		Expect(res.Succeeded()).To(BeTrue(), "%s", res)
		Expect(res.Receipt.BlockNumber.Uint64()).To(Equal(head + 101)) // the next transaction follows
		Expect(w.Warp(ctx, now)).To(MatchError(backend.ErrTimeBackwards))

		Expect(w.Revert(ctx, s)).To(Succeed()) // vm.revertToState
		Expect(w.Now(ctx)).To(Equal(now))
		Expect(w.Balances(ctx, fixed)).To(HaveExactElements(afrspec.BeNumerically("==", 0)))
	})

	It("MineReverting mines a transaction that reverts, so its receipt and gas can be asserted", func(ctx SpecContext) {
		res := w.Send(ctx, w.Attacker(), fixed, nil, fixedArt.Pack("sweep", w.Attacker().Address), world.MineReverting(100_000))
		Expect(res.Receipt.Status).To(Equal(types.ReceiptStatusFailed)) // mined, status 0
		Expect(res).To(afrspec.UseGasAtMost(100_000))
		Expect(res).To(afrspec.RevertWith("NotOwner", w.Attacker().Address)) // vm.expectRevert
	})
})
