// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {Test} from "./utils/Test.sol";
import {Counter, Hungry} from "./utils/Targets.sol";
import {PaceHandler} from "./utils/PaceHandler.sol";
import {PaceSmartAccount} from "../src/PaceSmartAccount.sol";

interface StdInvariant {
    function targetContract(address) external;
}

/// @dev Invariants of PaceSmartAccount (issue 12) under {PaceHandler}'s random sequences of
/// valid PDRs, replays, mutated PDRs, starved calls, delegated calls within and over caps,
/// PDRs carrying the other nonce space's nonce and failing targets.
contract PaceInvariantsTest is Test {
    uint256 internal constant START_BALANCE = 100 ether;

    PaceSmartAccount internal account;
    PaceHandler internal handler;
    address[] internal targets;

    function setUp() public {
        vm.warp(1_700_000_000);
        address[] memory approvers = new address[](1);
        approvers[0] = vm.addr(0xC001);
        account = new PaceSmartAccount(vm.addr(0xA11CE), vm.addr(0xB0B), approvers, 1);
        handler = new PaceHandler(account, new Counter(), new Hungry());
        vm.deal(address(account), START_BALANCE);
        targets.push(address(handler));
    }

    /// @dev forge's invariant runner calls only the handler.
    function targetContracts() public view returns (address[] memory) {
        return targets;
    }

    /// @dev A PDR is used at most once: no replay and no PDR altered after signing executes,
    /// and every consumed nonce is one the handler saw consumed.
    function invariant_PDRUsedAtMostOnce() public view {
        vm.assertEq(handler.replaysAccepted(), 0, "a replayed PDR executed");
        vm.assertEq(handler.mutantsAccepted(), 0, "a mutated PDR executed");
        vm.assertEq(account.nonce(), handler.consumed(), "policy nonce count");
        vm.assertEq(account.delegatedNonce(), handler.delegatedConsumed(), "delegated nonce count");
    }

    /// @dev Two nonce spaces (finding 7): an execution moves only its own space's nonce, and a
    /// PDR carrying the other space's nonce never executes.
    function invariant_NonceSpacesAreSeparate() public view {
        vm.assertEq(handler.otherSpaceMoved(), 0, "an execution moved the other space's nonce");
    }

    /// @dev No value leaves without an allow decision or a delegation within its caps.
    function invariant_NoValueWithoutAuthorization() public view {
        vm.assertEq(START_BALANCE - address(account).balance, handler.authorizedOut(), "value out");
        vm.assertEq(handler.overCapAccepted(), 0, "a delegated call over a cap or out of scope executed");
        vm.assertLe(account.spent(handler.linkHash()), handler.TOTAL_CAP(), "spent within the total cap");
        vm.assertLe(handler.delegatedOut(), account.spent(handler.linkHash()), "delegated value charged");
    }

    /// @dev A failed call never consumes a nonce unless the target itself failed.
    function invariant_FailedCallConsumesNonceOnlyWhenTargetFailed() public view {
        vm.assertEq(handler.noncesBurnt(), 0, "a starved call consumed its nonce");
        vm.assertEq(handler.nonceMovedOnRevert(), 0, "a reverted submission moved the nonce");
    }
}
