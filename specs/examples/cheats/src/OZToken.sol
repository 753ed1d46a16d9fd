// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title OZToken — an OpenZeppelin ERC-20: balances in a mapping of their own (slot 0).
contract OZToken is ERC20 {
    constructor(uint256 supply) ERC20("OZ Token", "OZT") {
        _mint(msg.sender, supply);
    }
}
