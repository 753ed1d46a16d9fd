// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {Test} from "./utils/Test.sol";
import {PaceSmartAccount} from "../src/PaceSmartAccount.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";

/// @notice ERC-1271 signatures are bound to the account (issue 12, finding 5): the owner signs
/// an ERC-7739 nested EIP-712 digest under the account's own domain (name "PaceSmartAccount",
/// version "1", chain id, account address), never the bare `hash`. Two accounts with the same
/// owner on the same chain must not accept each other's signatures: Permit2-style app digests
/// carry no owner field, so a signature over the bare hash for account A was a signature for
/// every account the same key owns.
///
/// Every digest here is computed independently of the contract (and of OpenZeppelin's
/// ERC7739Utils), from the EIP-712 and ERC-7739 definitions. Calls go through a low-level
/// staticcall so that a revert fails the test instead of passing as "refused".
contract PaceERC1271Test is Test {
    uint256 internal constant OWNER_KEY = 0xA11CE;
    uint256 internal constant POLICY_KEY = 0xB0B;
    uint256 internal constant APPROVER_KEY = 0xC001;
    uint256 internal constant ATTACKER_KEY = 0xBAD;
    uint256 internal constant NEW_OWNER_KEY = 0xA11CE2;

    bytes4 internal constant MAGIC = 0x1626ba7e;
    bytes4 internal constant FAILURE = 0xffffffff;

    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 internal constant PERSONAL_SIGN_TYPEHASH = keccak256("PersonalSign(bytes prefixed)");

    // An app whose signed struct has no owner field (the shape of Permit2's permits).
    bytes32 internal constant APP_DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)");
    address internal constant PERMIT2 = 0x000000000022D473030F116dDEE9F6B43aC78BA3;
    string internal constant PERMIT_TYPE =
        "PermitTransfer(address token,uint256 amount,address spender,uint256 nonce,uint256 deadline)";
    string internal constant PERMIT_NAME = "PermitTransfer";

    PaceSmartAccount internal accountA;
    PaceSmartAccount internal accountB;

    function setUp() public {
        address[] memory approvers = new address[](1);
        approvers[0] = vm.addr(APPROVER_KEY);
        // Same owner, same policy signer, same approvers, same chain: only the address differs.
        accountA = new PaceSmartAccount(vm.addr(OWNER_KEY), vm.addr(POLICY_KEY), approvers, 1);
        accountB = new PaceSmartAccount(vm.addr(OWNER_KEY), vm.addr(POLICY_KEY), approvers, 1);
    }

    // ---------------------------------------------------------------- reference digests

    function accountSeparator(address account, uint256 chainId) internal pure returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, keccak256("PaceSmartAccount"), keccak256("1"), chainId, account));
    }

    /// @dev ERC-7739 PersonalSign: keccak256("\x19\x01" ‖ account separator ‖
    /// keccak256(abi.encode(keccak256("PersonalSign(bytes prefixed)"), hash))).
    function personalSignDigest(address account, uint256 chainId, bytes32 hash) internal pure returns (bytes32) {
        bytes32 structHash = keccak256(abi.encode(PERSONAL_SIGN_TYPEHASH, hash));
        return keccak256(abi.encodePacked("\x19\x01", accountSeparator(account, chainId), structHash));
    }

    function appSeparator(uint256 chainId) internal pure returns (bytes32) {
        return keccak256(abi.encode(APP_DOMAIN_TYPEHASH, keccak256("Permit2"), chainId, PERMIT2));
    }

    function permitContents(uint256 amount) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(keccak256(bytes(PERMIT_TYPE)), address(0xDA1), amount, address(0x5BE), uint256(7), uint256(1e10))
        );
    }

    /// @dev The app's own EIP-712 digest: what the app passes to isValidSignature as `hash`.
    function appHash(bytes32 appSep, bytes32 contents) internal pure returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", appSep, contents));
    }

    /// @dev ERC-7739 TypedDataSign: keccak256("\x19\x01" ‖ app separator ‖ keccak256(abi.encode(
    /// typeHash, contents, keccak256(name), keccak256(version), chainId, account, salt))) with
    /// typeHash = keccak256("TypedDataSign(" ‖ contentsName ‖ " contents,string name,string version,
    /// uint256 chainId,address verifyingContract,bytes32 salt)" ‖ contentsType).
    function typedDataSignDigest(
        address account,
        uint256 chainId,
        bytes32 appSep,
        bytes32 contents,
        string memory contentsName,
        string memory contentsType
    ) internal pure returns (bytes32) {
        bytes32 typeHash = keccak256(
            abi.encodePacked(
                "TypedDataSign(",
                contentsName,
                " contents,string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)",
                contentsType
            )
        );
        bytes32 structHash = keccak256(
            abi.encode(typeHash, contents, keccak256("PaceSmartAccount"), keccak256("1"), chainId, account, bytes32(0))
        );
        return keccak256(abi.encodePacked("\x19\x01", appSep, structHash));
    }

    /// @dev signature ‖ app separator ‖ contents ‖ contentsDescr ‖ uint16(len(contentsDescr)).
    function nested(bytes memory sig, bytes32 appSep, bytes32 contents, string memory descr)
        internal
        pure
        returns (bytes memory)
    {
        return abi.encodePacked(sig, appSep, contents, descr, uint16(bytes(descr).length));
    }

    function sign65(uint256 key, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    /// @dev The owner's signature of `hash` for `account` on this chain (PersonalSign).
    function ownerSig(PaceSmartAccount account, bytes32 hash) internal view returns (bytes memory) {
        return sign65(OWNER_KEY, personalSignDigest(address(account), block.chainid, hash));
    }

    /// @dev The owner's nested TypedDataSign signature of the permit for `account` on this chain.
    function ownerPermitSig(PaceSmartAccount account) internal view returns (bytes memory sig, bytes32 hash) {
        bytes32 appSep = appSeparator(block.chainid);
        bytes32 contents = permitContents(1 ether);
        hash = appHash(appSep, contents);
        bytes32 digest =
            typedDataSignDigest(address(account), block.chainid, appSep, contents, PERMIT_NAME, PERMIT_TYPE);
        sig = nested(sign65(OWNER_KEY, digest), appSep, contents, PERMIT_TYPE);
    }

    /// @dev isValidSignature through a staticcall: fails the test if it reverts or returns
    /// anything but one ABI word.
    function check(PaceSmartAccount account, bytes32 hash, bytes memory sig) internal view returns (bytes4) {
        (bool ok, bytes memory ret) =
            address(account).staticcall(abi.encodeCall(IERC1271.isValidSignature, (hash, sig)));
        vm.assertTrue(ok, "isValidSignature reverted");
        vm.assertEq(ret.length, 32, "return data length");
        return abi.decode(ret, (bytes4));
    }

    function assertAccepted(PaceSmartAccount account, bytes32 hash, bytes memory sig, string memory what)
        internal
        view
    {
        vm.assertEq(bytes32(check(account, hash, sig)), bytes32(MAGIC), what);
    }

    function assertRefused(PaceSmartAccount account, bytes32 hash, bytes memory sig, string memory what) internal view {
        vm.assertEq(bytes32(check(account, hash, sig)), bytes32(FAILURE), what);
    }

    // ---------------------------------------------------------------- the finding

    /// @notice The regression test of finding 5: the same owner's signature for account A
    /// validates on A and not on B (same owner, same chain).
    function test_ERC1271SignatureForAccountANotValidOnAccountB() public view {
        bytes32 hash = keccak256("message");
        bytes memory sig = ownerSig(accountA, hash);
        assertAccepted(accountA, hash, sig, "A accepts the owner's signature for A");
        assertRefused(accountB, hash, sig, "B refuses the owner's signature for A");
        bytes memory sigB = ownerSig(accountB, hash);
        assertAccepted(accountB, hash, sigB, "B accepts the owner's signature for B");
        assertRefused(accountA, hash, sigB, "A refuses the owner's signature for B");
    }

    /// @notice The Permit2 scenario: a nested TypedDataSign signature of an app digest without
    /// owner field, made for account A, is refused by account B.
    function test_ERC1271TypedDataSignForAccountANotValidOnAccountB() public view {
        (bytes memory sig, bytes32 hash) = ownerPermitSig(accountA);
        assertAccepted(accountA, hash, sig, "A accepts the owner's permit for A");
        assertRefused(accountB, hash, sig, "B refuses the owner's permit for A");
        (bytes memory sigB,) = ownerPermitSig(accountB);
        assertAccepted(accountB, hash, sigB, "B accepts the owner's permit for B");
        assertRefused(accountA, hash, sigB, "A refuses the owner's permit for B");
    }

    /// @notice Today's format, a signature over the bare hash, is refused by every account:
    /// it was valid on every account the key owns.
    function test_ERC1271RawHashSignatureRefused() public view {
        bytes32 hash = keccak256("message");
        assertRefused(accountA, hash, sign65(OWNER_KEY, hash), "raw signature on A");
        assertRefused(accountB, hash, sign65(OWNER_KEY, hash), "raw signature on B");
        // Nor the app's own EIP-712 digest signed directly (the Permit2 replay).
        bytes32 permit = appHash(appSeparator(block.chainid), permitContents(1 ether));
        assertRefused(accountA, permit, sign65(OWNER_KEY, permit), "raw permit on A");
        assertRefused(accountB, permit, sign65(OWNER_KEY, permit), "raw permit on B");
        // Nor an EIP-191 personal_sign of the hash.
        bytes32 ethSigned = keccak256(abi.encodePacked("\x19Ethereum Signed Message:\n32", hash));
        assertRefused(accountA, hash, sign65(OWNER_KEY, ethSigned), "eth_sign of the hash");
    }

    /// @notice A signature for another chain id is refused, and after a fork the account takes
    /// only signatures for the new chain id.
    function test_ERC1271SignatureForOtherChainRefused() public {
        bytes32 hash = keccak256("message");
        uint256 other = block.chainid + 1;
        bytes memory forOther = sign65(OWNER_KEY, personalSignDigest(address(accountA), other, hash));
        assertRefused(accountA, hash, forOther, "personal sign for another chain");

        bytes32 appSep = appSeparator(block.chainid);
        bytes32 contents = permitContents(1 ether);
        bytes32 d = typedDataSignDigest(address(accountA), other, appSep, contents, PERMIT_NAME, PERMIT_TYPE);
        assertRefused(
            accountA,
            appHash(appSep, contents),
            nested(sign65(OWNER_KEY, d), appSep, contents, PERMIT_TYPE),
            "typed data sign for another chain"
        );

        bytes memory forHere = ownerSig(accountA, hash);
        vm.chainId(other);
        assertRefused(accountA, hash, forHere, "old chain's signature after the fork");
        assertAccepted(accountA, hash, forOther, "new chain's signature after the fork");
    }

    // ---------------------------------------------------------------- other attacks

    function test_ERC1271NonOwnerSignaturesRefused() public view {
        bytes32 hash = keccak256("message");
        bytes32 digest = personalSignDigest(address(accountA), block.chainid, hash);
        assertRefused(accountA, hash, sign65(POLICY_KEY, digest), "policy signer");
        assertRefused(accountA, hash, sign65(APPROVER_KEY, digest), "approver");
        assertRefused(accountA, hash, sign65(ATTACKER_KEY, digest), "attacker");
    }

    /// @notice A signature for one hash does not validate another.
    function test_ERC1271SignatureForOtherHashRefused() public view {
        bytes memory sig = ownerSig(accountA, keccak256("message"));
        assertRefused(accountA, keccak256("other message"), sig, "other hash");
    }

    /// @notice Bad, short, long and malleable signatures return 0xffffffff without reverting.
    function test_ERC1271BadSignaturesReturnFailure() public view {
        bytes32 hash = keccak256("message");
        bytes32 digest = personalSignDigest(address(accountA), block.chainid, hash);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(OWNER_KEY, digest);
        assertAccepted(accountA, hash, abi.encodePacked(r, s, v), "the valid signature");

        // Malleable twin: s' = N - s with v flipped recovers the owner too, but is refused.
        bytes32 twinS = bytes32(SECP256K1_N - uint256(s));
        uint8 twinV = v == 27 ? 28 : 27;
        assertRefused(accountA, hash, abi.encodePacked(r, twinS, twinV), "malleable twin");

        // ERC-2098 compact form (64 bytes) and other lengths.
        bytes32 vs = bytes32(uint256(s) | (uint256(v - 27) << 255));
        assertRefused(accountA, hash, abi.encodePacked(r, vs), "64-byte compact form");
        assertRefused(accountA, hash, "", "empty");
        assertRefused(accountA, hash, hex"00", "one byte");
        assertRefused(accountA, hash, abi.encodePacked(r, s), "64 bytes r, s");
        assertRefused(accountA, hash, abi.encodePacked(r, s, v, uint8(0)), "66 bytes");
        assertRefused(accountA, hash, abi.encodePacked(r, s, v, bytes32(0), bytes32(0)), "129 bytes");

        // Invalid v, zero r or s, r and s out of range.
        assertRefused(accountA, hash, abi.encodePacked(r, s, uint8(0)), "v = 0");
        assertRefused(accountA, hash, abi.encodePacked(r, s, uint8(29)), "v = 29");
        assertRefused(accountA, hash, abi.encodePacked(bytes32(0), s, v), "r = 0");
        assertRefused(accountA, hash, abi.encodePacked(r, bytes32(0), v), "s = 0");
        assertRefused(accountA, hash, abi.encodePacked(bytes32(SECP256K1_N), s, v), "r = N");
        assertRefused(accountA, hash, abi.encodePacked(bytes32(type(uint256).max), s, v), "r = 2^256 - 1");
        assertRefused(accountA, hash, new bytes(65), "65 zero bytes");
        assertRefused(accountA, hash, new bytes(4096), "4096 zero bytes");
    }

    /// @notice Nested TypedDataSign signatures that do not match the hash, or whose descriptor
    /// or lengths are malformed, return 0xffffffff without reverting.
    function test_ERC1271BadTypedDataSignReturnsFailure() public view {
        bytes32 appSep = appSeparator(block.chainid);
        bytes32 contents = permitContents(1 ether);
        bytes32 hash = appHash(appSep, contents);
        bytes memory sig = sign65(
            OWNER_KEY, typedDataSignDigest(address(accountA), block.chainid, appSep, contents, PERMIT_NAME, PERMIT_TYPE)
        );
        assertAccepted(accountA, hash, nested(sig, appSep, contents, PERMIT_TYPE), "the valid nested signature");

        // The hash is not appSeparator ‖ contents: the signature was for another permit.
        bytes32 otherContents = permitContents(2 ether);
        assertRefused(accountA, appHash(appSep, otherContents), nested(sig, appSep, contents, PERMIT_TYPE), "hash");
        assertRefused(
            accountA, appHash(appSep, otherContents), nested(sig, appSep, otherContents, PERMIT_TYPE), "contents"
        );
        // Another app's separator, with a hash made to match it.
        bytes32 otherApp = appSeparator(block.chainid + 1);
        assertRefused(
            accountA, appHash(otherApp, contents), nested(sig, otherApp, contents, PERMIT_TYPE), "app separator"
        );
        // Another descriptor (type), the explicit-mode descriptor of the same type is accepted.
        assertRefused(
            accountA,
            hash,
            nested(sig, appSep, contents, "PermitTransfer(address token,uint256 amount,address spender)"),
            "descriptor"
        );
        assertAccepted(
            accountA,
            hash,
            nested(sig, appSep, contents, string.concat(PERMIT_TYPE, PERMIT_NAME)),
            "explicit-mode descriptor"
        );
        // Malformed descriptors: empty, empty name, forbidden characters.
        assertRefused(accountA, hash, nested(sig, appSep, contents, ""), "empty descriptor");
        assertRefused(accountA, hash, nested(sig, appSep, contents, "(address a)"), "empty name");
        assertRefused(accountA, hash, nested(sig, appSep, contents, "Permit Transfer(address a)"), "space in name");
        assertRefused(accountA, hash, nested(sig, appSep, contents, "Permit,Transfer(address a)"), "comma in name");
        // Length field past the signature, and a truncated nested signature.
        assertRefused(
            accountA, hash, abi.encodePacked(sig, appSep, contents, PERMIT_TYPE, uint16(0xffff)), "length too large"
        );
        assertRefused(accountA, hash, abi.encodePacked(appSep, contents, uint16(0)), "no inner signature");
        // A nested signature whose inner signature is the bare hash signed by the owner.
        assertRefused(accountA, hash, nested(sign65(OWNER_KEY, hash), appSep, contents, PERMIT_TYPE), "inner raw");
    }

    /// @notice The owner's keys change hands with ownership: the old owner's signatures are
    /// refused and the new owner's accepted once the transfer is accepted.
    function test_ERC1271FollowsOwnership() public {
        bytes32 hash = keccak256("message");
        bytes32 digest = personalSignDigest(address(accountA), block.chainid, hash);
        vm.prank(vm.addr(OWNER_KEY));
        accountA.transferOwnership(vm.addr(NEW_OWNER_KEY));
        assertAccepted(accountA, hash, sign65(OWNER_KEY, digest), "owner until accepted");
        vm.prank(vm.addr(NEW_OWNER_KEY));
        accountA.acceptOwnership();
        assertRefused(accountA, hash, sign65(OWNER_KEY, digest), "old owner");
        assertAccepted(accountA, hash, sign65(NEW_OWNER_KEY, digest), "new owner");
    }

    /// @notice ERC-7739 detection: hash 0x7739…7739 with an empty signature returns 0x77390001.
    function test_ERC1271SupportsERC7739() public view {
        bytes32 probe = 0x7739773977397739773977397739773977397739773977397739773977397739;
        vm.assertEq(bytes32(check(accountA, probe, "")), bytes32(bytes4(0x77390001)), "ERC-7739 probe");
        assertRefused(accountA, probe, hex"00", "probe with a signature");
    }

    // ---------------------------------------------------------------- fuzz

    /// @notice For any owner key and hash, the owner's signature for one account never validates
    /// on another account of the same owner.
    function testFuzz_ERC1271SignatureBoundToAccount(uint256 keySeed, bytes32 hash) public {
        uint256 key = keyFrom(keySeed);
        address[] memory none = new address[](0);
        PaceSmartAccount a = new PaceSmartAccount(vm.addr(key), vm.addr(POLICY_KEY), none, 0);
        PaceSmartAccount b = new PaceSmartAccount(vm.addr(key), vm.addr(POLICY_KEY), none, 0);
        bytes memory sigA = sign65(key, personalSignDigest(address(a), block.chainid, hash));
        assertAccepted(a, hash, sigA, "A accepts its signature");
        assertRefused(b, hash, sigA, "B refuses A's signature");
        assertRefused(a, hash, sign65(key, hash), "raw signature");
    }

    /// @notice Arbitrary signature bytes return 0xffffffff without reverting.
    function testFuzz_ERC1271GarbageReturnsFailure(bytes32 hash, bytes calldata sig) public view {
        vm.assume(sig.length != 0 || hash != 0x7739773977397739773977397739773977397739773977397739773977397739);
        assertRefused(accountA, hash, sig, "garbage");
    }
}
