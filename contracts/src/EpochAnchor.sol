// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// @title EpochAnchor
/// @notice Anchors the Merkle epoch roots of AFR recorders on chain (DESIGN.md §4.6).
///
/// Each operator (the `msg.sender` of `anchor`) owns exactly one storage slot, its *head*:
///
///     head = (epoch + 1) << 192 | uint192(keccak256(abi.encode(epoch, root)))
///
/// The top 64 bits say which epoch comes next, the low 192 bits commit to the last anchored
/// (epoch, root). Epoch 0 is accepted only with a zero back-pointer; epoch t > 0 only with the
/// `prevRoot` whose commitment is the stored head of epoch t − 1. Each epoch is therefore
/// anchored at most once per operator (no equivocation on chain), in order, with no gaps, and
/// every anchored root is linked to its predecessor. Roots themselves are found through the
/// {Anchored} event, which is indexed by operator and epoch.
///
/// @dev Gas: a steady-state anchor is one cold SLOAD, one nonzero→nonzero SSTORE to the same
/// (then warm) slot, two keccak256 over 64 bytes and one LOG3 with 64 bytes of data. The hot
/// path is written in assembly (see {anchor}) and measured in docs/CONTRACTS.md.
///
/// The 192-bit commitment gives 96-bit collision resistance for back-pointers. That only
/// guards the link prevRoot(t) = root(t − 1), which a verifier re-checks from the events anyway;
/// the one-root-per-epoch rule is enforced by the epoch counter alone, which is exact.
contract EpochAnchor {
    /// @notice An epoch root was anchored by `operator`.
    /// @param operator the account that anchored (the recorder's operator key)
    /// @param epoch the epoch number, starting at 0
    /// @param root the epoch root R_t (hash of the epoch header)
    /// @param prevRoot the root of epoch − 1, zero for epoch 0
    event Anchored(address indexed operator, uint64 indexed epoch, bytes32 root, bytes32 prevRoot);

    /// @notice `epoch` is not the operator's next epoch (`expected`): a gap, a replay or a fork.
    error EpochOutOfOrder(uint64 epoch, uint64 expected);

    /// @notice Epoch 0 was submitted with a nonzero back-pointer.
    error GenesisBackPointerNotZero(bytes32 prevRoot);

    /// @notice `prevRoot` is not the root anchored for epoch `epoch` − 1.
    error BackPointerMismatch(uint64 epoch, bytes32 prevRoot);

    /// @notice A zero root was submitted for `epoch`; zero is reserved for "no epoch".
    error ZeroRoot(uint64 epoch);

    /// @dev operator => head (see the contract documentation for the packing).
    mapping(address operator => uint256 head) private _heads;

    /// @dev keccak256("Anchored(address,uint64,bytes32,bytes32)")
    bytes32 private constant _ANCHORED_TOPIC = 0xd6f0f013808bc2f1d448753205790daee522b8c2904b0d109ec4099b097c8eae;

    /// @notice Anchors `root` as epoch `epoch` of the caller's recorder.
    /// @param epoch the epoch number: 0 for the first anchor, then exactly one more than the last
    /// @param root the epoch root, nonzero
    /// @param prevRoot the root anchored for `epoch` − 1, or zero when `epoch` is 0
    function anchor(uint64 epoch, bytes32 root, bytes32 prevRoot) external {
        // Hot path in assembly: Solidity's version spends ~600 gas more on memory management,
        // checked arithmetic and ABI re-encoding of the event. Every branch mirrors the errors
        // above and is covered by contracts/test/EpochAnchor.t.sol and the Go differential test.
        assembly ("memory-safe") {
            // `epoch` is ABI-decoded as uint64 by Solidity already (dirty high bits revert).
            mstore(0x00, caller())
            mstore(0x20, _heads.slot)
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
            // emit Anchored(caller, epoch, root, prevRoot)
            mstore(0x00, root)
            mstore(0x20, prevRoot)
            log3(0x00, 0x40, _ANCHORED_TOPIC, caller(), epoch)
            // Only the scratch space (0x00–0x3f) was written on the success path.
        }
    }

    /// @notice The caller-visible head of `operator`.
    /// @return anchored whether `operator` has anchored at least one epoch
    /// @return epoch the last anchored epoch (0 when `anchored` is false)
    /// @return commitment uint192(keccak256(abi.encode(epoch, root))) of the last anchored root
    function head(address operator) external view returns (bool anchored, uint64 epoch, bytes24 commitment) {
        uint256 h = _heads[operator];
        if (h == 0) return (false, 0, bytes24(0));
        return (true, uint64((h >> 192) - 1), bytes24(uint192(h)));
    }

    /// @notice The epoch `operator` must anchor next (0 before the first anchor).
    function nextEpoch(address operator) external view returns (uint64) {
        return uint64(_heads[operator] >> 192);
    }

    /// @notice Whether (`epoch`, `root`) is the last epoch anchored by `operator`.
    function isHead(address operator, uint64 epoch, bytes32 root) external view returns (bool) {
        uint256 h = _heads[operator];
        return h != 0 && uint64((h >> 192) - 1) == epoch && bytes24(uint192(h)) == commitmentOf(epoch, root);
    }

    /// @notice The 192-bit commitment stored for (`epoch`, `root`).
    function commitmentOf(uint64 epoch, bytes32 root) public pure returns (bytes24) {
        return bytes24(uint192(uint256(keccak256(abi.encode(epoch, root)))));
    }
}
