package lending

import (
	"math/big"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/specs/afrspec"
)

// Each spec is named after its forge twin in test/Lending.t.sol and makes
// the same calls and the same assertions (TestTwins checks the names).
var _ = Describe("The lending example", Label("anvil"), func() {
	Describe("the AMM", func() {
		It("test_Swap_PaysConstantProductLessFee", func(ctx SpecContext) {
			in, rIn, rOut := e18(1_000), e18(1_000_000), e18(1_000)
			want := new(big.Int).Mul(new(big.Int).Mul(in, big.NewInt(997)), rOut)
			want.Div(want, new(big.Int).Add(new(big.Int).Mul(rIn, big.NewInt(1000)), new(big.Int).Mul(in, big.NewInt(997))))
			mustSend(ctx, bob, usd, "approve", amm, e18(1_000))
			mustSend(ctx, bob, amm, "swap", usd, e18(1_000), big.NewInt(0))
			Expect(balance(ctx, coll, bob)).To(equal(want))
			Expect(balance(ctx, usd, bob)).To(equal(e18(9_000)))
			Expect(call(ctx, amm, "reserveQuote")).To(equal(e18(1_001_000)))
			Expect(call(ctx, amm, "reserveBase")).To(equal(new(big.Int).Sub(e18(1_000), want)))
		})

		It("test_RevertWhen_SwapBelowMinOut", func(ctx SpecContext) {
			out := call(ctx, amm, "amountOut", e18(1_000), e18(1_000_000), e18(1_000))
			mustSend(ctx, bob, usd, "approve", amm, e18(1_000))
			Expect(send(ctx, bob, amm, "swap", usd, e18(1_000), e18(1))).To(afrspec.RevertWith("Slippage", out, e18(1)))
		})

		It("test_RevertWhen_SwapUnknownToken", func(ctx SpecContext) {
			Expect(send(ctx, bob, amm, "swap", pool, e18(1), big.NewInt(0))).To(afrspec.RevertWith("UnknownToken", pool))
		})
	})

	Describe("the flash lender", func() {
		It("test_FlashLoan_ChargesFee", func(ctx SpecContext) {
			b := deploy(ctx, w.Deployer(), borrowerArt, lender)
			mustSend(ctx, w.Deployer(), usd, "transfer", b, e18(900))
			res := sendTo(ctx, w.Deployer(), borrowerArt, b, "borrow", e18(1_000_000), e18(900))
			Expect(res.Succeeded()).To(BeTrue(), "%s", res)
			Expect(balance(ctx, usd, lender)).To(equal(e18(10_000_900)))
			Expect(balance(ctx, usd, b)).To(equal(0))
		})

		It("test_RevertWhen_FlashLoanNotRepaid", func(ctx SpecContext) {
			b := deploy(ctx, w.Deployer(), borrowerArt, lender)
			mustSend(ctx, w.Deployer(), usd, "transfer", b, e18(899))
			Expect(sendTo(ctx, w.Deployer(), borrowerArt, b, "borrow", e18(1_000_000), e18(899))).
				To(afrspec.RevertWith("FlashLoanNotRepaid", e18(10_000_899), e18(10_000_900)))
		})
	})

	Describe("the price feeds", func() {
		It("test_SpotFeed_ReadsAmmPrice", func(ctx SpecContext) {
			Expect(call(ctx, spot, "price")).To(equal(e18(1_000)))
		})

		It("test_SpotFeed_MovesWithOneSwap", func(ctx SpecContext) {
			mustSend(ctx, whale, coll, "approve", amm, e18(1_000))
			mustSend(ctx, whale, amm, "swap", coll, e18(1_000), big.NewInt(0))
			Expect(call(ctx, spot, "price")).To(afrspec.BeNumerically(">=", e18(250)))
			Expect(call(ctx, spot, "price")).To(afrspec.BeNumerically("<=", e18(251)))
		})

		It("test_TwapFeed_ReadsAmmPriceAfterWindow", func(ctx SpecContext) {
			Expect(call(ctx, twap, "price")).To(equal(e18(1_000)))
		})

		It("test_RevertWhen_TwapReadBeforeWindow", func(ctx SpecContext) {
			mustSend(ctx, w.Deployer(), twap, "update")
			Expect(send(ctx, w.Deployer(), twap, "price")).To(afrspec.RevertWith("WindowNotElapsed", 0, 3600))
		})
	})

	// PoolBase's behaviour, on the pool with the spot feed, whose price
	// follows a swap at once.
	Describe("lending", func() {
		It("test_Deposit_CreditsCollateral", func(ctx SpecContext) {
			res := send(ctx, alice, pool, "deposit", e18(10))
			Expect(res).To(afrspec.EmitEventFrom(pool, "Deposited", afrspec.Args{alice.Address, e18(10)}))
			Expect(call(ctx, pool, "collateralOf", alice.Address)).To(equal(e18(10)))
			Expect(balance(ctx, coll, pool)).To(equal(e18(10)))
		})

		It("test_Borrow_UpTo75PercentOfWorth", func(ctx SpecContext) {
			mustSend(ctx, alice, pool, "deposit", e18(10))
			mustSend(ctx, alice, pool, "borrow", e18(7_500))
			Expect(balance(ctx, usd, alice)).To(equal(e18(7_500)))
			Expect(call(ctx, pool, "debtOf", alice.Address)).To(equal(e18(7_500)))
		})

		It("test_RevertWhen_BorrowAboveLimit", func(ctx SpecContext) {
			mustSend(ctx, alice, pool, "deposit", e18(10))
			Expect(send(ctx, alice, pool, "borrow", e18(7_501))).To(afrspec.RevertWith("Undercollateralized", e18(7_501), e18(7_500)))
		})

		It("test_Repay_ReducesDebt", func(ctx SpecContext) {
			mustSend(ctx, alice, pool, "deposit", e18(10))
			mustSend(ctx, alice, pool, "borrow", e18(5_000))
			mustSend(ctx, alice, pool, "repay", e18(2_000))
			Expect(call(ctx, pool, "debtOf", alice.Address)).To(equal(e18(3_000)))
			Expect(balance(ctx, usd, alice)).To(equal(e18(3_000)))
		})

		It("test_RevertWhen_WithdrawLeavesDebtUncovered", func(ctx SpecContext) {
			mustSend(ctx, alice, pool, "deposit", e18(10))
			mustSend(ctx, alice, pool, "borrow", e18(7_500))
			Expect(send(ctx, alice, pool, "withdraw", e18(1))).To(afrspec.RevertWith("Undercollateralized", e18(7_500), e18(6_750)))
		})

		It("test_Liquidate_AfterPriceFalls", func(ctx SpecContext) {
			mustSend(ctx, alice, pool, "deposit", e18(10))
			mustSend(ctx, alice, pool, "borrow", e18(7_500))
			mustSend(ctx, whale, coll, "approve", amm, e18(1_000))
			mustSend(ctx, whale, amm, "swap", coll, e18(1_000), big.NewInt(0))
			mustSend(ctx, bob, usd, "approve", pool, e18(7_500))
			mustSend(ctx, bob, pool, "liquidate", alice.Address)
			Expect(balance(ctx, coll, bob)).To(equal(e18(10)))
			Expect(balance(ctx, usd, bob)).To(equal(e18(2_500)))
			Expect(call(ctx, pool, "debtOf", alice.Address)).To(equal(0))
		})

		It("test_RevertWhen_LiquidateHealthy", func(ctx SpecContext) {
			mustSend(ctx, alice, pool, "deposit", e18(10))
			mustSend(ctx, alice, pool, "borrow", e18(7_500))
			Expect(send(ctx, bob, pool, "liquidate", alice.Address)).To(afrspec.RevertWith("Healthy", alice.Address, e18(7_500), e18(8_500)))
		})
	})

	Describe("access control", func() {
		It("test_Sweep_ByOwner", func(ctx SpecContext) {
			Expect(w.Deal(ctx, admin, e18(1))).To(Succeed()) // the keyless admin pays its gas
			Expect(w.Prank(admin)).To(Succeed())
			mustSend(ctx, attacker, fixedPool, "sweep", admin, e18(1_000))
			Expect(balance(ctx, usd, admin)).To(equal(e18(1_000)))
		})

		It("test_RevertWhen_SweepByStranger", func(ctx SpecContext) {
			Expect(send(ctx, attacker, fixedPool, "sweep", attacker.Address, e18(1_000))).To(afrspec.RevertWith("NotOwner", attacker.Address))
		})

		It("test_LaxToken_TransferFromWithoutAllowanceReturnsFalse", func(ctx SpecContext) {
			Expect(callFrom(ctx, attacker.Address, coll, "transferFrom", alice.Address, attacker.Address, e18(1))).To(BeFalse())
			Expect(balance(ctx, coll, alice)).To(equal(e18(10)))
		})
	})

	// The attacks record what they sent as evidence and verify the log.
	Describe("the three attacks, and the fixes refusing them", func() {
		It("test_Attack_OracleManipulation_DrainsSpotPool", func(ctx SpecContext) {
			a := deploy(ctx, attacker, attackArt, lender, amm, pool)
			mustSend(ctx, attacker, coll, "approve", a, e18(10))
			res := sendTo(ctx, attacker, attackArt, a, "attack", e18(9_000_000), e18(10), e18(700_000))
			Expect(res.Succeeded()).To(BeTrue(), "%s", res)
			Expect(balance(ctx, usd, pool)).To(equal(e18(300_000)))
			Expect(balance(ctx, usd, attacker)).To(afrspec.BeNumerically(">=", e18(680_000)))
			Expect(call(ctx, pool, "debtOf", a)).To(equal(e18(700_000)))
			recordAndVerify(ctx, "attacker", res)
		})

		It("test_RevertWhen_OracleManipulation_AgainstTwapPool", func(ctx SpecContext) {
			a := deploy(ctx, attacker, attackArt, lender, amm, fixedPool)
			mustSend(ctx, attacker, coll, "approve", a, e18(10))
			res := sendTo(ctx, attacker, attackArt, a, "attack", e18(9_000_000), e18(10), e18(700_000))
			Expect(res).To(afrspec.RevertWith("Undercollateralized", e18(700_000), e18(7_500)))
			recordAndVerify(ctx, "attacker", res)
		})

		It("test_Attack_UncheckedTransferFrom_CreditsUnpaidCollateral", func(ctx SpecContext) {
			mustSend(ctx, attacker, coll, "approve", pool, e18(1_000))
			deposit := send(ctx, attacker, pool, "deposit", e18(1_000)) // the attacker holds 10
			borrow := send(ctx, attacker, pool, "borrow", e18(750_000))
			Expect(call(ctx, pool, "collateralOf", attacker.Address)).To(equal(e18(1_000)))
			Expect(balance(ctx, coll, pool)).To(equal(0))
			Expect(balance(ctx, usd, attacker)).To(equal(e18(750_000)))
			recordAndVerify(ctx, "attacker", deposit, borrow)
		})

		It("test_RevertWhen_UncheckedTransferFrom_AgainstFixedPool", func(ctx SpecContext) {
			mustSend(ctx, attacker, coll, "approve", fixedPool, e18(1_000))
			res := send(ctx, attacker, fixedPool, "deposit", e18(1_000))
			Expect(res).To(afrspec.RevertWith("SafeERC20FailedOperation", coll))
			recordAndVerify(ctx, "attacker", res)
		})

		It("test_Attack_Reinitialize_TakesOwnershipAndSweeps", func(ctx SpecContext) {
			take := send(ctx, attacker, pool, "initialize", attacker.Address, spot)
			sweep := send(ctx, attacker, pool, "sweep", attacker.Address, e18(1_000_000))
			Expect(call(ctx, pool, "owner")).To(Equal(attacker.Address))
			Expect(balance(ctx, usd, attacker)).To(equal(e18(1_000_000)))
			Expect(balance(ctx, usd, pool)).To(equal(0))
			recordAndVerify(ctx, "attacker", take, sweep)
		})

		It("test_RevertWhen_Reinitialize_AgainstFixedPool", func(ctx SpecContext) {
			res := send(ctx, attacker, fixedPool, "initialize", attacker.Address, spot)
			Expect(res).To(afrspec.RevertWith("InvalidInitialization"))
			recordAndVerify(ctx, "attacker", res)
		})
	})
})
