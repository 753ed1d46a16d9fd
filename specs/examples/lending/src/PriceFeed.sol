// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Amm} from "./Amm.sol";

/// @title IPriceFeed — the price of a pool's collateral in its borrowed asset, scaled by 1e18.
interface IPriceFeed {
    function price() external view returns (uint256);
}

/// @title SpotFeed — the AMM's spot price: one large swap moves it, inside the swapper's own
/// transaction (the oracle a flash loan manipulates).
contract SpotFeed is IPriceFeed {
    Amm public immutable amm;

    constructor(Amm amm_) {
        amm = amm_;
    }

    function price() external view returns (uint256) {
        return amm.spotPrice();
    }
}

/// @title TwapFeed — the AMM's price averaged over the time since the last update (at least
/// WINDOW seconds): a swap inside the reading transaction has held for no time, so it weighs
/// nothing.
contract TwapFeed is IPriceFeed {
    uint256 public constant WINDOW = 1 hours;
    Amm public immutable amm;
    uint256 public cumulativeAt;
    uint256 public updatedAt;

    error WindowNotElapsed(uint256 elapsed, uint256 window);

    event Updated(uint256 cumulative, uint256 timestamp);

    constructor(Amm amm_) {
        amm = amm_;
    }

    /// Starts a new averaging window.
    function update() external {
        cumulativeAt = amm.currentCumulative();
        updatedAt = block.timestamp;
        emit Updated(cumulativeAt, updatedAt);
    }

    function price() external view returns (uint256) {
        uint256 elapsed = block.timestamp - updatedAt;
        if (elapsed < WINDOW) revert WindowNotElapsed(elapsed, WINDOW);
        return (amm.currentCumulative() - cumulativeAt) / elapsed;
    }
}
