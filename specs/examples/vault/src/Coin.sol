// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Coin — the smallest ERC-20 balance book, for the cheatcode specs' DealToken.
contract Coin {
    mapping(address => uint256) public balanceOf;
    uint256 public totalSupply;

    error InsufficientBalance(address from, uint256 balance, uint256 amount);

    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor(uint256 supply) {
        balanceOf[msg.sender] = supply;
        totalSupply = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        uint256 balance = balanceOf[msg.sender];
        if (balance < amount) revert InsufficientBalance(msg.sender, balance, amount);
        balanceOf[msg.sender] = balance - amount;
        balanceOf[to] += amount;
        emit Transfer(msg.sender, to, amount);
        return true;
    }
}
