// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// @title Vm
/// @notice The subset of forge's cheatcodes AFR's tests use (docs/DESIGN.md §4.8: forge-std is not
/// available, so the project declares the interface itself). Signatures follow forge 1.7.1.
interface Vm {
    // Assertions (cheatcodes since forge 0.2; they revert with a readable message on failure).
    function assertTrue(bool condition, string calldata error) external pure;
    function assertFalse(bool condition, string calldata error) external pure;
    function assertEq(uint256 left, uint256 right, string calldata error) external pure;
    function assertEq(bytes32 left, bytes32 right, string calldata error) external pure;
    function assertEq(address left, address right, string calldata error) external pure;
    function assertEq(bool left, bool right, string calldata error) external pure;
    function assertEq(bytes calldata left, bytes calldata right, string calldata error) external pure;
    function assertNotEq(bytes32 left, bytes32 right, string calldata error) external pure;
    function assertLe(uint256 left, uint256 right, string calldata error) external pure;
    function assertGe(uint256 left, uint256 right, string calldata error) external pure;

    // Expectations.
    function expectRevert(bytes calldata revertData) external;
    function expectRevert(bytes4 revertSelector) external;
    function expectRevert() external;
    function expectPartialRevert(bytes4 revertSelector) external;
    function expectEmit() external;
    function expectEmit(address emitter) external;

    // Keys and signatures.
    function addr(uint256 privateKey) external pure returns (address);
    function sign(uint256 privateKey, bytes32 digest) external pure returns (uint8 v, bytes32 r, bytes32 s);
    function signCompact(uint256 privateKey, bytes32 digest) external pure returns (bytes32 r, bytes32 vs);

    // Environment.
    function prank(address sender) external;
    function startPrank(address sender) external;
    function stopPrank() external;
    function warp(uint256 timestamp) external;
    function chainId(uint256 newChainId) external;
    function deal(address account, uint256 newBalance) external;
    function assume(bool condition) external pure;
    function etch(address target, bytes calldata newRuntimeBytecode) external;
    function load(address target, bytes32 slot) external view returns (bytes32 data);
    function store(address target, bytes32 slot, bytes32 value) external;
    function label(address account, string calldata newLabel) external;
}

/// @title Test
/// @notice Minimal project-owned test base: the cheatcode handle and a few helpers in the
/// spirit of forge-std (which is not available here).
abstract contract Test {
    /// @dev address(uint160(uint256(keccak256("hevm cheat code"))))
    Vm internal constant vm = Vm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);

    /// @dev secp256k1 group order; signatures with s > N/2 are malleable.
    uint256 internal constant SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141;

    /// @dev Maps `x` into [min, max] without discarding fuzz runs (forge-std's `bound`).
    function bound(uint256 x, uint256 min, uint256 max) internal pure returns (uint256) {
        require(min <= max, "bound: min > max");
        uint256 size = max - min;
        if (size == type(uint256).max) return x;
        return min + (x % (size + 1));
    }

    /// @dev A valid secp256k1 private key derived from `seed`.
    function keyFrom(uint256 seed) internal pure returns (uint256) {
        return bound(seed, 1, SECP256K1_N - 1);
    }
}
