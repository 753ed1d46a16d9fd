// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title IFlashBorrower — what a FlashLender calls with the loan in hand.
interface IFlashBorrower {
    function onFlashLoan(uint256 amount, uint256 fee, bytes calldata data) external;
}

/// @title FlashLender — lends its whole balance of one token for the length of a call, for a fee
/// of 9 basis points, and reverts unless it is paid back with the fee before the call returns.
contract FlashLender {
    using SafeERC20 for IERC20;

    uint256 public constant FEE_BPS = 9;
    IERC20 public immutable token;

    error FlashLoanNotRepaid(uint256 balance, uint256 required);

    event FlashLoan(address indexed receiver, uint256 amount, uint256 fee);

    constructor(IERC20 token_) {
        token = token_;
    }

    function fee(uint256 amount) public pure returns (uint256) {
        return amount * FEE_BPS / 10_000;
    }

    function flashLoan(IFlashBorrower receiver, uint256 amount, bytes calldata data) external {
        uint256 required = token.balanceOf(address(this)) + fee(amount);
        token.safeTransfer(address(receiver), amount);
        receiver.onFlashLoan(amount, fee(amount), data);
        uint256 balance = token.balanceOf(address(this));
        if (balance < required) revert FlashLoanNotRepaid(balance, required);
        emit FlashLoan(address(receiver), amount, fee(amount));
    }
}
