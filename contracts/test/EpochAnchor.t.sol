// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {Test} from "./utils/Test.sol";
import {EpochAnchor} from "../src/EpochAnchor.sol";

contract EpochAnchorTest is Test {
    EpochAnchor internal anchorContract;
    address internal constant OPERATOR = address(0xA11CE);
    address internal constant OTHER = address(0xB0B);

    event Anchored(address indexed operator, uint64 indexed epoch, bytes32 root, bytes32 prevRoot);

    function setUp() public {
        anchorContract = new EpochAnchor();
    }

    function rootOf(uint256 i) internal pure returns (bytes32) {
        return keccak256(abi.encode("root", i));
    }

    /// @dev Anchors epochs 0..n-1 for `op` with roots rootOf(0..n-1).
    function anchorChain(address op, uint256 n) internal {
        bytes32 prev;
        for (uint256 i = 0; i < n; i++) {
            vm.prank(op);
            anchorContract.anchor(uint64(i), rootOf(i), prev);
            prev = rootOf(i);
        }
    }

    function test_FirstAnchorSetsHead() public {
        vm.expectEmit(address(anchorContract));
        emit Anchored(OPERATOR, 0, rootOf(0), bytes32(0));
        vm.prank(OPERATOR);
        anchorContract.anchor(0, rootOf(0), bytes32(0));

        (bool anchored, uint64 epoch, bytes24 c) = anchorContract.head(OPERATOR);
        vm.assertTrue(anchored, "anchored");
        vm.assertEq(uint256(epoch), 0, "epoch");
        vm.assertEq(bytes32(c), bytes32(anchorContract.commitmentOf(0, rootOf(0))), "commitment");
        vm.assertEq(uint256(anchorContract.nextEpoch(OPERATOR)), 1, "next epoch");
        vm.assertTrue(anchorContract.isHead(OPERATOR, 0, rootOf(0)), "isHead");
    }

    function test_ChainOfEpochs() public {
        anchorChain(OPERATOR, 5);
        vm.expectEmit(address(anchorContract));
        emit Anchored(OPERATOR, 5, rootOf(5), rootOf(4));
        vm.prank(OPERATOR);
        anchorContract.anchor(5, rootOf(5), rootOf(4));
        vm.assertTrue(anchorContract.isHead(OPERATOR, 5, rootOf(5)), "head is epoch 5");
        vm.assertFalse(anchorContract.isHead(OPERATOR, 4, rootOf(4)), "epoch 4 no longer head");
        vm.assertEq(uint256(anchorContract.nextEpoch(OPERATOR)), 6, "next epoch");
    }

    function test_OperatorsAreIndependent() public {
        anchorChain(OPERATOR, 3);
        anchorChain(OTHER, 1);
        vm.assertTrue(anchorContract.isHead(OPERATOR, 2, rootOf(2)), "operator head");
        vm.assertTrue(anchorContract.isHead(OTHER, 0, rootOf(0)), "other head");
        (bool anchored,,) = anchorContract.head(address(0xdead));
        vm.assertFalse(anchored, "unknown operator has no head");
        vm.assertEq(uint256(anchorContract.nextEpoch(address(0xdead))), 0, "unknown operator starts at 0");
    }

    function test_CommitmentMatchesPacking() public view {
        bytes32 full = keccak256(abi.encode(uint64(7), rootOf(7)));
        vm.assertEq(bytes32(anchorContract.commitmentOf(7, rootOf(7))), bytes32(bytes24(uint192(uint256(full)))), "low 192 bits");
    }

    // ---- one revert test per failed check ----

    function test_RevertWhen_FirstEpochNotZero() public {
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EpochOutOfOrder.selector, uint64(1), uint64(0)));
        vm.prank(OPERATOR);
        anchorContract.anchor(1, rootOf(1), rootOf(0));
    }

    function test_RevertWhen_GenesisBackPointerNotZero() public {
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.GenesisBackPointerNotZero.selector, rootOf(9)));
        vm.prank(OPERATOR);
        anchorContract.anchor(0, rootOf(0), rootOf(9));
    }

    function test_RevertWhen_EpochReplayed() public {
        anchorChain(OPERATOR, 3);
        // Equivocation: a second root for epoch 2.
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EpochOutOfOrder.selector, uint64(2), uint64(3)));
        vm.prank(OPERATOR);
        anchorContract.anchor(2, rootOf(99), rootOf(1));
    }

    function test_RevertWhen_EpochSkipped() public {
        anchorChain(OPERATOR, 3);
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EpochOutOfOrder.selector, uint64(4), uint64(3)));
        vm.prank(OPERATOR);
        anchorContract.anchor(4, rootOf(4), rootOf(2));
    }

    function test_RevertWhen_BackPointerMismatch() public {
        anchorChain(OPERATOR, 3);
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.BackPointerMismatch.selector, uint64(3), rootOf(1)));
        vm.prank(OPERATOR);
        anchorContract.anchor(3, rootOf(3), rootOf(1));
    }

    function test_RevertWhen_ZeroRoot() public {
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.ZeroRoot.selector, uint64(0)));
        vm.prank(OPERATOR);
        anchorContract.anchor(0, bytes32(0), bytes32(0));
    }

    function test_RevertWhen_GenesisRestarted() public {
        anchorChain(OPERATOR, 1);
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EpochOutOfOrder.selector, uint64(0), uint64(1)));
        vm.prank(OPERATOR);
        anchorContract.anchor(0, rootOf(50), bytes32(0));
    }

    function test_RevertWhen_OtherOperatorsHead() public {
        anchorChain(OPERATOR, 2);
        // OTHER cannot extend OPERATOR's chain: its own head is empty.
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EpochOutOfOrder.selector, uint64(2), uint64(0)));
        vm.prank(OTHER);
        anchorContract.anchor(2, rootOf(2), rootOf(1));
    }

    function test_RevertWhen_DirtyEpochCalldata() public {
        // epoch word with bits above 64 set: rejected by ABI decoding, never truncated.
        (bool ok,) = address(anchorContract).call(
            abi.encodePacked(EpochAnchor.anchor.selector, uint256(1) << 64, rootOf(0), bytes32(0))
        );
        vm.assertFalse(ok, "dirty epoch accepted");
    }

    // ---- gas snapshot entries (whole-transaction figures are measured in Go, see docs/CONTRACTS.md) ----

    function test_Gas_FirstAnchor() public {
        vm.prank(OPERATOR);
        anchorContract.anchor(0, rootOf(0), bytes32(0));
    }

    function test_Gas_SteadyStateAnchor() public {
        anchorChain(OPERATOR, 2);
        vm.prank(OPERATOR);
        anchorContract.anchor(2, rootOf(2), rootOf(1));
    }

    // ---- fuzz ----

    function testFuzz_AcceptsOnlyTheLinkedSuccessor(uint8 n, uint64 epoch, bytes32 root, bytes32 prevRoot) public {
        n = uint8(bound(n, 1, 8));
        anchorChain(OPERATOR, n);
        bool valid = epoch == n && root != 0 && prevRoot == rootOf(n - 1);
        vm.prank(OPERATOR);
        (bool ok,) = address(anchorContract).call(abi.encodeCall(EpochAnchor.anchor, (epoch, root, prevRoot)));
        vm.assertEq(ok, valid, "accepted iff next epoch, nonzero root and linked");
        vm.assertEq(anchorContract.isHead(OPERATOR, epoch, root), valid, "head moved iff accepted");
    }

    function testFuzz_CommitmentIsLow192BitsOfHash(uint64 epoch, bytes32 root) public view {
        bytes32 full = keccak256(abi.encode(epoch, root));
        vm.assertEq(bytes32(anchorContract.commitmentOf(epoch, root)), bytes32(bytes24(uint192(uint256(full)))), "commitment");
    }
}

/// @dev Drives EpochAnchor with valid and invalid anchors from three operators and keeps a
/// ghost copy of each operator's chain.
contract AnchorHandler is Test {
    EpochAnchor public immutable target;
    address[3] internal operators = [address(0x1001), address(0x1002), address(0x1003)];
    mapping(address => uint64) public count;
    mapping(address => bytes32) public lastRoot;
    uint256 public accepted;

    constructor(EpochAnchor t) {
        target = t;
    }

    function operatorAt(uint256 i) external view returns (address) {
        return operators[i];
    }

    /// @dev A valid successor anchor, or a mutated one (mode selects the mutation).
    function anchor(uint256 opSeed, uint8 mode, bytes32 root) external {
        address op = operators[opSeed % 3];
        if (root == 0) root = bytes32(uint256(1));
        uint64 epoch = count[op];
        bytes32 prev = lastRoot[op];
        mode = mode % 4;
        if (mode == 1) epoch += 1; // gap
        if (mode == 2 && epoch > 0) epoch -= 1; // replay
        if (mode == 3) prev = keccak256(abi.encode(prev)); // broken back-pointer
        bool shouldAccept = epoch == count[op] && prev == lastRoot[op];
        vm.prank(op);
        (bool ok,) = address(target).call(abi.encodeCall(EpochAnchor.anchor, (epoch, root, prev)));
        require(ok == shouldAccept, "handler: acceptance differs from model");
        if (ok) {
            count[op] = epoch + 1;
            lastRoot[op] = root;
            accepted++;
        }
    }
}

contract EpochAnchorInvariantTest is Test {
    EpochAnchor internal anchorContract;
    AnchorHandler internal handler;

    function setUp() public {
        anchorContract = new EpochAnchor();
        handler = new AnchorHandler(anchorContract);
    }

    function targetContracts() public view returns (address[] memory t) {
        t = new address[](1);
        t[0] = address(handler);
    }

    /// @dev The on-chain head always equals the model's last accepted (epoch, root).
    function invariant_HeadMatchesModel() public view {
        for (uint256 i = 0; i < 3; i++) {
            address op = handler.operatorAt(i);
            uint64 n = handler.count(op);
            vm.assertEq(uint256(anchorContract.nextEpoch(op)), uint256(n), "next epoch");
            if (n > 0) vm.assertTrue(anchorContract.isHead(op, n - 1, handler.lastRoot(op)), "head");
        }
    }
}
