// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title Token — an OpenZeppelin ERC-20 whose whole supply goes to its deployer.
contract Token is ERC20 {
    constructor(string memory name_, string memory symbol_, uint256 supply) ERC20(name_, symbol_) {
        _mint(msg.sender, supply);
    }
}

/// @title LaxToken — an ERC-20 that answers a transfer it cannot make with `false` instead of
/// reverting, as some deployed tokens do (ERC-20 allows both): a caller that ignores the return
/// value believes it was paid.
contract LaxToken is Token {
    constructor(string memory name_, string memory symbol_, uint256 supply) Token(name_, symbol_, supply) {}

    function transfer(address to, uint256 value) public override returns (bool) {
        if (balanceOf(msg.sender) < value) return false;
        return super.transfer(to, value);
    }

    function transferFrom(address from, address to, uint256 value) public override returns (bool) {
        if (balanceOf(from) < value || allowance(from, msg.sender) < value) return false;
        return super.transferFrom(from, to, value);
    }
}
