package lending

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"pgregory.net/rapid"

	"github.com/agentflightrecorder/afr/world/fuzz"
)

// depositPaysWhatItCredits is the property of a pool's deposit(amount),
// made by alice (10 COL, the pools approved): it either reverts or credits
// her exactly what the pool received. Forge's equivalent is a
// testFuzz_Deposit(uint256 amount) with the same assertions.
func depositPaysWhatItCredits(ctx SpecContext, at common.Address) fuzz.Property {
	return func(t *rapid.T, args []any) {
		amount := args[0].(*big.Int)
		before := balance(ctx, coll, at)
		if res := send(ctx, alice, at, "deposit", amount); !res.Succeeded() {
			return
		}
		credited := call(ctx, at, "collateralOf", alice.Address).(*big.Int)
		paid := new(big.Int).Sub(balance(ctx, coll, at), before)
		if credited.Cmp(paid) != 0 {
			t.Fatalf("deposit(%s) credited %s, the pool received %s", amount, credited, paid)
		}
	}
}

var _ = Describe("Fuzzing deposit", Label("fuzz"), func() {
	It("finds the unchecked transferFrom, shrunk to one more than alice holds", func(ctx SpecContext) {
		c, err := fuzz.Find(ctx, GinkgoT(), w.World, poolArt.ABI.Methods["deposit"], fuzz.Options{NoFailFile: true}, depositPaysWhatItCredits(ctx, pool))
		Expect(err).NotTo(HaveOccurred())
		Expect(c).NotTo(BeNil(), "no counterexample for the planted bug")
		GinkgoWriter.Printf("counterexample: %s\n%s", c, c.Report)
		Expect(c.Args[0]).To(equal(new(big.Int).Add(e18(10), big.NewInt(1))))
	})

	It("holds on the fixed pool (SafeERC20 refuses what is not paid)", func(ctx SpecContext) {
		w.Fuzz(ctx, fixedArt.ABI.Methods["deposit"], fuzz.Options{}, depositPaysWhatItCredits(ctx, fixedPool))
	})
})
