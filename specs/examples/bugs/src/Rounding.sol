// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// @title Vault
/// @notice Pattern 4, rounding: a vault of shares over an asset (a ledger in the contract, to
/// stay small) that has earned yield: 3 assets for every 2 shares. Rounding must favour the
/// vault, so the assets per share never fall below that. RoundDownVault (the planted bug)
/// rounds the shares a withdrawal burns down, in the user's favour: a withdrawal of 1 wei burns
/// no share. RoundUpVault rounds them up.
abstract contract Vault {
    uint256 public totalAssets = 3e18;
    uint256 public totalShares = 2e18;
    mapping(address => uint256) public sharesOf;
    mapping(address => uint256) public cashOf;

    /// @dev depositor starts with 1000 assets to deposit.
    constructor(address depositor) {
        cashOf[depositor] = 1_000e18;
    }

    /// @dev Mints the shares assets buy, rounded down (the vault's favour).
    function deposit(uint256 assets) external {
        cashOf[msg.sender] -= assets;
        uint256 shares = assets * totalShares / totalAssets;
        sharesOf[msg.sender] += shares;
        totalShares += shares;
        totalAssets += assets;
    }

    /// @dev Burns the shares assets are worth (sharesFor) and pays assets.
    function withdraw(uint256 assets) external {
        uint256 shares = sharesFor(assets);
        sharesOf[msg.sender] -= shares;
        totalShares -= shares;
        totalAssets -= assets;
        cashOf[msg.sender] += assets;
    }

    /// @dev The most assets holder's shares pay for.
    function maxWithdraw(address holder) public view returns (uint256) {
        return sharesOf[holder] * totalAssets / totalShares;
    }

    function sharesFor(uint256 assets) internal view virtual returns (uint256);
}

/// @title RoundDownVault
/// @notice The planted bug: withdraw's shares are rounded down.
contract RoundDownVault is Vault {
    constructor(address depositor) Vault(depositor) {}

    function sharesFor(uint256 assets) internal view override returns (uint256) {
        return assets * totalShares / totalAssets;
    }
}

/// @title RoundUpVault
/// @notice withdraw's shares are rounded up.
contract RoundUpVault is Vault {
    constructor(address depositor) Vault(depositor) {}

    function sharesFor(uint256 assets) internal view override returns (uint256) {
        return (assets * totalShares + totalAssets - 1) / totalAssets;
    }
}

/// @title Depositor
/// @notice The campaign's handler for a Vault: its depositor (it deploys the vault, rounding
/// down or up), with each amount brought into what it holds.
contract Depositor {
    Vault public immutable vault;

    constructor(bool roundUp) {
        vault = roundUp ? Vault(new RoundUpVault(address(this))) : Vault(new RoundDownVault(address(this)));
    }

    function deposit(uint256 assets) external {
        vault.deposit(assets % (vault.cashOf(address(this)) + 1));
    }

    function withdraw(uint256 assets) external {
        vault.withdraw(assets % (vault.maxWithdraw(address(this)) + 1));
    }
}
