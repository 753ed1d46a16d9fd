// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title Store: a small contract the evm package tests and benchmarks run against.
/// @notice Regenerate evm/testdata/contracts.json with `go generate ./evm`.
contract Store {
    /// @notice Thrown by fail() with the caller and the code it passed.
    error Denied(address who, uint256 code);

    /// @notice Emitted by every write to a slot.
    event Set(uint256 indexed key, uint256 value);

    uint256 public counter;                 // slot 0
    address public owner;                   // slot 1
    mapping(uint256 => uint256) public data; // slot 2

    constructor() payable {
        owner = msg.sender;
    }

    receive() external payable {}

    function set(uint256 key, uint256 value) external {
        data[key] = value;
        counter += 1;
        emit Set(key, value);
    }

    /// @notice Writes data[i] = i + seed for i in [0, n).
    function fill(uint256 n, uint256 seed) external {
        for (uint256 i = 0; i < n; i++) {
            data[i] = i + seed;
        }
        counter += n;
    }

    /// @notice Reads data[0..n) and returns their sum (touches n storage slots).
    function sum(uint256 n) external view returns (uint256 s) {
        for (uint256 i = 0; i < n; i++) {
            s += data[i];
        }
    }

    function get(uint256 key) external view returns (uint256) {
        return data[key];
    }

    function fail(uint256 code) external view {
        if (code == 0) {
            revert("store: code is zero");
        }
        if (code == 1) {
            uint256 z = code - 1;
            code = code / z; // Panic(0x12)
        }
        revert Denied(msg.sender, code);
    }

    function env() external view returns (uint256 number, uint256 time, uint256 basefee, address coinbase, uint256 chainid, uint256 prevrandao) {
        return (block.number, block.timestamp, block.basefee, block.coinbase, block.chainid, block.prevrandao);
    }

    function balanceOf(address a) external view returns (uint256) {
        return a.balance;
    }
}

/// @title Caller: calls a Store so that traces have a nested call tree.
contract Caller {
    event Forwarded(address indexed store, uint256 key, uint256 value);

    function forward(Store store, uint256 key, uint256 value) external returns (uint256) {
        store.set(key, value);
        emit Forwarded(address(store), key, value);
        return store.get(key);
    }

    function tryFail(Store store, uint256 code) external view returns (bool ok) {
        try store.fail(code) {
            return true;
        } catch {
            return false;
        }
    }
}
