// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// @title EpochAnchor
/// @notice Anchors the Merkle epoch roots of AFR recorders on chain (docs/DESIGN.md §4.6), many
/// logs per operator, one at a time or in aggregate batches (docs/CONTRACTS.md, docs/SPEC.md "Log
/// id" and "Aggregate batches").
///
/// Each operator (the `msg.sender`) owns one storage slot per log id, the *head* of that log:
///
///     slot = keccak256(abi.encode(operator, logId))
///     head = (epoch + 1) << 192 | uint192(keccak256(abi.encode(epoch, root)))
///
/// The top 64 bits say which epoch comes next, the low 192 bits commit to the last anchored
/// (epoch, root). Epoch 0 is accepted only with a zero back-pointer; epoch t > 0 only with the
/// `prevRoot` whose commitment is the stored head of epoch t − 1. Each epoch of each (operator,
/// log id) is therefore anchored at most once (no equivocation on chain), in order, with no
/// gaps, and every anchored root is linked to its predecessor. Roots themselves are found
/// through the {Anchored} event, indexed by operator, log id and epoch.
///
/// Log id zero is the operator's *batch chain*: batch b is anchored as its epoch b, with root
/// format.BatchRoot(b, entries) and the root of batch b − 1 as back-pointer, either with
/// `anchor(0, …)` (the operator publishes the entries in its batches file) or with
/// {anchorBatch}, which also emits the packed entries in {BatchContents}. The contract checks
/// neither the entries nor the batch root: a verifier recomputes the root from the contents
/// and treats contents that do not give it as withheld.
///
/// {anchorRoots} anchors several consecutive epochs of one log in one call, with the checks and
/// the events of as many {anchor} calls, for an anchorer whose log seals epochs faster than
/// one transaction per epoch confirms.
///
/// @dev Gas: a steady-state anchor is one cold SLOAD, one nonzero→nonzero SSTORE to the same
/// (then warm) slot, three keccak256 over 64 bytes and one LOG4 with 64 bytes of data. The hot
/// path is written in assembly (see {anchor}) and measured in docs/CONTRACTS.md.
///
/// The 192-bit commitment gives 96-bit collision resistance for back-pointers. That only
/// guards the link prevRoot(t) = root(t − 1), which a verifier re-checks from the events anyway;
/// the one-root-per-epoch rule is enforced by the epoch counter alone, which is exact.
///
/// Storage: the contract declares no state variables; heads live at keccak256(operator ‖ logId)
/// (64 bytes, both left-padded words), which no other slot of this contract uses.
contract EpochAnchor {
    /// @notice An epoch root of log `logId` was anchored by `operator`.
    /// @param operator the account that anchored (the recorder's operator key)
    /// @param logId the log (format.LogID of the log's recorder and session); 0 is the
    /// operator's batch chain, whose epochs are aggregate batches
    /// @param epoch the epoch number, starting at 0 (the batch number for log id 0)
    /// @param root the epoch root R_t (hash of the epoch header), or the batch root
    /// @param prevRoot the root of epoch − 1, zero for epoch 0
    event Anchored(address indexed operator, bytes32 indexed logId, uint64 indexed epoch, bytes32 root, bytes32 prevRoot);

    /// @notice The entries of batch `batch` of `operator`, packed as format.EncodeBatchEntries
    /// writes them (104 bytes each: log id, uint64 epoch, root, prev root), emitted by
    /// {anchorBatch} right after the batch's {Anchored} event.
    event BatchContents(address indexed operator, uint64 indexed batch, bytes entries);

    /// @notice `epoch` is not the next epoch (`expected`) of this operator and log: a gap, a
    /// replay or a fork.
    error EpochOutOfOrder(uint64 epoch, uint64 expected);

    /// @notice Epoch 0 was submitted with a nonzero back-pointer.
    error GenesisBackPointerNotZero(bytes32 prevRoot);

    /// @notice `prevRoot` is not the root anchored for epoch `epoch` − 1.
    error BackPointerMismatch(uint64 epoch, bytes32 prevRoot);

    /// @notice A zero root was submitted for `epoch`; zero is reserved for "no epoch".
    error ZeroRoot(uint64 epoch);

    /// @notice {anchorBatch} was given `length` bytes of entries: not a positive multiple of 104.
    error MalformedBatch(uint256 length);

    /// @notice {anchorRoots} was given no roots.
    error EmptyRun();

    /// @dev keccak256("Anchored(address,bytes32,uint64,bytes32,bytes32)")
    bytes32 private constant _ANCHORED_TOPIC = 0xa58519225e4f9c8267cd9793b73fec57d8d8f98424e8f206c6d7288d6fe037e7;

    /// @dev The size of one packed batch entry (format.BatchEntrySize).
    uint256 private constant _ENTRY_SIZE = 104;

    /// @notice Anchors `root` as epoch `epoch` of the caller's log `logId`.
    /// @param logId the log id (format.LogID); 0 anchors a batch whose entries the operator
    /// publishes itself
    /// @param epoch the epoch number: 0 for the first anchor, then exactly one more than the last
    /// @param root the epoch root, nonzero
    /// @param prevRoot the root anchored for `epoch` − 1, or zero when `epoch` is 0
    function anchor(bytes32 logId, uint64 epoch, bytes32 root, bytes32 prevRoot) public {
        // Hot path in assembly: Solidity's version spends ~600 gas more on memory management,
        // checked arithmetic and ABI re-encoding of the event. Every branch mirrors the errors
        // above and is covered by contracts/test/EpochAnchor.t.sol and the Go differential test.
        // `epoch` is ABI-decoded as uint64 by Solidity already (dirty high bits revert). Public,
        // not external: anchorBatch calls it (an internal jump, 44 gas cheaper per anchor than a
        // shared private function).
        assembly ("memory-safe") {
            mstore(0x00, caller())
            mstore(0x20, logId)
            let slot := keccak256(0x00, 0x40)
            let head := sload(slot)
            let next := shr(192, head)
            if iszero(eq(epoch, next)) {
                let m := mload(0x40)
                mstore(m, shl(224, 0xaafac234)) // EpochOutOfOrder(uint64,uint64)
                mstore(add(m, 0x04), epoch)
                mstore(add(m, 0x24), next)
                revert(m, 0x44)
            }
            if iszero(root) {
                mstore(0x00, 0x41408c49) // ZeroRoot(uint64)
                mstore(0x20, epoch)
                revert(0x1c, 0x24)
            }
            switch epoch
            case 0 {
                if prevRoot {
                    mstore(0x00, 0x7b1f9093) // GenesisBackPointerNotZero(bytes32)
                    mstore(0x20, prevRoot)
                    revert(0x1c, 0x24)
                }
            }
            default {
                // Commitment of (epoch − 1, prevRoot); no underflow: epoch > 0 here.
                mstore(0x00, sub(epoch, 1))
                mstore(0x20, prevRoot)
                if iszero(eq(shr(64, shl(64, keccak256(0x00, 0x40))), shr(64, shl(64, head)))) {
                    let m := mload(0x40)
                    mstore(m, shl(224, 0xbfc3f729)) // BackPointerMismatch(uint64,bytes32)
                    mstore(add(m, 0x04), epoch)
                    mstore(add(m, 0x24), prevRoot)
                    revert(m, 0x44)
                }
            }
            // New head: (epoch + 1) << 192 | uint192(keccak256(epoch, root)). epoch + 1 cannot
            // exceed 64 bits in practice (2^64 − 1 anchors); if it did, shl drops the carry.
            mstore(0x00, epoch)
            mstore(0x20, root)
            sstore(slot, or(shl(192, add(epoch, 1)), shr(64, shl(64, keccak256(0x00, 0x40)))))
            // emit Anchored(caller, logId, epoch, root, prevRoot)
            mstore(0x00, root)
            mstore(0x20, prevRoot)
            log4(0x00, 0x40, _ANCHORED_TOPIC, caller(), logId, epoch)
            // Only the scratch space (0x00–0x3f) was written on the success path.
        }
    }

    /// @notice Anchors batch `batch` of the caller's batch chain (log id 0) as {anchor} does, and
    /// emits its entries in {BatchContents}, so that anyone reads the contents from the chain.
    /// @param batch the batch number: 0 first, then exactly one more than the last
    /// @param root format.BatchRoot(batch, entries), nonzero (not checked against `entries`)
    /// @param prevRoot the root of batch `batch` − 1, or zero when `batch` is 0
    /// @param entries the batch's entries, packed (104 bytes each)
    function anchorBatch(uint64 batch, bytes32 root, bytes32 prevRoot, bytes calldata entries) external {
        if (entries.length == 0 || entries.length % _ENTRY_SIZE != 0) revert MalformedBatch(entries.length);
        anchor(bytes32(0), batch, root, prevRoot);
        emit BatchContents(msg.sender, batch, entries);
    }

    /// @notice Anchors `roots` as the consecutive epochs `epoch`, `epoch` + 1, … of the caller's
    /// log `logId`, in one transaction: exactly as many {anchor} calls would, with the same checks
    /// and one {Anchored} event per epoch, identical to theirs (each epoch's `prevRoot` is the
    /// root before it in `roots`, the first one's is `prevRoot`). All or nothing: a zero root
    /// anywhere reverts the whole run.
    /// @param logId the log id (format.LogID)
    /// @param epoch the first epoch of the run: exactly one more than the last anchored (0 first)
    /// @param roots the epoch roots, in epoch order, each nonzero; at least one
    /// @param prevRoot the root anchored for `epoch` − 1, or zero when `epoch` is 0
    /// @dev Its selector, 0x8e2d7f15, sorts after anchor's (0x7f00e393), so the dispatcher still
    /// finds {anchor} with the first comparison of its half (a name sorting before it, such as
    /// anchorRun, cost every {anchor} 22 gas).
    function anchorRoots(bytes32 logId, uint64 epoch, bytes32[] calldata roots, bytes32 prevRoot) external {
        uint256 n = roots.length;
        if (n == 0) revert EmptyRun();
        // The first epoch goes through {anchor}: every check against the stored head, its event
        // and the head's (cold) SSTORE. The rest only link to the root before them, so each costs
        // its event and its calldata; the head is then written once more (a warm, dirty slot).
        anchor(logId, epoch, roots[0], prevRoot);
        if (n == 1) return;
        assembly ("memory-safe") {
            let prev := calldataload(roots.offset)
            // Epochs epoch + i stay within 64 bits as in {anchor}: the stored next epoch would
            // have to be past 2^64 − n, i.e. that many anchors made before.
            for { let i := 1 } lt(i, n) { i := add(i, 1) } {
                let root := calldataload(add(roots.offset, shl(5, i)))
                let t := add(epoch, i)
                if iszero(root) {
                    mstore(0x00, 0x41408c49) // ZeroRoot(uint64)
                    mstore(0x20, t)
                    revert(0x1c, 0x24)
                }
                // emit Anchored(caller, logId, t, root, prev)
                mstore(0x00, root)
                mstore(0x20, prev)
                log4(0x00, 0x40, _ANCHORED_TOPIC, caller(), logId, t)
                prev := root
            }
            // Head: (last + 1) << 192 | uint192(keccak256(last, root of last)).
            let last := add(epoch, sub(n, 1))
            mstore(0x00, caller())
            mstore(0x20, logId)
            let slot := keccak256(0x00, 0x40)
            mstore(0x00, last)
            mstore(0x20, prev)
            sstore(slot, or(shl(192, add(last, 1)), shr(64, shl(64, keccak256(0x00, 0x40)))))
        }
    }

    /// @dev The stored head of (`operator`, `logId`).
    function _head(address operator, bytes32 logId) private view returns (uint256 h) {
        assembly ("memory-safe") {
            mstore(0x00, operator)
            mstore(0x20, logId)
            h := sload(keccak256(0x00, 0x40))
        }
    }

    /// @notice The head of `operator`'s log `logId`.
    /// @return anchored whether `operator` has anchored at least one epoch of `logId`
    /// @return epoch the last anchored epoch (0 when `anchored` is false)
    /// @return commitment uint192(keccak256(abi.encode(epoch, root))) of the last anchored root
    function head(address operator, bytes32 logId) external view returns (bool anchored, uint64 epoch, bytes24 commitment) {
        uint256 h = _head(operator, logId);
        if (h == 0) return (false, 0, bytes24(0));
        return (true, uint64((h >> 192) - 1), bytes24(uint192(h)));
    }

    /// @notice The epoch `operator` must anchor next for `logId` (0 before the first anchor).
    function nextEpoch(address operator, bytes32 logId) external view returns (uint64) {
        return uint64(_head(operator, logId) >> 192);
    }

    /// @notice Whether (`epoch`, `root`) is the last epoch of `logId` anchored by `operator`.
    function isHead(address operator, bytes32 logId, uint64 epoch, bytes32 root) external view returns (bool) {
        uint256 h = _head(operator, logId);
        return h != 0 && uint64((h >> 192) - 1) == epoch && bytes24(uint192(h)) == commitmentOf(epoch, root);
    }

    /// @notice The 192-bit commitment stored for (`epoch`, `root`).
    function commitmentOf(uint64 epoch, bytes32 root) public pure returns (bytes24) {
        return bytes24(uint192(uint256(keccak256(abi.encode(epoch, root)))));
    }
}
