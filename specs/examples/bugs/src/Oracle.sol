// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// @title Market
/// @notice Pattern 3, oracle manipulation: a constant-product market of COL and USD (kept as
/// ledgers in the contract, not tokens, to stay small) with a loan desk that lends USD against
/// COL at half its price. At the start one COL is worth FAIR_PRICE USD; a loan is sound when its
/// debt is at most half its collateral's worth at that price. SpotMarket (the planted bug)
/// prices COL from the reserves, which a single swap moves; DelayedMarket uses a price that a
/// swap cannot move within the hour.
abstract contract Market {
    uint256 public constant FAIR_PRICE = 1000; // USD per COL at the start

    uint256 public reserveCol = 1_000e18;
    uint256 public reserveUsd = 1_000_000e18;
    mapping(address => uint256) public colOf;
    mapping(address => uint256) public usdOf;
    mapping(address => uint256) public collateral;
    mapping(address => uint256) public debt;

    /// @dev trader starts with 100 COL and a million USD.
    constructor(address trader) {
        colOf[trader] = 100e18;
        usdOf[trader] = 1_000_000e18;
    }

    function swapUsdForCol(uint256 usdIn) external returns (uint256 out) {
        usdOf[msg.sender] -= usdIn;
        out = reserveCol * usdIn / (reserveUsd + usdIn);
        reserveUsd += usdIn;
        reserveCol -= out;
        colOf[msg.sender] += out;
    }

    function swapColForUsd(uint256 colIn) external returns (uint256 out) {
        colOf[msg.sender] -= colIn;
        out = reserveUsd * colIn / (reserveCol + colIn);
        reserveCol += colIn;
        reserveUsd -= out;
        usdOf[msg.sender] += out;
    }

    /// @dev Posts colAmount as collateral and lends half its price() in USD.
    function borrow(uint256 colAmount) external {
        colOf[msg.sender] -= colAmount;
        collateral[msg.sender] += colAmount;
        uint256 loan = colAmount * price() / 2e18;
        debt[msg.sender] += loan;
        usdOf[msg.sender] += loan;
    }

    /// @dev The reserves' price of one COL in USD, 18 decimals.
    function spotPrice() public view returns (uint256) {
        return reserveUsd * 1e18 / reserveCol;
    }

    /// @dev The loan desk's price of one COL in USD, 18 decimals.
    function price() public view virtual returns (uint256);
}

/// @title SpotMarket
/// @notice The planted bug: the loan desk's price is the spot price.
contract SpotMarket is Market {
    constructor(address trader) Market(trader) {}

    function price() public view override returns (uint256) {
        return spotPrice();
    }
}

/// @title DelayedMarket
/// @notice The loan desk's price is the spot price as recorded at most once an hour.
contract DelayedMarket is Market {
    uint256 public lastPrice;
    uint256 public updatedAt;

    constructor(address trader) Market(trader) {
        lastPrice = spotPrice();
        updatedAt = block.timestamp;
    }

    function update() external {
        require(block.timestamp >= updatedAt + 1 hours, "DelayedMarket: updated within the hour");
        lastPrice = spotPrice();
        updatedAt = block.timestamp;
    }

    function price() public view override returns (uint256) {
        return lastPrice;
    }
}

/// @title Trader
/// @notice The campaign's handler for a Market: the market's trader (it deploys the market,
/// spot-priced or delayed), with each amount brought into what it holds.
contract Trader {
    Market public immutable market;

    constructor(bool delayed) {
        market = delayed ? Market(new DelayedMarket(address(this))) : Market(new SpotMarket(address(this)));
    }

    function buy(uint256 usdIn) external {
        market.swapUsdForCol(usdIn % (market.usdOf(address(this)) + 1));
    }

    function sell(uint256 colIn) external {
        market.swapColForUsd(colIn % (market.colOf(address(this)) + 1));
    }

    function borrow(uint256 colAmount) external {
        market.borrow(colAmount % (market.colOf(address(this)) + 1));
    }
}
