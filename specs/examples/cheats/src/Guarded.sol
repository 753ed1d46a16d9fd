// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Guarded — state only its admin may change, and what a transaction saw of its block.
contract Guarded {
    address public admin;
    uint256 public value;
    uint256 public seenTime;
    uint256 public seenBlock;

    error NotAdmin(address caller);

    event ValueSet(address indexed by, uint256 value);

    constructor(address admin_) {
        admin = admin_;
    }

    function set(uint256 v) external {
        if (msg.sender != admin) revert NotAdmin(msg.sender);
        value = v;
        emit ValueSet(msg.sender, v);
    }

    /// Records the block's time and number.
    function see() external {
        seenTime = block.timestamp;
        seenBlock = block.number;
    }

    function time() external view returns (uint256) {
        return block.timestamp;
    }

    function number() external view returns (uint256) {
        return block.number;
    }
}

/// @title Answer — code to etch: answers 42 to everything.
contract Answer {
    fallback(bytes calldata) external returns (bytes memory) {
        return abi.encode(uint256(42));
    }
}
