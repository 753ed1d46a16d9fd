// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title Amm — a constant-product market (x·y = k, 0.3% fee) between a base and a quote token,
/// with the cumulative price a time-weighted oracle reads (Uniswap v2's design, without shares).
contract Amm {
    using SafeERC20 for IERC20;

    IERC20 public immutable base;
    IERC20 public immutable quote;
    uint256 public reserveBase;
    uint256 public reserveQuote;
    /// Σ spot price × seconds it held, the price in quote per base scaled by 1e18.
    uint256 public priceCumulative;
    uint256 public lastUpdate;

    error Slippage(uint256 amountOut, uint256 minOut);
    error UnknownToken(address token);

    event LiquidityAdded(address indexed by, uint256 baseAmount, uint256 quoteAmount);
    event Swapped(address indexed by, address indexed tokenIn, uint256 amountIn, uint256 amountOut);

    constructor(IERC20 base_, IERC20 quote_) {
        base = base_;
        quote = quote_;
        lastUpdate = block.timestamp;
    }

    /// The spot price: quote per base, scaled by 1e18.
    function spotPrice() public view returns (uint256) {
        return reserveQuote * 1e18 / reserveBase;
    }

    /// priceCumulative as of now, including the time since the last update.
    function currentCumulative() external view returns (uint256) {
        return priceCumulative + spotPrice() * (block.timestamp - lastUpdate);
    }

    /// What a swap of amountIn gives out of a pool with reserves rIn and rOut.
    function amountOut(uint256 amountIn, uint256 rIn, uint256 rOut) public pure returns (uint256) {
        return amountIn * 997 * rOut / (rIn * 1000 + amountIn * 997);
    }

    function addLiquidity(uint256 baseAmount, uint256 quoteAmount) external {
        _accumulate();
        base.safeTransferFrom(msg.sender, address(this), baseAmount);
        quote.safeTransferFrom(msg.sender, address(this), quoteAmount);
        reserveBase += baseAmount;
        reserveQuote += quoteAmount;
        emit LiquidityAdded(msg.sender, baseAmount, quoteAmount);
    }

    /// Swaps amountIn of tokenIn (base or quote) for the other, reverting with Slippage when
    /// it would give less than minOut.
    function swap(IERC20 tokenIn, uint256 amountIn, uint256 minOut) external returns (uint256 out) {
        _accumulate();
        bool baseIn = address(tokenIn) == address(base);
        if (!baseIn && address(tokenIn) != address(quote)) revert UnknownToken(address(tokenIn));
        (uint256 rIn, uint256 rOut) = baseIn ? (reserveBase, reserveQuote) : (reserveQuote, reserveBase);
        out = amountOut(amountIn, rIn, rOut);
        if (out < minOut) revert Slippage(out, minOut);
        tokenIn.safeTransferFrom(msg.sender, address(this), amountIn);
        (baseIn ? quote : base).safeTransfer(msg.sender, out);
        if (baseIn) (reserveBase, reserveQuote) = (rIn + amountIn, rOut - out);
        else (reserveQuote, reserveBase) = (rIn + amountIn, rOut - out);
        emit Swapped(msg.sender, address(tokenIn), amountIn, out);
    }

    function _accumulate() private {
        if (reserveBase != 0) priceCumulative += spotPrice() * (block.timestamp - lastUpdate);
        lastUpdate = block.timestamp;
    }
}
