// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {Test} from "afr-test/Test.sol";

/// @title StdInvariant
/// @notice forge's invariant targets without forge-std: forge reads targetContracts(),
/// targetSenders() and targetSelectors() from the test contract; targetContract, targetSender
/// and targetSelector fill them in setUp, as forge-std's StdInvariant does.
abstract contract StdInvariant is Test {
    /// @dev A target's callable methods (forge's FuzzSelector).
    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    address[] private targetedContracts;
    address[] private targetedSenders;
    FuzzSelector[] private targetedSelectors;

    function targetContract(address target) internal {
        targetedContracts.push(target);
    }

    function targetSender(address sender) internal {
        targetedSenders.push(sender);
    }

    function targetSelector(FuzzSelector memory selector) internal {
        targetedSelectors.push(selector);
    }

    function targetContracts() public view returns (address[] memory) {
        return targetedContracts;
    }

    function targetSenders() public view returns (address[] memory) {
        return targetedSenders;
    }

    function targetSelectors() public view returns (FuzzSelector[] memory) {
        return targetedSelectors;
    }
}
