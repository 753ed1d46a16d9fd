// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// @title Treasury
/// @notice Pattern 5, access control: a treasury whose owner sets the fee and the payee the
/// fees go to. The planted bug: setPayee has no onlyOwner, so anyone redirects the fees.
contract Treasury {
    address public immutable owner;
    address public payee;
    uint16 public feeBps;

    constructor(address payee_) {
        owner = msg.sender;
        payee = payee_;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "Treasury: not the owner");
        _;
    }

    function setFee(uint16 bps) external onlyOwner {
        feeBps = bps;
    }

    /// @dev The planted bug: the modifier is missing.
    function setPayee(address payee_) external virtual {
        payee = payee_;
    }
}

/// @title FixedTreasury
/// @notice Treasury whose setPayee is the owner's only.
contract FixedTreasury is Treasury {
    constructor(address payee_) Treasury(payee_) {}

    function setPayee(address payee_) external override onlyOwner {
        payee = payee_;
    }
}
