// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Initializable} from "@openzeppelin/contracts/proxy/utils/Initializable.sol";
import {Test} from "afr-test/Test.sol";
import {Token, LaxToken} from "../src/Token.sol";
import {Amm} from "../src/Amm.sol";
import {FlashLender} from "../src/FlashLender.sol";
import {SpotFeed, TwapFeed} from "../src/PriceFeed.sol";
import {PoolBase, LendingPool, FixedLendingPool} from "../src/LendingPool.sol";
import {OracleAttack, Borrower} from "../src/Attacks.sol";

/// The lending example's tests. Each has an afrspec twin of the same name in lending_test.go,
/// with the same setup (setUp here, BeforeSuite there) and the same assertions.
contract LendingTest is Test {
    address constant admin = address(0xAD111); // the pools' owner: no key
    address constant alice = address(0xA11CE);
    address constant bob = address(0xB0B);
    address constant whale = address(0x3A1E);
    address constant attacker = address(0xBAD);

    LaxToken coll;
    Token usd;
    Amm amm;
    FlashLender lender;
    SpotFeed spot;
    TwapFeed twap;
    LendingPool pool;
    FixedLendingPool fixedPool;

    function setUp() public {
        coll = new LaxToken("Collateral", "COL", 1_000_000e18);
        usd = new Token("Dollar", "USD", 100_000_000e18);
        amm = new Amm(coll, usd);
        coll.approve(address(amm), 1_000e18);
        usd.approve(address(amm), 1_000_000e18);
        amm.addLiquidity(1_000e18, 1_000_000e18);
        lender = new FlashLender(usd);
        usd.transfer(address(lender), 10_000_000e18);
        spot = new SpotFeed(amm);
        twap = new TwapFeed(amm);
        twap.update();
        pool = new LendingPool(coll, usd);
        pool.initialize(admin, spot);
        usd.transfer(address(pool), 1_000_000e18);
        fixedPool = new FixedLendingPool(coll, usd);
        fixedPool.initialize(admin, twap);
        usd.transfer(address(fixedPool), 1_000_000e18);
        coll.transfer(alice, 10e18);
        coll.transfer(attacker, 10e18);
        coll.transfer(whale, 1_000e18);
        usd.transfer(bob, 10_000e18);
        vm.startPrank(alice);
        coll.approve(address(pool), type(uint256).max);
        coll.approve(address(fixedPool), type(uint256).max);
        usd.approve(address(pool), type(uint256).max);
        vm.stopPrank();
        vm.warp(block.timestamp + 1 hours); // the TWAP's window
    }

    // ---- the AMM ----

    function test_Swap_PaysConstantProductLessFee() public {
        uint256 want = uint256(1_000e18) * 997 * 1_000e18 / (1_000_000e18 * 1000 + 1_000e18 * 997);
        vm.startPrank(bob);
        usd.approve(address(amm), 1_000e18);
        amm.swap(usd, 1_000e18, 0);
        vm.assertEq(coll.balanceOf(bob), want, "bob's collateral");
        vm.assertEq(usd.balanceOf(bob), 9_000e18, "bob's dollars");
        vm.assertEq(amm.reserveQuote(), 1_001_000e18, "quote reserve");
        vm.assertEq(amm.reserveBase(), 1_000e18 - want, "base reserve");
    }

    function test_RevertWhen_SwapBelowMinOut() public {
        uint256 out = amm.amountOut(1_000e18, 1_000_000e18, 1_000e18);
        vm.startPrank(bob);
        usd.approve(address(amm), 1_000e18);
        vm.expectRevert(abi.encodeWithSelector(Amm.Slippage.selector, out, 1e18));
        amm.swap(usd, 1_000e18, 1e18);
    }

    function test_RevertWhen_SwapUnknownToken() public {
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(Amm.UnknownToken.selector, address(pool)));
        amm.swap(IERC20(address(pool)), 1e18, 0);
    }

    // ---- the flash lender ----

    function test_FlashLoan_ChargesFee() public {
        Borrower b = new Borrower(lender);
        usd.transfer(address(b), 900e18);
        b.borrow(1_000_000e18, 900e18);
        vm.assertEq(usd.balanceOf(address(lender)), 10_000_900e18, "lender's balance");
        vm.assertEq(usd.balanceOf(address(b)), 0, "borrower's balance");
    }

    function test_RevertWhen_FlashLoanNotRepaid() public {
        Borrower b = new Borrower(lender);
        usd.transfer(address(b), 899e18);
        vm.expectRevert(abi.encodeWithSelector(FlashLender.FlashLoanNotRepaid.selector, 10_000_899e18, 10_000_900e18));
        b.borrow(1_000_000e18, 899e18);
    }

    // ---- the price feeds ----

    function test_SpotFeed_ReadsAmmPrice() public view {
        vm.assertEq(spot.price(), 1_000e18, "spot price");
    }

    function test_SpotFeed_MovesWithOneSwap() public {
        vm.startPrank(whale);
        coll.approve(address(amm), 1_000e18);
        amm.swap(coll, 1_000e18, 0);
        vm.assertGe(spot.price(), 250e18, "spot price after the dump");
        vm.assertLe(spot.price(), 251e18, "spot price after the dump");
    }

    function test_TwapFeed_ReadsAmmPriceAfterWindow() public view {
        vm.assertEq(twap.price(), 1_000e18, "TWAP");
    }

    function test_RevertWhen_TwapReadBeforeWindow() public {
        twap.update();
        vm.expectRevert(abi.encodeWithSelector(TwapFeed.WindowNotElapsed.selector, 0, 1 hours));
        twap.price();
    }

    // ---- lending (PoolBase, on the pool with the spot feed, whose price follows a swap at once) ----

    function test_Deposit_CreditsCollateral() public {
        vm.expectEmit(address(pool));
        emit PoolBase.Deposited(alice, 10e18);
        vm.prank(alice);
        pool.deposit(10e18);
        vm.assertEq(pool.collateralOf(alice), 10e18, "collateral credited");
        vm.assertEq(coll.balanceOf(address(pool)), 10e18, "collateral held");
    }

    function test_Borrow_UpTo75PercentOfWorth() public {
        vm.startPrank(alice);
        pool.deposit(10e18);
        pool.borrow(7_500e18);
        vm.assertEq(usd.balanceOf(alice), 7_500e18, "borrowed");
        vm.assertEq(pool.debtOf(alice), 7_500e18, "debt");
    }

    function test_RevertWhen_BorrowAboveLimit() public {
        vm.startPrank(alice);
        pool.deposit(10e18);
        vm.expectRevert(abi.encodeWithSelector(PoolBase.Undercollateralized.selector, 7_501e18, 7_500e18));
        pool.borrow(7_501e18);
    }

    function test_Repay_ReducesDebt() public {
        vm.startPrank(alice);
        pool.deposit(10e18);
        pool.borrow(5_000e18);
        pool.repay(2_000e18);
        vm.assertEq(pool.debtOf(alice), 3_000e18, "debt");
        vm.assertEq(usd.balanceOf(alice), 3_000e18, "dollars left");
    }

    function test_RevertWhen_WithdrawLeavesDebtUncovered() public {
        vm.startPrank(alice);
        pool.deposit(10e18);
        pool.borrow(7_500e18);
        vm.expectRevert(abi.encodeWithSelector(PoolBase.Undercollateralized.selector, 7_500e18, 6_750e18));
        pool.withdraw(1e18);
    }

    function test_Liquidate_AfterPriceFalls() public {
        vm.startPrank(alice);
        pool.deposit(10e18);
        pool.borrow(7_500e18);
        vm.startPrank(whale);
        coll.approve(address(amm), 1_000e18);
        amm.swap(coll, 1_000e18, 0);
        vm.startPrank(bob);
        usd.approve(address(pool), 7_500e18);
        pool.liquidate(alice);
        vm.assertEq(coll.balanceOf(bob), 10e18, "collateral seized");
        vm.assertEq(usd.balanceOf(bob), 2_500e18, "debt repaid");
        vm.assertEq(pool.debtOf(alice), 0, "debt cleared");
    }

    function test_RevertWhen_LiquidateHealthy() public {
        vm.startPrank(alice);
        pool.deposit(10e18);
        pool.borrow(7_500e18);
        vm.startPrank(bob);
        vm.expectRevert(abi.encodeWithSelector(PoolBase.Healthy.selector, alice, 7_500e18, 8_500e18));
        pool.liquidate(alice);
    }

    // ---- access control ----

    function test_Sweep_ByOwner() public {
        vm.prank(admin);
        fixedPool.sweep(admin, 1_000e18);
        vm.assertEq(usd.balanceOf(admin), 1_000e18, "swept");
    }

    function test_RevertWhen_SweepByStranger() public {
        vm.prank(attacker);
        vm.expectRevert(abi.encodeWithSelector(PoolBase.NotOwner.selector, attacker));
        fixedPool.sweep(attacker, 1_000e18);
    }

    function test_LaxToken_TransferFromWithoutAllowanceReturnsFalse() public {
        vm.prank(attacker);
        vm.assertFalse(coll.transferFrom(alice, attacker, 1e18), "transferFrom's answer");
        vm.assertEq(coll.balanceOf(alice), 10e18, "alice's collateral");
    }

    // ---- the three attacks, and the fixes refusing them ----

    function test_Attack_OracleManipulation_DrainsSpotPool() public {
        vm.startPrank(attacker);
        OracleAttack a = new OracleAttack(lender, amm, pool);
        coll.approve(address(a), 10e18);
        a.attack(9_000_000e18, 10e18, 700_000e18);
        vm.assertEq(usd.balanceOf(address(pool)), 300_000e18, "pool's dollars left");
        vm.assertGe(usd.balanceOf(attacker), 680_000e18, "attacker's profit");
        vm.assertEq(pool.debtOf(address(a)), 700_000e18, "debt never repaid");
    }

    function test_RevertWhen_OracleManipulation_AgainstTwapPool() public {
        vm.startPrank(attacker);
        OracleAttack a = new OracleAttack(lender, amm, fixedPool);
        coll.approve(address(a), 10e18);
        vm.expectRevert(abi.encodeWithSelector(PoolBase.Undercollateralized.selector, 700_000e18, 7_500e18));
        a.attack(9_000_000e18, 10e18, 700_000e18);
    }

    function test_Attack_UncheckedTransferFrom_CreditsUnpaidCollateral() public {
        vm.startPrank(attacker);
        coll.approve(address(pool), 1_000e18);
        pool.deposit(1_000e18); // the attacker holds 10
        pool.borrow(750_000e18);
        vm.assertEq(pool.collateralOf(attacker), 1_000e18, "collateral credited");
        vm.assertEq(coll.balanceOf(address(pool)), 0, "collateral held");
        vm.assertEq(usd.balanceOf(attacker), 750_000e18, "borrowed");
    }

    function test_RevertWhen_UncheckedTransferFrom_AgainstFixedPool() public {
        vm.startPrank(attacker);
        coll.approve(address(fixedPool), 1_000e18);
        vm.expectRevert(abi.encodeWithSelector(SafeERC20.SafeERC20FailedOperation.selector, address(coll)));
        fixedPool.deposit(1_000e18);
    }

    function test_Attack_Reinitialize_TakesOwnershipAndSweeps() public {
        vm.startPrank(attacker);
        pool.initialize(attacker, spot);
        pool.sweep(attacker, 1_000_000e18);
        vm.assertEq(pool.owner(), attacker, "owner");
        vm.assertEq(usd.balanceOf(attacker), 1_000_000e18, "swept");
        vm.assertEq(usd.balanceOf(address(pool)), 0, "pool's dollars left");
    }

    function test_RevertWhen_Reinitialize_AgainstFixedPool() public {
        vm.prank(attacker);
        vm.expectRevert(Initializable.InvalidInitialization.selector);
        fixedPool.initialize(attacker, spot);
    }
}
