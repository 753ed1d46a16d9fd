// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {Test} from "./utils/Test.sol";
import {IPaceSmartAccount} from "../src/IPaceSmartAccount.sol";
import {PaceSmartAccount} from "../src/PaceSmartAccount.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";

/// @dev Exposes PaceSmartAccount's internal constants to the tests. A test-only subclass, so the
/// deployed account's code (and the gas of its hot path) is unchanged.
contract PaceConstantsHarness is PaceSmartAccount {
    constructor(address owner_, address policySigner_) PaceSmartAccount(owner_, policySigner_, new address[](0), 0) {}

    function pdrTypehashLiteral() external pure returns (bytes32) {
        return _PDR_TYPEHASH_LITERAL;
    }

    function executedTopic() external pure returns (bytes32) {
        return _EXECUTED_TOPIC;
    }

    function tooFewApprovalsSelector() external pure returns (uint256) {
        return _TOO_FEW_APPROVALS_SELECTOR;
    }

    function gasReserve() external pure returns (uint256) {
        return _GAS_RESERVE;
    }

    function starvedFraction() external pure returns (uint256) {
        return _STARVED_FRACTION;
    }

    function lockBit() external pure returns (uint256) {
        return _LOCK_BIT;
    }

    function lock() external pure returns (uint256) {
        return _LOCK;
    }

    function erc1271Magic() external pure returns (bytes4) {
        return _ERC1271_MAGIC;
    }
}

/// @dev The literals that PaceSmartAccount's assembly reads (inline assembly accepts only
/// number-literal constants) equal what they stand for.
contract PaceConstantsTest is Test {
    PaceConstantsHarness internal harness;

    function setUp() public {
        harness = new PaceConstantsHarness(vm.addr(0xA11CE), vm.addr(0xB0B));
    }

    function test_PDRTypehashLiteralIsTheTypeStringHash() public view {
        bytes32 expected = keccak256(
            "PDR(uint64 nonce,address target,uint256 value,bytes32 dataHash,bytes32 policyId,uint8 decision,bool approvalRequired,uint64 expiry,bytes32 eventId)"
        );
        vm.assertEq(harness.pdrTypehashLiteral(), expected, "literal vs type string");
        vm.assertEq(harness.PDR_TYPEHASH(), expected, "PDR_TYPEHASH vs type string");
    }

    function test_ExecutedTopicIsTheEventSelector() public view {
        vm.assertEq(harness.executedTopic(), IPaceSmartAccount.Executed.selector, "topic vs Executed.selector");
        vm.assertEq(
            harness.executedTopic(), keccak256("Executed(bytes32,bytes32,bytes32,uint256)"), "topic vs signature"
        );
    }

    function test_TooFewApprovalsSelectorIsTheErrorSelector() public view {
        uint256 selector = harness.tooFewApprovalsSelector();
        vm.assertLe(selector, type(uint32).max, "right-aligned in four bytes");
        vm.assertEq(
            bytes32(bytes4(uint32(selector))),
            bytes32(IPaceSmartAccount.TooFewApprovals.selector),
            "literal vs TooFewApprovals.selector"
        );
    }

    /// @dev docs/CONTRACTS.md: a failed call reverts with InsufficientGas "under gasBefore/16 + 10,000 gas left".
    function test_GasReserveIsTheDocumentedTenThousand() public view {
        vm.assertEq(harness.gasReserve(), 10_000, "gas reserve");
    }

    /// @dev docs/CONTRACTS.md: a failed call reverts with InsufficientGas when under
    /// gasBefore/16 + 10,000 gas is left (the callee's 1/64 and up to three hops' 1/64 each).
    function test_StarvedFractionIsTheDocumentedSixteenth() public view {
        vm.assertEq(harness.starvedFraction(), 16, "starved fraction");
    }

    /// @dev `_config`: policySigner bits 0–159, nonce 160–223, threshold 224–231, lock bit 255.
    function test_LockIsBit255AboveThePackedFields() public view {
        vm.assertEq(harness.lockBit(), 255, "lock bit position");
        vm.assertEq(harness.lock(), uint256(1) << 255, "lock mask");
        vm.assertEq(harness.lock() & ((uint256(1) << 232) - 1), 0, "lock overlaps signer, nonce or threshold");
    }

    /// @dev The assembly compares the decision word with DECISION_ALLOW; docs: "decision must be 1".
    function test_DecisionAllowIsOne() public view {
        vm.assertEq(uint256(harness.DECISION_ALLOW()), 1, "DECISION_ALLOW");
    }

    function test_ERC1271MagicIsTheIsValidSignatureSelector() public view {
        vm.assertEq(
            bytes32(harness.erc1271Magic()), bytes32(IERC1271.isValidSignature.selector), "ERC-1271 magic value"
        );
    }
}
