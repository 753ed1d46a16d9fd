// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// @dev A target whose fallback takes any calldata and records it, standing in both for a
/// contract with a function whose selector is 0x00000000 (Seaport's
/// `fulfillBasicOrder_efficient_6GL6yc`) and for a fallback that acts on 1–3 bytes.
contract Recorder {
    uint256 public calls;
    uint256 public received;
    bytes public lastData;

    receive() external payable {
        calls++;
        received += msg.value;
        delete lastData;
    }

    fallback() external payable {
        calls++;
        received += msg.value;
        lastData = msg.data;
    }
}
