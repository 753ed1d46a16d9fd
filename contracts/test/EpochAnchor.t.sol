// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {Test} from "./utils/Test.sol";
import {EpochAnchor} from "../src/EpochAnchor.sol";

contract EpochAnchorTest is Test {
    EpochAnchor internal anchorContract;
    address internal constant OPERATOR = address(0xA11CE);
    address internal constant OTHER = address(0xB0B);
    bytes32 internal constant LOG = keccak256("log A");
    bytes32 internal constant LOG_B = keccak256("log B");
    bytes32 internal constant BATCHES = bytes32(0);

    event Anchored(address indexed operator, bytes32 indexed logId, uint64 indexed epoch, bytes32 root, bytes32 prevRoot);
    event BatchContents(address indexed operator, uint64 indexed batch, bytes entries);

    function setUp() public {
        anchorContract = new EpochAnchor();
    }

    function rootOf(uint256 i) internal pure returns (bytes32) {
        return keccak256(abi.encode("root", i));
    }

    /// @dev Anchors epochs 0..n-1 of `logId` for `op` with roots rootOf(0..n-1).
    function anchorChain(address op, bytes32 logId, uint256 n) internal {
        bytes32 prev;
        for (uint256 i = 0; i < n; i++) {
            vm.prank(op);
            anchorContract.anchor(logId, uint64(i), rootOf(i), prev);
            prev = rootOf(i);
        }
    }

    /// @dev The roots rootOf(first..first+n-1).
    function rootsOf(uint256 first, uint256 n) internal pure returns (bytes32[] memory roots) {
        roots = new bytes32[](n);
        for (uint256 i = 0; i < n; i++) {
            roots[i] = rootOf(first + i);
        }
    }

    /// @dev `n` packed batch entries (104 bytes each) derived from `seed`.
    function entriesOf(uint256 seed, uint256 n) internal pure returns (bytes memory out) {
        for (uint256 i = 0; i < n; i++) {
            out = abi.encodePacked(out, keccak256(abi.encode("log", seed, i)), uint64(i), rootOf(seed + i), rootOf(seed + i + 1));
        }
    }

    function test_FirstAnchorSetsHead() public {
        vm.expectEmit(address(anchorContract));
        emit Anchored(OPERATOR, LOG, 0, rootOf(0), bytes32(0));
        vm.prank(OPERATOR);
        anchorContract.anchor(LOG, 0, rootOf(0), bytes32(0));

        (bool anchored, uint64 epoch, bytes24 c) = anchorContract.head(OPERATOR, LOG);
        vm.assertTrue(anchored, "anchored");
        vm.assertEq(uint256(epoch), 0, "epoch");
        vm.assertEq(bytes32(c), bytes32(anchorContract.commitmentOf(0, rootOf(0))), "commitment");
        vm.assertEq(uint256(anchorContract.nextEpoch(OPERATOR, LOG)), 1, "next epoch");
        vm.assertTrue(anchorContract.isHead(OPERATOR, LOG, 0, rootOf(0)), "isHead");
    }

    function test_ChainOfEpochs() public {
        anchorChain(OPERATOR, LOG, 5);
        vm.expectEmit(address(anchorContract));
        emit Anchored(OPERATOR, LOG, 5, rootOf(5), rootOf(4));
        vm.prank(OPERATOR);
        anchorContract.anchor(LOG, 5, rootOf(5), rootOf(4));
        vm.assertTrue(anchorContract.isHead(OPERATOR, LOG, 5, rootOf(5)), "head is epoch 5");
        vm.assertFalse(anchorContract.isHead(OPERATOR, LOG, 4, rootOf(4)), "epoch 4 no longer head");
        vm.assertEq(uint256(anchorContract.nextEpoch(OPERATOR, LOG)), 6, "next epoch");
    }

    function test_OperatorsAreIndependent() public {
        anchorChain(OPERATOR, LOG, 3);
        anchorChain(OTHER, LOG, 1);
        vm.assertTrue(anchorContract.isHead(OPERATOR, LOG, 2, rootOf(2)), "operator head");
        vm.assertTrue(anchorContract.isHead(OTHER, LOG, 0, rootOf(0)), "other head");
        (bool anchored,,) = anchorContract.head(address(0xdead), LOG);
        vm.assertFalse(anchored, "unknown operator has no head");
        vm.assertEq(uint256(anchorContract.nextEpoch(address(0xdead), LOG)), 0, "unknown operator starts at 0");
    }

    /// @dev One key anchors any number of logs: each log id has its own head.
    function test_LogsOfOneOperatorAreIndependent() public {
        anchorChain(OPERATOR, LOG, 3);
        anchorChain(OPERATOR, LOG_B, 2);
        vm.assertTrue(anchorContract.isHead(OPERATOR, LOG, 2, rootOf(2)), "log A head");
        vm.assertTrue(anchorContract.isHead(OPERATOR, LOG_B, 1, rootOf(1)), "log B head");
        vm.assertEq(uint256(anchorContract.nextEpoch(OPERATOR, LOG)), 3, "log A next");
        vm.assertEq(uint256(anchorContract.nextEpoch(OPERATOR, LOG_B)), 2, "log B next");
        (bool anchored,,) = anchorContract.head(OPERATOR, keccak256("log C"));
        vm.assertFalse(anchored, "an unanchored log has no head");
        // Log A's chain does not extend log B's, nor the batch chain.
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EpochOutOfOrder.selector, uint64(3), uint64(2)));
        vm.prank(OPERATOR);
        anchorContract.anchor(LOG_B, 3, rootOf(3), rootOf(2));
        vm.assertEq(uint256(anchorContract.nextEpoch(OPERATOR, BATCHES)), 0, "batch chain untouched");
    }

    function test_HeadSlotIsKeccakOfOperatorAndLog() public {
        anchorChain(OPERATOR, LOG, 2);
        bytes32 stored = vm.load(address(anchorContract), keccak256(abi.encode(OPERATOR, LOG)));
        bytes32 want = bytes32((uint256(2) << 192) | uint256(uint192(anchorContract.commitmentOf(1, rootOf(1)))));
        vm.assertEq(stored, want, "head slot");
    }

    function test_CommitmentMatchesPacking() public view {
        bytes32 full = keccak256(abi.encode(uint64(7), rootOf(7)));
        vm.assertEq(bytes32(anchorContract.commitmentOf(7, rootOf(7))), bytes32(bytes24(uint192(uint256(full)))), "low 192 bits");
    }

    // ---- batches ----

    function test_AnchorBatchEmitsAnchoredAndContents() public {
        bytes memory entries = entriesOf(1, 3);
        vm.expectEmit(address(anchorContract));
        emit Anchored(OPERATOR, BATCHES, 0, rootOf(100), bytes32(0));
        vm.expectEmit(address(anchorContract));
        emit BatchContents(OPERATOR, 0, entries);
        vm.prank(OPERATOR);
        anchorContract.anchorBatch(0, rootOf(100), bytes32(0), entries);
        vm.assertTrue(anchorContract.isHead(OPERATOR, BATCHES, 0, rootOf(100)), "batch chain head");
        vm.assertEq(uint256(anchorContract.nextEpoch(OPERATOR, BATCHES)), 1, "next batch");
    }

    /// @dev anchor(0, …) (contents in a file) and anchorBatch (contents in events) extend one
    /// batch chain per operator.
    function test_BothPublicationModesShareTheBatchChain() public {
        vm.prank(OPERATOR);
        anchorContract.anchor(BATCHES, 0, rootOf(100), bytes32(0));
        vm.prank(OPERATOR);
        anchorContract.anchorBatch(1, rootOf(101), rootOf(100), entriesOf(2, 1));
        vm.prank(OPERATOR);
        anchorContract.anchor(BATCHES, 2, rootOf(102), rootOf(101));
        vm.assertTrue(anchorContract.isHead(OPERATOR, BATCHES, 2, rootOf(102)), "head");
        // A second root for batch 1, in either mode, is refused.
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EpochOutOfOrder.selector, uint64(1), uint64(3)));
        vm.prank(OPERATOR);
        anchorContract.anchorBatch(1, rootOf(999), rootOf(100), entriesOf(3, 1));
    }

    function test_RevertWhen_BatchRulesBroken() public {
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EpochOutOfOrder.selector, uint64(1), uint64(0)));
        vm.prank(OPERATOR);
        anchorContract.anchorBatch(1, rootOf(1), rootOf(0), entriesOf(1, 1));

        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.GenesisBackPointerNotZero.selector, rootOf(9)));
        vm.prank(OPERATOR);
        anchorContract.anchorBatch(0, rootOf(0), rootOf(9), entriesOf(1, 1));

        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.ZeroRoot.selector, uint64(0)));
        vm.prank(OPERATOR);
        anchorContract.anchorBatch(0, bytes32(0), bytes32(0), entriesOf(1, 1));

        vm.prank(OPERATOR);
        anchorContract.anchorBatch(0, rootOf(0), bytes32(0), entriesOf(1, 1));
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.BackPointerMismatch.selector, uint64(1), rootOf(7)));
        vm.prank(OPERATOR);
        anchorContract.anchorBatch(1, rootOf(1), rootOf(7), entriesOf(1, 1));
    }

    function test_RevertWhen_MalformedBatch() public {
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.MalformedBatch.selector, uint256(0)));
        vm.prank(OPERATOR);
        anchorContract.anchorBatch(0, rootOf(0), bytes32(0), "");

        bytes memory entries = entriesOf(1, 2);
        bytes memory cut = new bytes(entries.length - 1);
        for (uint256 i = 0; i < cut.length; i++) {
            cut[i] = entries[i];
        }
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.MalformedBatch.selector, uint256(207)));
        vm.prank(OPERATOR);
        anchorContract.anchorBatch(0, rootOf(0), bytes32(0), cut);
        vm.assertEq(uint256(anchorContract.nextEpoch(OPERATOR, BATCHES)), 0, "nothing anchored");
    }

    // ---- one revert test per failed check ----

    function test_AnchorRootsEmitsOneAnchoredPerEpoch() public {
        anchorChain(OPERATOR, LOG, 2);
        for (uint256 i = 2; i < 6; i++) {
            vm.expectEmit(address(anchorContract));
            emit Anchored(OPERATOR, LOG, uint64(i), rootOf(i), rootOf(i - 1));
        }
        vm.prank(OPERATOR);
        anchorContract.anchorRoots(LOG, 2, rootsOf(2, 4), rootOf(1));
        vm.assertTrue(anchorContract.isHead(OPERATOR, LOG, 5, rootOf(5)), "head is the run's last epoch");
        vm.assertEq(uint256(anchorContract.nextEpoch(OPERATOR, LOG)), 6, "next epoch");
        vm.prank(OPERATOR);
        anchorContract.anchor(LOG, 6, rootOf(6), rootOf(5)); // a single anchor follows a run
    }

    function test_AnchorRootsFromGenesisEqualsSingleAnchors() public {
        anchorChain(OPERATOR, LOG, 5);
        vm.expectEmit(address(anchorContract));
        emit Anchored(OPERATOR, LOG_B, 0, rootOf(0), bytes32(0));
        vm.prank(OPERATOR);
        anchorContract.anchorRoots(LOG_B, 0, rootsOf(0, 5), bytes32(0));
        vm.assertEq(vm.load(address(anchorContract), keccak256(abi.encode(OPERATOR, LOG_B))), vm.load(address(anchorContract), keccak256(abi.encode(OPERATOR, LOG))), "same head as five anchors");
        vm.prank(OPERATOR);
        anchorContract.anchorRoots(LOG_B, 5, rootsOf(5, 1), rootOf(4)); // a run of one
        vm.assertTrue(anchorContract.isHead(OPERATOR, LOG_B, 5, rootOf(5)), "run of one");
    }

    function test_RevertWhen_AnchorRootsBreaksRules() public {
        anchorChain(OPERATOR, LOG, 3);
        bytes memory head = abi.encode(vm.load(address(anchorContract), keccak256(abi.encode(OPERATOR, LOG))));
        vm.startPrank(OPERATOR);
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EmptyRun.selector));
        anchorContract.anchorRoots(LOG, 3, new bytes32[](0), rootOf(2));
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EpochOutOfOrder.selector, uint64(4), uint64(3)));
        anchorContract.anchorRoots(LOG, 4, rootsOf(4, 2), rootOf(3)); // gap
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EpochOutOfOrder.selector, uint64(2), uint64(3)));
        anchorContract.anchorRoots(LOG, 2, rootsOf(2, 3), rootOf(1)); // replay, then extend
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.BackPointerMismatch.selector, uint64(3), rootOf(9)));
        anchorContract.anchorRoots(LOG, 3, rootsOf(3, 2), rootOf(9));
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.GenesisBackPointerNotZero.selector, rootOf(9)));
        anchorContract.anchorRoots(LOG_B, 0, rootsOf(0, 2), rootOf(9));
        bytes32[] memory roots = rootsOf(3, 4);
        roots[2] = bytes32(0);
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.ZeroRoot.selector, uint64(5)));
        anchorContract.anchorRoots(LOG, 3, roots, rootOf(2)); // a zero root mid-run: nothing of the run stays
        roots[2] = rootOf(5);
        roots[0] = bytes32(0);
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.ZeroRoot.selector, uint64(3)));
        anchorContract.anchorRoots(LOG, 3, roots, rootOf(2));
        vm.stopPrank();
        vm.assertEq(abi.encode(vm.load(address(anchorContract), keccak256(abi.encode(OPERATOR, LOG)))), head, "head unchanged");
        vm.assertEq(uint256(anchorContract.nextEpoch(OPERATOR, LOG_B)), 0, "log B unchanged");
        vm.prank(OTHER);
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EpochOutOfOrder.selector, uint64(3), uint64(0)));
        anchorContract.anchorRoots(LOG, 3, rootsOf(3, 2), rootOf(2)); // another operator's chain
    }

    function test_RevertWhen_FirstEpochNotZero() public {
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EpochOutOfOrder.selector, uint64(1), uint64(0)));
        vm.prank(OPERATOR);
        anchorContract.anchor(LOG, 1, rootOf(1), rootOf(0));
    }

    function test_RevertWhen_GenesisBackPointerNotZero() public {
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.GenesisBackPointerNotZero.selector, rootOf(9)));
        vm.prank(OPERATOR);
        anchorContract.anchor(LOG, 0, rootOf(0), rootOf(9));
    }

    function test_RevertWhen_EpochReplayed() public {
        anchorChain(OPERATOR, LOG, 3);
        // Equivocation: a second root for epoch 2.
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EpochOutOfOrder.selector, uint64(2), uint64(3)));
        vm.prank(OPERATOR);
        anchorContract.anchor(LOG, 2, rootOf(99), rootOf(1));
    }

    function test_RevertWhen_EpochSkipped() public {
        anchorChain(OPERATOR, LOG, 3);
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EpochOutOfOrder.selector, uint64(4), uint64(3)));
        vm.prank(OPERATOR);
        anchorContract.anchor(LOG, 4, rootOf(4), rootOf(2));
    }

    function test_RevertWhen_BackPointerMismatch() public {
        anchorChain(OPERATOR, LOG, 3);
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.BackPointerMismatch.selector, uint64(3), rootOf(1)));
        vm.prank(OPERATOR);
        anchorContract.anchor(LOG, 3, rootOf(3), rootOf(1));
    }

    function test_RevertWhen_ZeroRoot() public {
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.ZeroRoot.selector, uint64(0)));
        vm.prank(OPERATOR);
        anchorContract.anchor(LOG, 0, bytes32(0), bytes32(0));
    }

    function test_RevertWhen_GenesisRestarted() public {
        anchorChain(OPERATOR, LOG, 1);
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EpochOutOfOrder.selector, uint64(0), uint64(1)));
        vm.prank(OPERATOR);
        anchorContract.anchor(LOG, 0, rootOf(50), bytes32(0));
    }

    function test_RevertWhen_OtherOperatorsHead() public {
        anchorChain(OPERATOR, LOG, 2);
        // OTHER cannot extend OPERATOR's chain: its own head is empty.
        vm.expectRevert(abi.encodeWithSelector(EpochAnchor.EpochOutOfOrder.selector, uint64(2), uint64(0)));
        vm.prank(OTHER);
        anchorContract.anchor(LOG, 2, rootOf(2), rootOf(1));
    }

    function test_RevertWhen_DirtyEpochCalldata() public {
        // epoch word with bits above 64 set: rejected by ABI decoding, never truncated.
        (bool ok,) = address(anchorContract).call(
            abi.encodePacked(EpochAnchor.anchor.selector, LOG, uint256(1) << 64, rootOf(0), bytes32(0))
        );
        vm.assertFalse(ok, "dirty epoch accepted");
        bytes memory call = abi.encodeCall(EpochAnchor.anchorBatch, (0, rootOf(0), bytes32(0), entriesOf(1, 1)));
        call[4 + 23] = 0x01; // a bit above the uint64 batch number
        (ok,) = address(anchorContract).call(call);
        vm.assertFalse(ok, "dirty batch number accepted");
    }

    // ---- gas snapshot entries (whole-transaction figures are measured in Go, see docs/CONTRACTS.md) ----

    function test_Gas_FirstAnchor() public {
        vm.prank(OPERATOR);
        anchorContract.anchor(LOG, 0, rootOf(0), bytes32(0));
    }

    function test_Gas_SteadyStateAnchor() public {
        anchorChain(OPERATOR, LOG, 2);
        vm.prank(OPERATOR);
        anchorContract.anchor(LOG, 2, rootOf(2), rootOf(1));
    }

    function test_Gas_SteadyStateAnchorBatch100() public {
        anchorChain(OPERATOR, BATCHES, 2);
        bytes memory entries = entriesOf(5, 100);
        vm.prank(OPERATOR);
        anchorContract.anchorBatch(2, rootOf(2), rootOf(1), entries);
    }

    /// @dev Steady-state runs of 1, 8 and 32 epochs (compare test_Gas_SteadyStateAnchor).
    function anchorRootsGas(uint256 n) internal {
        anchorChain(OPERATOR, LOG, 2);
        bytes32[] memory roots = rootsOf(2, n);
        vm.prank(OPERATOR);
        anchorContract.anchorRoots(LOG, 2, roots, rootOf(1));
    }

    function test_Gas_SteadyStateAnchorRoots1() public {
        anchorRootsGas(1);
    }

    function test_Gas_SteadyStateAnchorRoots8() public {
        anchorRootsGas(8);
    }

    function test_Gas_SteadyStateAnchorRoots32() public {
        anchorRootsGas(32);
    }

    // ---- fuzz ----

    function testFuzz_AnchorRootsEqualsSingleAnchors(uint8 before, uint8 n, uint8 zeroAt) public {
        before = uint8(bound(before, 0, 6));
        n = uint8(bound(n, 1, 12));
        anchorChain(OPERATOR, LOG, uint256(before) + n);
        anchorChain(OPERATOR, LOG_B, before);
        bytes32[] memory roots = rootsOf(before, n);
        bool valid = zeroAt >= n;
        if (!valid) roots[zeroAt] = bytes32(0);
        for (uint256 i = 0; valid && i < n; i++) {
            uint256 t = uint256(before) + i;
            vm.expectEmit(address(anchorContract));
            emit Anchored(OPERATOR, LOG_B, uint64(t), rootOf(t), t == 0 ? bytes32(0) : rootOf(t - 1));
        }
        vm.prank(OPERATOR);
        (bool ok,) = address(anchorContract).call(abi.encodeCall(EpochAnchor.anchorRoots, (LOG_B, before, roots, before == 0 ? bytes32(0) : rootOf(before - 1))));
        vm.assertEq(ok, valid, "accepted iff no zero root");
        if (valid) {
            vm.assertEq(vm.load(address(anchorContract), keccak256(abi.encode(OPERATOR, LOG_B))), vm.load(address(anchorContract), keccak256(abi.encode(OPERATOR, LOG))), "a run leaves the head single anchors leave");
        } else {
            vm.assertEq(uint256(anchorContract.nextEpoch(OPERATOR, LOG_B)), uint256(before), "nothing of a refused run stays");
        }
    }

    function testFuzz_AcceptsOnlyTheLinkedSuccessor(bytes32 logId, uint8 n, uint64 epoch, bytes32 root, bytes32 prevRoot) public {
        n = uint8(bound(n, 1, 8));
        anchorChain(OPERATOR, logId, n);
        bool valid = epoch == n && root != 0 && prevRoot == rootOf(n - 1);
        vm.prank(OPERATOR);
        (bool ok,) = address(anchorContract).call(abi.encodeCall(EpochAnchor.anchor, (logId, epoch, root, prevRoot)));
        vm.assertEq(ok, valid, "accepted iff next epoch, nonzero root and linked");
        vm.assertEq(anchorContract.isHead(OPERATOR, logId, epoch, root), valid, "head moved iff accepted");
    }

    function testFuzz_LogsDoNotInterfere(bytes32 a, bytes32 b, uint8 n) public {
        vm.assume(a != b);
        n = uint8(bound(n, 1, 6));
        anchorChain(OPERATOR, a, n);
        vm.assertEq(uint256(anchorContract.nextEpoch(OPERATOR, b)), 0, "other log untouched");
        anchorChain(OPERATOR, b, 1);
        vm.assertTrue(anchorContract.isHead(OPERATOR, a, n - 1, rootOf(n - 1)), "first log's head kept");
        vm.assertTrue(anchorContract.isHead(OPERATOR, b, 0, rootOf(0)), "second log's head");
    }

    function testFuzz_AnchorBatchAcceptsWholeEntriesOnly(uint16 length) public {
        bytes memory entries = new bytes(bound(length, 0, 1040));
        bool valid = entries.length != 0 && entries.length % 104 == 0;
        vm.prank(OPERATOR);
        (bool ok,) = address(anchorContract).call(abi.encodeCall(EpochAnchor.anchorBatch, (0, rootOf(0), bytes32(0), entries)));
        vm.assertEq(ok, valid, "accepted iff a positive multiple of 104 bytes");
        vm.assertEq(uint256(anchorContract.nextEpoch(OPERATOR, BATCHES)), valid ? 1 : 0, "batch chain moved iff accepted");
    }

    function testFuzz_CommitmentIsLow192BitsOfHash(uint64 epoch, bytes32 root) public view {
        bytes32 full = keccak256(abi.encode(epoch, root));
        vm.assertEq(bytes32(anchorContract.commitmentOf(epoch, root)), bytes32(bytes24(uint192(uint256(full)))), "commitment");
    }
}

/// @dev Drives EpochAnchor with valid and invalid anchors from three operators on three logs
/// each — two per-log ids and the batch chain (log id 0, through anchor and anchorBatch) — one
/// epoch at a time or in runs (anchorRoots), and keeps a ghost copy of every (operator, log) chain.
contract AnchorHandler is Test {
    EpochAnchor public immutable target;
    address[3] internal operators = [address(0x1001), address(0x1002), address(0x1003)];
    bytes32[3] internal logs = [bytes32(0), keccak256("log 1"), keccak256("log 2")];
    mapping(address => mapping(bytes32 => uint64)) public count;
    mapping(address => mapping(bytes32 => bytes32)) public lastRoot;
    uint256 public accepted;

    constructor(EpochAnchor t) {
        target = t;
    }

    function operatorAt(uint256 i) external view returns (address) {
        return operators[i];
    }

    function logAt(uint256 i) external view returns (bytes32) {
        return logs[i];
    }

    /// @dev A valid successor anchor, or a mutated one (mode selects the mutation); on the batch
    /// chain, batchMode picks anchorBatch.
    function anchor(uint256 opSeed, uint256 logSeed, uint8 mode, bytes32 root, bool batchMode) external {
        address op = operators[opSeed % 3];
        bytes32 logId = logs[logSeed % 3];
        if (root == 0) root = bytes32(uint256(1));
        uint64 epoch = count[op][logId];
        bytes32 prev = lastRoot[op][logId];
        mode = mode % 4;
        if (mode == 1) epoch += 1; // gap
        if (mode == 2 && epoch > 0) epoch -= 1; // replay
        if (mode == 3) prev = keccak256(abi.encode(prev)); // broken back-pointer
        bool shouldAccept = epoch == count[op][logId] && prev == lastRoot[op][logId];
        bytes memory call = abi.encodeCall(EpochAnchor.anchor, (logId, epoch, root, prev));
        if (logId == 0 && batchMode) {
            call = abi.encodeCall(EpochAnchor.anchorBatch, (epoch, root, prev, abi.encodePacked(root, epoch, root, prev)));
        }
        vm.prank(op);
        (bool ok,) = address(target).call(call);
        require(ok == shouldAccept, "handler: acceptance differs from model");
        if (ok) {
            count[op][logId] = epoch + 1;
            lastRoot[op][logId] = root;
            accepted++;
        }
    }

    /// @dev A valid run of `n` (1..4) successor epochs through anchorRoots, or a mutated one (the
    /// mutations of {anchor}, plus mode 4: a zero root inside the run).
    function anchorRoots(uint256 opSeed, uint256 logSeed, uint8 mode, bytes32 seed, uint8 n) external {
        address op = operators[opSeed % 3];
        bytes32 logId = logs[logSeed % 3];
        n = uint8(bound(n, 1, 4));
        uint64 epoch = count[op][logId];
        bytes32 prev = lastRoot[op][logId];
        bytes32[] memory roots = new bytes32[](n);
        for (uint256 i = 0; i < n; i++) {
            roots[i] = keccak256(abi.encode(seed, i));
        }
        mode = mode % 5;
        if (mode == 1) epoch += 1; // gap
        if (mode == 2 && epoch > 0) epoch -= 1; // replay
        if (mode == 3) prev = keccak256(abi.encode(prev)); // broken back-pointer
        if (mode == 4) roots[n - 1] = bytes32(0); // zero root
        bool shouldAccept = epoch == count[op][logId] && prev == lastRoot[op][logId] && mode != 4;
        vm.prank(op);
        (bool ok,) = address(target).call(abi.encodeCall(EpochAnchor.anchorRoots, (logId, epoch, roots, prev)));
        require(ok == shouldAccept, "handler: run acceptance differs from model");
        if (ok) {
            count[op][logId] = epoch + n;
            lastRoot[op][logId] = roots[n - 1];
            accepted += n;
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

    /// @dev Every (operator, log) head always equals the model's last accepted (epoch, root).
    function invariant_HeadMatchesModel() public view {
        for (uint256 i = 0; i < 3; i++) {
            address op = handler.operatorAt(i);
            for (uint256 j = 0; j < 3; j++) {
                bytes32 logId = handler.logAt(j);
                uint64 n = handler.count(op, logId);
                vm.assertEq(uint256(anchorContract.nextEpoch(op, logId)), uint256(n), "next epoch");
                if (n > 0) vm.assertTrue(anchorContract.isHead(op, logId, n - 1, handler.lastRoot(op, logId)), "head");
            }
        }
    }
}
