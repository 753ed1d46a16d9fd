// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Initializable} from "@openzeppelin/contracts/proxy/utils/Initializable.sol";
import {IPriceFeed} from "./PriceFeed.sol";

/// @title PoolBase — a lending pool: deposit collateral, borrow the asset up to 75% of the
/// collateral's worth at the feed's price, repay; anyone may liquidate a position whose debt
/// passes 85% of that worth, repaying it and taking all its collateral. Its owner may sweep
/// the asset. How collateral is pulled in and how the pool is initialized are left to the two
/// pools below.
abstract contract PoolBase {
    using SafeERC20 for IERC20;

    uint256 public constant LTV_BPS = 7_500;
    uint256 public constant LIQUIDATION_BPS = 8_500;

    IERC20 public immutable collateral;
    IERC20 public immutable asset;
    address public owner;
    IPriceFeed public feed;
    mapping(address => uint256) public collateralOf;
    mapping(address => uint256) public debtOf;

    error NotOwner(address caller);
    error Undercollateralized(uint256 debt, uint256 limit);
    error Healthy(address user, uint256 debt, uint256 threshold);

    event Initialized(address indexed owner, address feed);
    event Deposited(address indexed user, uint256 amount);
    event Withdrawn(address indexed user, uint256 amount);
    event Borrowed(address indexed user, uint256 amount);
    event Repaid(address indexed user, uint256 amount);
    event Liquidated(address indexed user, address indexed by, uint256 debt, uint256 collateral);
    event Swept(address indexed to, uint256 amount);

    constructor(IERC20 collateral_, IERC20 asset_) {
        collateral = collateral_;
        asset = asset_;
    }

    /// The collateral's worth, in the asset, times bps / 10,000.
    function worth(address user, uint256 bps) public view returns (uint256) {
        return collateralOf[user] * feed.price() / 1e18 * bps / 10_000;
    }

    function deposit(uint256 amount) external {
        _pullCollateral(amount);
        collateralOf[msg.sender] += amount;
        emit Deposited(msg.sender, amount);
    }

    function withdraw(uint256 amount) external {
        collateralOf[msg.sender] -= amount;
        _requireHealthy(msg.sender);
        collateral.safeTransfer(msg.sender, amount);
        emit Withdrawn(msg.sender, amount);
    }

    function borrow(uint256 amount) external {
        debtOf[msg.sender] += amount;
        _requireHealthy(msg.sender);
        asset.safeTransfer(msg.sender, amount);
        emit Borrowed(msg.sender, amount);
    }

    function repay(uint256 amount) external {
        asset.safeTransferFrom(msg.sender, address(this), amount);
        debtOf[msg.sender] -= amount;
        emit Repaid(msg.sender, amount);
    }

    function liquidate(address user) external {
        uint256 debt = debtOf[user];
        uint256 threshold = worth(user, LIQUIDATION_BPS);
        if (debt <= threshold) revert Healthy(user, debt, threshold);
        uint256 seized = collateralOf[user];
        asset.safeTransferFrom(msg.sender, address(this), debt);
        (debtOf[user], collateralOf[user]) = (0, 0);
        collateral.safeTransfer(msg.sender, seized);
        emit Liquidated(user, msg.sender, debt, seized);
    }

    function sweep(address to, uint256 amount) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        asset.safeTransfer(to, amount);
        emit Swept(to, amount);
    }

    function _requireHealthy(address user) private view {
        uint256 limit = worth(user, LTV_BPS);
        if (debtOf[user] > limit) revert Undercollateralized(debtOf[user], limit);
    }

    function _setUp(address owner_, IPriceFeed feed_) internal {
        (owner, feed) = (owner_, feed_);
        emit Initialized(owner_, address(feed_));
    }

    function _pullCollateral(uint256 amount) internal virtual;
}

/// @title LendingPool — the pool with two bugs of its own: initialize can be called again by
/// anyone (who then owns the pool and sweeps it), and deposit ignores transferFrom's return
/// value (a token that answers false credits collateral never paid). Deployed with a SpotFeed,
/// it has the third: its price is one a flash loan moves.
contract LendingPool is PoolBase {
    constructor(IERC20 collateral_, IERC20 asset_) PoolBase(collateral_, asset_) {}

    function initialize(address owner_, IPriceFeed feed_) external {
        _setUp(owner_, feed_);
    }

    function _pullCollateral(uint256 amount) internal override {
        collateral.transferFrom(msg.sender, address(this), amount);
    }
}

/// @title FixedLendingPool — the same pool fixed: initialize runs once (OpenZeppelin's
/// Initializable: InvalidInitialization after), collateral is pulled with SafeERC20
/// (SafeERC20FailedOperation when the token answers false), and it is deployed with a TwapFeed.
contract FixedLendingPool is PoolBase, Initializable {
    using SafeERC20 for IERC20;

    constructor(IERC20 collateral_, IERC20 asset_) PoolBase(collateral_, asset_) {}

    function initialize(address owner_, IPriceFeed feed_) external initializer {
        _setUp(owner_, feed_);
    }

    function _pullCollateral(uint256 amount) internal override {
        collateral.safeTransferFrom(msg.sender, address(this), amount);
    }
}
