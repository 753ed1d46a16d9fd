package vault

import (
	"math/big"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

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

var _ = Describe("A vault with three classic bugs", Label("anvil"), func() {
	var (
		w                      *afrspec.World
		vaultArt, fixedArt     *world.Artifact
		vault, fixed           common.Address
		alice, owner, attacker *world.Actor
	)

	BeforeEach(func(ctx SpecContext) {
		w = afrspec.StartWorld(world.Config{RPC: true})
		vaultArt, fixedArt = artifact("Vault.sol", "Vault"), artifact("FixedVault.sol", "FixedVault")
		alice, owner, attacker = w.Actor("alice"), w.Owner(), w.Attacker()
		Expect(w.Fund(ctx, alice, new(big.Int).Mul(big.NewInt(20), big.NewInt(1e18)))).To(Succeed())
		var err error
		vault, err = w.DeployArtifact(ctx, owner, vaultArt)
		Expect(err).NotTo(HaveOccurred())
		fixed, err = w.DeployArtifact(ctx, owner, fixedArt)
		Expect(err).NotTo(HaveOccurred())
		// Alice keeps 5 ETH in each vault.
		for _, v := range []common.Address{vault, fixed} {
			res := w.Send(ctx, alice, v, eth(5), vaultArt.Pack("deposit"))
			Expect(res.Succeeded()).To(BeTrue(), "%s", res)
		}
	})

	Describe("re-entrancy", func() {
		attack := func(ctx SpecContext, target common.Address) (*world.TxResult, common.Address) {
			GinkgoHelper()
			r, err := w.DeployArtifact(ctx, attacker, artifact("Reenter.sol", "Reenter"), target)
			Expect(err).NotTo(HaveOccurred())
			reenterArt := artifact("Reenter.sol", "Reenter")
			return w.Send(ctx, attacker, r, eth(1), reenterArt.Pack("attack")), r
		}

		It("drains the vulnerable vault through withdraw's external call", func(ctx SpecContext) {
			res, _ := attack(ctx, vault)
			// 1 ETH in, 6 ETH out: Alice's 5 and its own.
			Expect(res).To(afrspec.ChangeEtherBalances([]any{vault, attacker}, []any{eth(-5), eth(5)}))
			Expect(res).To(afrspec.EmitEventFrom(vault, "Withdrawn"))
			_, err := w.RecordTx(ctx, "attacker", res)
			Expect(err).NotTo(HaveOccurred())
			Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
		})

		It("is refused by the fixed vault: the nested withdraw reverts, so the transfer fails", func(ctx SpecContext) {
			res, r := attack(ctx, fixed)
			Expect(res).To(afrspec.RevertWith("TransferFailed", r, eth(1)))
			Expect(res).To(afrspec.ChangeEtherBalance(fixed, 0))
			_, err := w.RecordTx(ctx, "attacker", res)
			Expect(err).NotTo(HaveOccurred())
			Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
		})
	})

	Describe("access control", func() {
		It("lets anyone take the vulnerable vault's ownership and sweep it", func(ctx SpecContext) {
			take := w.Send(ctx, attacker, vault, nil, vaultArt.Pack("setOwner", attacker.Address))
			Expect(take).To(afrspec.EmitEvent("OwnerChanged", afrspec.Args{owner.Address, attacker.Address}))
			sweep := w.Send(ctx, attacker, vault, nil, vaultArt.Pack("sweep", attacker.Address))
			Expect(sweep).To(afrspec.ChangeEtherBalances([]any{vault, attacker}, []any{eth(-5), eth(5)}))
			ev, err := w.RecordTx(ctx, "attacker", take)
			Expect(err).NotTo(HaveOccurred())
			_, err = w.RecordTx(ctx, "attacker", sweep, ev.Outcome.Seq)
			Expect(err).NotTo(HaveOccurred())
			Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
		})

		It("is refused by the fixed vault with NotOwner(caller)", func(ctx SpecContext) {
			take := w.Send(ctx, attacker, fixed, nil, fixedArt.Pack("setOwner", attacker.Address))
			Expect(take).To(afrspec.RevertWith("NotOwner", attacker.Address))
			sweep := w.Send(ctx, attacker, fixed, nil, fixedArt.Pack("sweep", attacker.Address))
			Expect(sweep).To(afrspec.RevertWith("NotOwner", attacker.Address))
			_, err := w.RecordTx(ctx, "attacker", take)
			Expect(err).NotTo(HaveOccurred())
			Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
		})
	})

	Describe("signature replay", func() {
		// sign is the owner's signature over digest (v, r, s as ecrecover takes them).
		sign := func(digest []byte) (uint8, [32]byte, [32]byte) {
			GinkgoHelper()
			sig, err := crypto.Sign(digest, owner.Key)
			Expect(err).NotTo(HaveOccurred())
			return sig[64] + 27, [32]byte(sig[:32]), [32]byte(sig[32:64])
		}
		word := func(v any) []byte {
			switch x := v.(type) {
			case common.Address:
				return common.LeftPadBytes(x.Bytes(), 32)
			case *big.Int:
				return common.LeftPadBytes(x.Bytes(), 32)
			}
			panic("word")
		}
		digest := func(parts ...any) []byte {
			var b []byte
			for _, p := range parts {
				b = append(b, word(p)...)
			}
			return crypto.Keccak256(b)
		}

		It("pays the vulnerable vault's signed payout again and again", func(ctx SpecContext) {
			amount := eth(1)
			v, r, s := sign(digest(vault, new(big.Int).SetUint64(w.ChainID()), attacker.Address, amount))
			call := vaultArt.Pack("withdrawWithSig", attacker.Address, amount, v, r, s)
			first := w.Send(ctx, attacker, vault, nil, call)
			Expect(first).To(afrspec.ChangeEtherBalances([]any{vault, attacker}, []any{eth(-1), eth(1)}))
			again := w.Send(ctx, attacker, vault, nil, call) // the same signature, replayed
			Expect(again).To(afrspec.ChangeEtherBalances([]any{vault, attacker}, []any{eth(-1), eth(1)}))
			ev, err := w.RecordTx(ctx, "attacker", first)
			Expect(err).NotTo(HaveOccurred())
			_, err = w.RecordTx(ctx, "attacker", again, ev.Outcome.Seq)
			Expect(err).NotTo(HaveOccurred())
			Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
		})

		It("is refused by the fixed vault with SignatureReused(digest)", func(ctx SpecContext) {
			amount, nonce := eth(1), big.NewInt(1)
			d := digest(fixed, new(big.Int).SetUint64(w.ChainID()), attacker.Address, amount, nonce)
			v, r, s := sign(d)
			call := fixedArt.Pack("withdrawWithSig", attacker.Address, amount, nonce, v, r, s)
			Expect(w.Send(ctx, attacker, fixed, nil, call)).To(afrspec.EmitEvent("PaidWithSig", afrspec.Args{attacker.Address, amount, nonce}))
			again := w.Send(ctx, attacker, fixed, nil, call)
			Expect(again).To(afrspec.RevertWith("SignatureReused", common.BytesToHash(d)))
			_, err := w.RecordTx(ctx, "attacker", again)
			Expect(err).NotTo(HaveOccurred())
			Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
		})
	})

	It("keeps the fixed vault's gas at its baseline", func(ctx SpecContext) {
		gas := map[string]uint64{}
		measure := func(name string, res *world.TxResult) {
			GinkgoHelper()
			Expect(res.Succeeded()).To(BeTrue(), "%s: %s", name, res)
			gas[name] = res.Receipt.GasUsed
		}
		measure("fixed/deposit", w.Send(ctx, alice, fixed, eth(1), fixedArt.Pack("deposit")))
		measure("fixed/withdraw", w.Send(ctx, alice, fixed, nil, fixedArt.Pack("withdraw")))
		Expect(gas).To(afrspec.MatchGasBaseline("gas-baseline.json"))
	})
})
