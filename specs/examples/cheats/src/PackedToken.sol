// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title PackedToken — an ERC-20 whose balances are not a mapping of their own: each account is a
/// struct whose balance (uint96) shares a slot with its delegate (address, the low 160 bits), and
/// the total supply (uint128) shares a slot with the creation time.
contract PackedToken {
    struct Account {
        address delegate;
        uint96 balance;
        uint256 nonce;
    }

    uint64 public created;
    uint128 public totalSupply;
    mapping(address => Account) private accounts;

    error InsufficientBalance(address from, uint256 balance, uint256 amount);

    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor(uint96 supply) {
        created = uint64(block.timestamp);
        totalSupply = supply;
        accounts[msg.sender] = Account({delegate: msg.sender, balance: supply, nonce: 0});
        emit Transfer(address(0), msg.sender, supply);
    }

    function balanceOf(address a) external view returns (uint256) {
        return accounts[a].balance;
    }

    function delegateOf(address a) external view returns (address) {
        return accounts[a].delegate;
    }

    function setDelegate(address d) external {
        accounts[msg.sender].delegate = d;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        Account storage from = accounts[msg.sender];
        if (from.balance < amount) revert InsufficientBalance(msg.sender, from.balance, amount);
        from.balance -= uint96(amount);
        accounts[to].balance += uint96(amount);
        emit Transfer(msg.sender, to, amount);
        return true;
    }
}
