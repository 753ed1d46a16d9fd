package cheats

import (
	"context"
	"errors"
	"math/big"
	"path/filepath"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/world"
)

// artifact loads a contract forge built from src/ (run `forge build` here).
func artifact(file, name string) *world.Artifact {
	GinkgoHelper()
	a, err := world.LoadForgeArtifact(filepath.Join("out", file, name+".json"))
	Expect(err).NotTo(HaveOccurred())
	return a
}

func eth(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }

// admin is the keyless address Guarded obeys: no actor has its key.
var admin = common.HexToAddress("0x00000000000000000000000000000000000aD111")

// call makes a view call of a's method on at and returns its single result.
func call(ctx context.Context, w *afrspec.World, a *world.Artifact, at common.Address, method string, args ...any) any {
	GinkgoHelper()
	out, err := w.Client().CallContract(ctx, ethereum.CallMsg{To: &at, Data: a.Pack(method, args...)}, nil)
	Expect(err).NotTo(HaveOccurred())
	vals, err := a.ABI.Unpack(method, out)
	Expect(err).NotTo(HaveOccurred())
	return vals[0]
}

func u(v any) uint64 { GinkgoHelper(); return v.(*big.Int).Uint64() }

// cheatsOn specifies every cheatcode on a backend that has them all.
func cheatsOn(kind backend.Kind, labels ...string) {
	Describe("on the "+string(kind)+" backend", Label(labels...), func() {
		var (
			w          *afrspec.World
			guardedArt *world.Artifact
			guarded    common.Address
		)
		BeforeEach(func(ctx SpecContext) {
			w = afrspec.StartWorld(world.Config{Backend: kind})
			guardedArt = artifact("Guarded.sol", "Guarded")
			var err error
			guarded, err = w.DeployArtifact(ctx, w.Deployer(), guardedArt, admin)
			Expect(err).NotTo(HaveOccurred())
			w.Label(admin, "admin")
		})

		It("Deal sets an ether balance to any wei", func(ctx SpecContext) {
			alice := w.Actor("alice")
			Expect(w.Deal(ctx, alice, big.NewInt(123_456_789))).To(Succeed())
			Expect(w.Balances(ctx, alice)).To(Equal([]*big.Int{big.NewInt(123_456_789)}))
			Expect(w.Deal(ctx, w.Attacker(), new(big.Int))).To(Succeed())
			bal, err := w.Balances(ctx, w.Attacker())
			Expect(err).NotTo(HaveOccurred())
			Expect(bal[0].Sign()).To(BeZero())
		})

		It("Store writes a slot the contract reads, Load reads it back", func(ctx SpecContext) {
			slot := common.BigToHash(big.NewInt(1)) // Guarded.value
			Expect(w.Store(ctx, guarded, slot, common.BigToHash(big.NewInt(7)))).To(Succeed())
			Expect(u(call(ctx, w, guardedArt, guarded, "value"))).To(Equal(uint64(7)))
			Expect(w.Load(ctx, guarded, slot)).To(Equal(common.BigToHash(big.NewInt(7))))
			Expect(w.Load(ctx, guarded, common.Hash{})).To(Equal(common.BytesToHash(admin.Bytes())))
		})

		It("Etch puts code at an address", func(ctx SpecContext) {
			at := common.HexToAddress("0x0000000000000000000000000000000000042042")
			Expect(w.Etch(ctx, at, artifact("Guarded.sol", "Answer").Runtime)).To(Succeed())
			out, err := w.Client().CallContract(ctx, ethereum.CallMsg{To: &at, Data: []byte{1, 2, 3, 4}}, nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(new(big.Int).SetBytes(out).Uint64()).To(Equal(uint64(42)))
		})

		It("Warp sets the time calls see, and the next transaction follows it", func(ctx SpecContext) {
			now, err := w.Now(ctx)
			Expect(err).NotTo(HaveOccurred())
			t := now + 30*24*3600
			Expect(w.Warp(ctx, t)).To(Succeed())
			Expect(u(call(ctx, w, guardedArt, guarded, "time"))).To(Equal(t))
			Expect(w.Send(ctx, w.Attacker(), guarded, nil, guardedArt.Pack("see")).Succeeded()).To(BeTrue())
			Expect(u(call(ctx, w, guardedArt, guarded, "seenTime"))).To(Equal(t + 1))
			Expect(w.Warp(ctx, t)).To(MatchError(backend.ErrTimeBackwards))
		})

		It("Roll sets the block number calls see, and the next transaction follows it", func(ctx SpecContext) {
			head, err := w.Client().BlockNumber(ctx)
			Expect(err).NotTo(HaveOccurred())
			n := head + 50
			Expect(w.Roll(ctx, n)).To(Succeed())
			Expect(u(call(ctx, w, guardedArt, guarded, "number"))).To(Equal(n))
			Expect(w.Send(ctx, w.Attacker(), guarded, nil, guardedArt.Pack("see")).Succeeded()).To(BeTrue())
			Expect(u(call(ctx, w, guardedArt, guarded, "seenBlock"))).To(Equal(n + 1))
			Expect(w.Roll(ctx, n)).To(MatchError(ContainSubstring("not after the latest block")))
		})

		It("Prank sends the next transaction as a keyless address, and only the next", func(ctx SpecContext) {
			set := func(v int64) *world.TxResult {
				return w.Send(ctx, w.Attacker(), guarded, nil, guardedArt.Pack("set", big.NewInt(v)))
			}
			Expect(set(1)).To(afrspec.RevertWith("NotAdmin", w.Attacker().Address))
			Expect(w.Deal(ctx, admin, eth(1))).To(Succeed()) // admin pays its gas
			Expect(w.Prank(admin)).To(Succeed())
			res := set(5)
			Expect(res.Succeeded()).To(BeTrue(), "%s", res)
			Expect(res.From.Address).To(Equal(admin))
			Expect(res).To(afrspec.EmitEventFrom(guarded, "ValueSet"))
			Expect(u(call(ctx, w, guardedArt, guarded, "value"))).To(Equal(uint64(5)))
			Expect(set(6)).To(afrspec.RevertWith("NotAdmin", w.Attacker().Address))
		})

		It("StartPrank sends every transaction as the address until StopPrank", func(ctx SpecContext) {
			Expect(w.Deal(ctx, admin, eth(1))).To(Succeed())
			Expect(w.StartPrank(admin)).To(Succeed())
			for v := range int64(3) {
				res := w.Send(ctx, w.Agent(), guarded, nil, guardedArt.Pack("set", big.NewInt(10+v)))
				Expect(res.Succeeded()).To(BeTrue(), "%s", res)
			}
			w.StopPrank()
			Expect(w.Send(ctx, w.Agent(), guarded, nil, guardedArt.Pack("set", big.NewInt(99)))).To(afrspec.RevertWith("NotAdmin", w.Agent().Address))
			Expect(u(call(ctx, w, guardedArt, guarded, "value"))).To(Equal(uint64(12)))
		})

		It("MineReverting mines a pranked transaction that reverts", func(ctx SpecContext) {
			Expect(w.Deal(ctx, w.Actor("nobody").Address, eth(1))).To(Succeed())
			Expect(w.Prank(w.Actor("nobody").Address)).To(Succeed())
			res := w.Send(ctx, w.Attacker(), guarded, nil, guardedArt.Pack("set", big.NewInt(1)), world.MineReverting(100_000))
			Expect(res.Receipt).NotTo(BeNil())
			Expect(res.Receipt.Status).To(Equal(uint64(0)))
			tr, err := res.Trace(ctx)
			if kind != backend.KindInProcess {
				Expect(err).To(MatchError(world.ErrPrankedReplay))
				return
			}
			// The in-process chain traces it as the sender it was sent as,
			// on the state the Deal above changed.
			Expect(err).NotTo(HaveOccurred())
			Expect(tr.Revert.Name).To(Equal("NotAdmin"))
			Expect(tr.String()).To(ContainSubstring("nobody"))
		})

		It("records a pranked call refused in simulation, and refuses to record a mined one before recording anything", func(ctx SpecContext) {
			Expect(w.Deal(ctx, w.Actor("nobody").Address, eth(1))).To(Succeed())
			Expect(w.Prank(w.Actor("nobody").Address)).To(Succeed())
			refused := w.Send(ctx, w.Attacker(), guarded, nil, guardedArt.Pack("set", big.NewInt(1)))
			Expect(refused).To(afrspec.RevertWith("NotAdmin", w.Actor("nobody").Address))
			ev, err := w.RecordTx(ctx, "nobody", refused)
			Expect(err).NotTo(HaveOccurred())
			Expect(ev.Outcome).NotTo(BeNil())

			Expect(w.Deal(ctx, admin, eth(1))).To(Succeed())
			Expect(w.Prank(admin)).To(Succeed())
			mined := w.Send(ctx, w.Attacker(), guarded, nil, guardedArt.Pack("set", big.NewInt(3)))
			Expect(mined.Succeeded()).To(BeTrue(), "%s", mined)
			before := w.Position()
			_, err = w.RecordTx(ctx, "admin", mined)
			Expect(err).To(MatchError(world.ErrPrankedReplay))
			Expect(w.Position()).To(Equal(before))
		})

		// The worked example of docs/SPECS.md, "Cheatcodes".
		It("acts as the keyless admin, at a time of its choosing, with tokens it was dealt", func(ctx SpecContext) {
			tokenArt := artifact("OZToken.sol", "OZToken")
			token, err := w.DeployArtifact(ctx, w.Deployer(), tokenArt, eth(1000))
			Expect(err).NotTo(HaveOccurred())
			alice := w.Actor("alice")

			Expect(w.DealToken(ctx, token, alice, eth(5), world.AdjustSupply())).To(Succeed())
			Expect(w.TokenBalances(ctx, token, alice)).To(Equal([]*big.Int{eth(5)}))

			Expect(w.Deal(ctx, admin, eth(1))).To(Succeed())
			Expect(w.Prank(admin)).To(Succeed())
			res := w.Send(ctx, w.Attacker(), guarded, nil, guardedArt.Pack("set", big.NewInt(5)))
			Expect(res.Succeeded()).To(BeTrue(), "%s", res)
			Expect(w.Send(ctx, w.Attacker(), guarded, nil, guardedArt.Pack("set", big.NewInt(6)))).
				To(afrspec.RevertWith("NotAdmin", w.Attacker().Address))

			now, err := w.Now(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(w.Warp(ctx, now+30*24*3600)).To(Succeed()) // a month later
			warped, err := w.Client().BlockNumber(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(w.Roll(ctx, 1_000)).To(Succeed()) // at block 1,000, one second per block
			Expect(u(call(ctx, w, guardedArt, guarded, "number"))).To(Equal(uint64(1_000)))
			Expect(u(call(ctx, w, guardedArt, guarded, "time"))).To(Equal(now + 30*24*3600 + 1_000 - warped))
			Expect(w.Store(ctx, guarded, common.BigToHash(big.NewInt(1)), common.BigToHash(big.NewInt(7)))).To(Succeed())
			Expect(w.Load(ctx, guarded, common.BigToHash(big.NewInt(1)))).To(Equal(common.BigToHash(big.NewInt(7))))
		})

		It("Revert undoes cheats made before and after the snapshot", func(ctx SpecContext) {
			alice := w.Actor("alice")
			Expect(w.Deal(ctx, alice, big.NewInt(1))).To(Succeed())
			s, err := w.Snapshot(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(w.Deal(ctx, alice, big.NewInt(2))).To(Succeed())
			Expect(w.Store(ctx, guarded, common.BigToHash(big.NewInt(1)), common.BigToHash(big.NewInt(9)))).To(Succeed())
			Expect(w.Revert(ctx, s)).To(Succeed())
			Expect(w.Balances(ctx, alice)).To(Equal([]*big.Int{big.NewInt(1)}))
			Expect(u(call(ctx, w, guardedArt, guarded, "value"))).To(Equal(uint64(0)))
		})
	})
}

var _ = Describe("Cheatcodes", func() {
	cheatsOn(backend.KindInProcess)
	cheatsOn(backend.KindAnvil, "anvil")

	Describe("on the embedded backend", func() {
		var (
			w          *afrspec.World
			guardedArt *world.Artifact
			guarded    common.Address
		)
		BeforeEach(func(ctx SpecContext) {
			w = afrspec.StartWorld(world.Config{Backend: backend.KindEmbedded})
			guardedArt = artifact("Guarded.sol", "Guarded")
			var err error
			guarded, err = w.DeployArtifact(ctx, w.Deployer(), guardedArt, admin)
			Expect(err).NotTo(HaveOccurred())
		})

		It("Warp and Roll move the time and number calls and transactions see", func(ctx SpecContext) {
			now, err := w.Now(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(w.Warp(ctx, now+3600)).To(Succeed())
			Expect(u(call(ctx, w, guardedArt, guarded, "time"))).To(Equal(now + 3600))
			head, err := w.Client().BlockNumber(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(w.Roll(ctx, head+5)).To(Succeed())
			Expect(u(call(ctx, w, guardedArt, guarded, "number"))).To(Equal(head + 5))
			Expect(w.Send(ctx, w.Attacker(), guarded, nil, guardedArt.Pack("see")).Succeeded()).To(BeTrue())
			Expect(u(call(ctx, w, guardedArt, guarded, "seenTime"))).To(Equal(now + 3600 + 6))
			Expect(w.Warp(ctx, now)).To(MatchError(backend.ErrTimeBackwards))
		})

		It("Load reads storage", func(ctx SpecContext) {
			Expect(w.Load(ctx, guarded, common.Hash{})).To(Equal(common.BytesToHash(admin.Bytes())))
		})

		It("refuses the cheats a go-ethereum node cannot perform, naming the backends that can", func(ctx SpecContext) {
			slot := common.Hash{}
			for name, err := range map[string]error{
				"Deal":       w.Deal(ctx, admin, eth(1)),
				"DealToken":  w.DealToken(ctx, guarded, admin, eth(1)),
				"Store":      w.Store(ctx, guarded, slot, slot),
				"Etch":       w.Etch(ctx, guarded, nil),
				"Prank":      w.Prank(admin),
				"StartPrank": w.StartPrank(admin),
			} {
				var ce *world.CheatError
				Expect(errors.As(err, &ce)).To(BeTrue(), "%s: %v", name, err)
				Expect(ce.Cheat).To(Equal(name))
				Expect(err).To(MatchError(world.ErrCheatUnsupported))
				Expect(err.Error()).To(And(ContainSubstring("embedded backend"), ContainSubstring("use inproc, anvil, fork")))
			}
			// Nothing changed: the next send is not pranked.
			Expect(w.Send(ctx, w.Attacker(), guarded, nil, guardedArt.Pack("set", big.NewInt(1)))).To(afrspec.RevertWith("NotAdmin", w.Attacker().Address))
		})
	})
})
