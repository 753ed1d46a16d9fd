// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ERC7739Utils} from "@openzeppelin/contracts/utils/cryptography/draft-ERC7739Utils.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {IPaceSmartAccount} from "./IPaceSmartAccount.sol";
import {PaceDelegations} from "./PaceDelegations.sol";

/// @dev PaceSmartAccount's own state, in a base listed before PaceDelegations so that it keeps
/// the slots it had when the account was one contract: Ownable's owner (0) and EIP712's name
/// and version fallbacks (1–2) first, then `_config` (3), `isApprover` (4) and `approverCount`
/// (5), then PaceDelegations' `isRevoked` (6) and `spent` (7); the bytecode is unchanged.
/// Declared in the account itself, after all its bases, this state would move to slots 5–7,
/// and slot 3 is worth 2 gas per hot-path execution: the optimizer shares the constant 3 of
/// the unlocking `sstore(_config.slot, …)` with the `gt(dataLength, 3)` that follows it.
abstract contract PaceAccountState is IPaceSmartAccount {
    /// @dev Packed hot-path state: policySigner (bits 0–159) | policy nonce (160–207, 48 bits) |
    /// threshold (208–215) | delegated nonce (216–254, 39 bits) | reentrancy lock (bit 255, set
    /// only while an execution calls out). Two nonce spaces (issue 12, finding 7): the policy
    /// nonce for execute, executeWithApprovals, the compact form and executeBatch, the delegated
    /// nonce for executeDelegated, so no delegate can invalidate pending policy PDRs.
    uint256 internal _config;

    /// @inheritdoc IPaceSmartAccount
    mapping(address approver => bool) public isApprover;

    /// @inheritdoc IPaceSmartAccount
    uint256 public approverCount;
}

/// @title PaceSmartAccount (PACE: Policy-Approved Contract Execution)
/// @notice A smart account that executes a call only with a valid Policy Decision Record (PDR,
/// docs/DESIGN.md §4.7) for exactly that call: an EIP-712 record signed by the account's policy
/// signer (or by a delegate holding a signed, scoped delegation chain from the owner) and, when the
/// PDR says human approval is required, by at least `threshold` distinct approvers.
///
/// EIP-712 domain: name "PaceSmartAccount", version "1", the chain id and this account's address,
/// so a PDR is valid on one chain for one account only. The struct signed for {execute},
/// {executeWithApprovals}, the compact form and {executeBatch} is
///
///     PDR(uint64 nonce,address target,uint256 value,bytes32 dataHash,bytes32 policyId,
///         uint8 decision,bool approvalRequired,uint64 expiry,bytes32 eventId)
///
/// where target, value and dataHash = keccak256(data) are taken from the call being executed, so
/// a PDR cannot be reused for another target, value or calldata. For a batch, target is this
/// account, value the sum of the values and dataHash = keccak256(abi.encode(calls)).
/// {executeDelegated} takes the same fields as another type, `DelegatedPDR(…)`
/// ({DELEGATED_PDR_TYPEHASH}), so a signature for one kind never verifies as the other: not
/// even when the owner delegates to the policy signer's own key, where a policy PDR would
/// otherwise execute a second time in the delegated nonce space (issue 25).
///
/// The nonce is consumed before calling out (two spaces: {nonce} for policy-signed PDRs,
/// {delegatedNonce} for {executeDelegated}); every execution emits {Executed} with the PDR digest
/// and the recorder event id, so the chain itself shows which recorded intent each call matches.
/// There is no `delegatecall` anywhere in this contract.
///
/// A single call may not target the account itself ({TargetIsAccount}): a PDR with this account
/// as target is a batch PDR. A call that fails having used nearly all the gas it could get
/// reverts the transaction ({InsufficientGas}), so a relayer cannot burn a PDR by starving it.
/// The policy signer is never an approver, and ownership moves in two steps (Ownable2Step).
///
/// ERC-1271 signatures are the owner's and bound to this account (ERC-7739 nested EIP-712):
/// see {isValidSignature}.
///
/// @dev Hot-path storage is one slot (`_config`: policy signer, both nonces, threshold) so a
/// policy-signed call pays one cold SLOAD and one SSTORE. See docs/CONTRACTS.md for gas figures.
/// The delegation chains ({executeDelegated}), their revocation and spending records live in
/// PaceDelegations, which calls back into the PDR checks here through its hooks. Ownable2Step
/// is the last base so that its `_pendingOwner` takes the next free slot (8) and every older
/// slot keeps its place.
contract PaceSmartAccount is
    IPaceSmartAccount,
    Ownable,
    EIP712,
    IERC1271,
    PaceAccountState,
    PaceDelegations,
    Ownable2Step
{
    /// @inheritdoc IPaceSmartAccount
    uint8 public constant DECISION_ALLOW = 1;

    /// @inheritdoc IPaceSmartAccount
    bytes32 public constant PDR_TYPEHASH = keccak256(
        "PDR(uint64 nonce,address target,uint256 value,bytes32 dataHash,bytes32 policyId,uint8 decision,bool approvalRequired,uint64 expiry,bytes32 eventId)"
    );

    /// @dev ERC-1271 magic value: bytes4(keccak256("isValidSignature(bytes32,bytes)")).
    bytes4 internal constant _ERC1271_MAGIC = 0x1626ba7e;

    /// @dev ERC-7739's detection probe: {isValidSignature} of this hash with an empty signature
    /// returns {_ERC7739_SUPPORTED}.
    bytes32 internal constant _ERC7739_PROBE = 0x7739773977397739773977397739773977397739773977397739773977397739;

    /// @dev ERC-7739's answer to {_ERC7739_PROBE}: version 1 of the nested signatures.
    bytes4 internal constant _ERC7739_SUPPORTED = 0x77390001;

    /// @dev keccak256 of the EIP-712 domain's name and version, for ERC-7739's TypedDataSign.
    bytes32 private constant _NAME_HASH = keccak256("PaceSmartAccount");
    bytes32 private constant _VERSION_HASH = keccak256("1");

    // Constants of the assembly hot path ({_executeCore}). Inline assembly reads only constants
    // whose value is a number literal, hence literals here; `PaceConstantsTest`
    // (contracts/test/PaceConstants.t.sol) checks each against what it stands for.

    /// @dev {PDR_TYPEHASH} as a literal: keccak256("PDR(uint64 nonce,address target,uint256 value,
    /// bytes32 dataHash,bytes32 policyId,uint8 decision,bool approvalRequired,uint64 expiry,
    /// bytes32 eventId)").
    bytes32 internal constant _PDR_TYPEHASH_LITERAL = 0x0071486a45a1589aa15196c44815c5236ce454fdb6a7bb8676534287cc1c1f80;

    /// @dev The {Executed} event's topic 0: keccak256("Executed(bytes32,bytes32,bytes32,uint256)").
    bytes32 internal constant _EXECUTED_TOPIC = 0x454140892bf4890594dc9214e95b53b9462997f18d73804b336dcf62cb34940e;

    /// @dev The selector of TooFewApprovals(uint256,uint256), right-aligned for
    /// `mstore(0x00, selector)` and `revert(0x1c, …)`.
    uint256 internal constant _TOO_FEW_APPROVALS_SELECTOR = 0x3ef8fc50;

    /// @dev Gas that must remain after a failed call, beyond the gas it handed back to the
    /// caller when starved ({_STARVED_FRACTION}), for the failure to count as the target's.
    uint256 internal constant _GAS_RESERVE = 10_000;

    /// @dev A failed call is taken as starved when the gas left after it is under
    /// gasBefore / _STARVED_FRACTION + {_GAS_RESERVE}, gasBefore being the gas left just before
    /// the CALL. EIP-150 forwards at most 63/64 of the gas available, so a callee that runs out
    /// of gas leaves at most gasBefore/64; each proxy-like hop in front of it (a Solidity call
    /// that bubbles the failure up) hands back at most 1/64 of its own gas more. 16 = 4/64
    /// covers the target's own out-of-gas and up to three such hops; an honest failure counts
    /// as the target's once the sender gives it about 16/15 of the gas it uses.
    uint256 internal constant _STARVED_FRACTION = 16;

    /// @dev The position of the reentrancy lock bit in `_config`.
    uint256 internal constant _LOCK_BIT = 255;

    /// @dev The reentrancy lock bit of `_config`.
    uint256 internal constant _LOCK = 1 << _LOCK_BIT;

    /// @dev The policy nonce's position and width in `_config`: bits 160–207. A PDR whose nonce
    /// is 2^48 or more never executes in this space; the counter would wrap only after 2^48
    /// executions (over 5·10^18 gas at 21,000 gas each: not reachable).
    uint256 internal constant _NONCE_SHIFT = 160;
    uint256 internal constant _NONCE_MASK = 0xffffffffffff;

    /// @dev The threshold's position in `_config`: bits 208–215.
    uint256 internal constant _THRESHOLD_SHIFT = 208;

    /// @dev The delegated nonce's position and width in `_config`: bits 216–254. A delegated
    /// PDR whose nonce is 2^39 − 1 or more never executes: the last value is never consumed,
    /// so the counter can neither wrap nor carry into the lock bit.
    uint256 internal constant _DELEGATED_NONCE_SHIFT = 216;
    uint256 internal constant _DELEGATED_NONCE_MASK = 0x7fffffffff;

    /// @dev The EIP-712 domain separator, chain id and address at deployment, which
    /// OpenZeppelin's EIP712 also caches (in private immutables): the hot path compares and reads
    /// them inline, without {_domainSeparatorV4}'s call (~80 gas), and calls it after a fork.
    bytes32 private immutable _separator;
    uint256 private immutable _separatorChainId;
    address private immutable _self;

    // ---------------------------------------------------------------- construction

    /// @param owner_ the owner (administration, delegation root, ERC-1271 signer)
    /// @param policySigner_ the key that signs PDRs
    /// @param approvers_ the initial approvers
    /// @param threshold_ approvals required when a PDR requires human approval
    constructor(address owner_, address policySigner_, address[] memory approvers_, uint8 threshold_)
        Ownable(owner_)
        EIP712("PaceSmartAccount", "1")
    {
        if (policySigner_ == address(0)) revert ZeroAddress();
        for (uint256 i = 0; i < approvers_.length; i++) {
            if (approvers_[i] == policySigner_) revert PolicySignerIsApprover(policySigner_);
            _setApprover(approvers_[i], true);
        }
        _checkThreshold(threshold_, approverCount);
        _config = uint256(uint160(policySigner_)) | (uint256(threshold_) << _THRESHOLD_SHIFT);
        _separator = _domainSeparatorV4();
        _separatorChainId = block.chainid;
        _self = address(this);
        emit PolicySignerChanged(address(0), policySigner_);
        emit ThresholdChanged(0, threshold_);
    }

    /// @notice Accepts ETH.
    receive() external payable {}

    /// @inheritdoc IPaceSmartAccount
    /// @dev Decoded and run by {_executeCompact}.
    function executeCompact_dFki0() external payable returns (bool success, bytes memory result) {
        (success, result);
        _executeCompact();
    }

    // ---------------------------------------------------------------- execution

    /// @inheritdoc IPaceSmartAccount
    function execute(address target, uint256 value, bytes calldata data, PDRTerms calldata t, Sig calldata policySig)
        external
        payable
        returns (bool success, bytes memory result)
    {
        // The assembly reads target, value, t and policySig at their fixed ABI head offsets.
        (target, value, t, policySig, success, result);
        _executeOne(data, 0, 0);
    }

    /// @inheritdoc IPaceSmartAccount
    function executeWithApprovals(
        address target,
        uint256 value,
        bytes calldata data,
        PDRTerms calldata t,
        Sig calldata policySig,
        Sig[] calldata approvals
    ) external payable returns (bool success, bytes memory result) {
        uint256 offset;
        uint256 length;
        assembly ("memory-safe") {
            offset := approvals.offset
            length := approvals.length
        }
        (target, value, t, policySig, success, result);
        _executeOne(data, offset, length);
    }

    /// @inheritdoc IPaceSmartAccount
    function executeBatch(Call[] calldata calls, PDRTerms calldata t, Sig calldata policySig, Sig[] calldata approvals)
        external
        payable
    {
        bytes32 digest = hashBatch(calls, t);
        uint256 config = _checkPolicy(digest, t, policySig);
        if (t.approvalRequired) _checkApprovals(digest, approvals, _threshold(config));
        _consumeNonceAndLock(config);
        for (uint256 i = 0; i < calls.length; i++) {
            Call calldata c = calls[i];
            (bool ok, bytes memory ret) = _call(digest, t.eventId, c.target, c.value, c.data);
            if (!ok) revert CallFailed(i, ret);
        }
        _unlock();
    }

    /// @inheritdoc IPaceSmartAccount
    function executeDelegated(
        Call calldata c,
        PDRTerms calldata t,
        Sig calldata delegateSig,
        Sig[] calldata approvals,
        SignedDelegation[] calldata chain
    ) external payable returns (bool success, bytes memory result) {
        (bytes32 digest, uint256 config) = _authorizeDelegated(c, t, delegateSig, approvals, chain);
        // No single call to the account itself (see the hot path). In assembly: Solidity's
        // `c.target == address(this)` costs ~180 gas here, the word read and masked ~25.
        assembly ("memory-safe") {
            if eq(and(calldataload(c), 0xffffffffffffffffffffffffffffffffffffffff), address()) {
                mstore(0x00, 0x773f5c67) // TargetIsAccount()
                revert(0x1c, 0x04)
            }
        }
        _consumeDelegatedNonceAndLock(config);
        (success, result) = _call(digest, t.eventId, c.target, c.value, c.data);
        _unlock();
    }

    // ---------------------------------------------------------------- administration

    /// @inheritdoc IPaceSmartAccount
    function setPolicySigner(address newSigner) external onlyOwner {
        if (newSigner == address(0)) revert ZeroAddress();
        uint256 config = _loadConfig();
        if (isApprover[newSigner]) revert PolicySignerIsApprover(newSigner);
        emit PolicySignerChanged(address(uint160(config)), newSigner);
        _config = (config & ~uint256(type(uint160).max)) | uint160(newSigner);
    }

    /// @inheritdoc IPaceSmartAccount
    function setApprover(address approver, bool enabled) external onlyOwner {
        if (enabled && approver == address(uint160(_config))) revert PolicySignerIsApprover(approver);
        _setApprover(approver, enabled);
        _checkThreshold(_threshold(_config), approverCount);
    }

    /// @inheritdoc IPaceSmartAccount
    function setThreshold(uint8 newThreshold) external onlyOwner {
        _checkThreshold(newThreshold, approverCount);
        uint256 config = _loadConfig();
        emit ThresholdChanged(_threshold(config), newThreshold);
        _config = (config & ~(uint256(0xff) << _THRESHOLD_SHIFT)) | (uint256(newThreshold) << _THRESHOLD_SHIFT);
    }

    /// @notice Starts a transfer of ownership: `newOwner` becomes the pending owner and the
    /// owner only when it calls `acceptOwnership` (Ownable2Step). The owner roots every
    /// delegation chain, so a mistyped address must not take it over in one step; a pending
    /// transfer can be overwritten (or cancelled with the zero address) until accepted.
    function transferOwnership(address newOwner) public override(Ownable, Ownable2Step) {
        super.transferOwnership(newOwner); // Ownable2Step's: onlyOwner, sets the pending owner
    }

    /// @dev Ownable2Step's: clears the pending owner, then Ownable's.
    function _transferOwnership(address newOwner) internal override(Ownable, Ownable2Step) {
        super._transferOwnership(newOwner);
    }

    /// @notice Disabled: see {RenounceDisabled}.
    function renounceOwnership() public view override onlyOwner {
        revert RenounceDisabled();
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc IPaceSmartAccount
    function nonce() external view returns (uint64) {
        return uint64((_config >> _NONCE_SHIFT) & _NONCE_MASK);
    }

    /// @inheritdoc IPaceSmartAccount
    function delegatedNonce() external view returns (uint64) {
        return uint64((_config >> _DELEGATED_NONCE_SHIFT) & _DELEGATED_NONCE_MASK);
    }

    /// @inheritdoc IPaceSmartAccount
    function policySigner() external view returns (address) {
        return address(uint160(_config));
    }

    /// @inheritdoc IPaceSmartAccount
    function threshold() external view returns (uint8) {
        return _threshold(_config);
    }

    /// @inheritdoc IPaceSmartAccount
    function domainSeparator() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @inheritdoc IPaceSmartAccount
    function hashPDR(address target, uint256 value, bytes calldata data, PDRTerms calldata t)
        external
        view
        returns (bytes32)
    {
        return _pdrDigest(PDR_TYPEHASH, target, value, keccak256(data), t);
    }

    /// @inheritdoc IPaceSmartAccount
    function hashBatch(Call[] calldata calls, PDRTerms calldata t) public view returns (bytes32) {
        uint256 total;
        for (uint256 i = 0; i < calls.length; i++) {
            total += calls[i].value;
        }
        return _pdrDigest(PDR_TYPEHASH, address(this), total, keccak256(abi.encode(calls)), t);
    }

    /// @inheritdoc IPaceSmartAccount
    function packCall(address target, bytes4 selector, bool success) public pure returns (bytes32) {
        return bytes32(
            (uint256(uint160(target)) << 96) | (uint256(uint32(selector)) << 64) | (success ? uint256(1) << 56 : 0)
        );
    }

    /// @notice ERC-1271: returns 0x1626ba7e when the owner signed `hash` for this account on this
    /// chain, 0xffffffff otherwise (never reverts for a bad signature). The owner never signs
    /// `hash` itself, which would be valid on every account the same key owns (app digests such
    /// as Permit2's carry no owner field), but an ERC-7739 nested EIP-712 digest under this
    /// account's domain ("PaceSmartAccount", "1", chain id, this address), in either form:
    ///
    /// - PersonalSign: `signature` is the owner's 65-byte r‖s‖v (low s) over
    ///   keccak256("\x19\x01" ‖ domainSeparator() ‖ keccak256(abi.encode(
    ///   keccak256("PersonalSign(bytes prefixed)"), hash))).
    /// - TypedDataSign, for `hash` = keccak256("\x19\x01" ‖ appSeparator ‖ contents) of an
    ///   EIP-712 app: `signature` is sig ‖ appSeparator ‖ contents ‖ contentsDescr ‖
    ///   uint16(len(contentsDescr)), sig the owner's over keccak256("\x19\x01" ‖ appSeparator ‖
    ///   keccak256(abi.encode(keccak256("TypedDataSign(" ‖ contentsName ‖ " contents,string
    ///   name,string version,uint256 chainId,address verifyingContract,bytes32 salt)" ‖
    ///   contentsType), contents, keccak256("PaceSmartAccount"), keccak256("1"), chainid,
    ///   address(this), bytes32(0)))), so that a wallet can show the app's struct.
    ///
    /// For the ERC-7739 probe (hash 0x7739…7739, empty signature) it returns 0x77390001. The
    /// logic is OpenZeppelin's ERC7739.isValidSignature on its ERC7739Utils; the contract is not
    /// inherited because that moved the optimizer's code for the batch and delegated paths
    /// (+1 to +24 gas). Go signers: pdr.PersonalSignDigest, pdr.TypedDataSignDigest and
    /// pdr.EncodeTypedDataSig (pdr/erc1271.go); docs/CONTRACTS.md, "ERC-1271 signatures are
    /// bound to the account".
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (_isValidTypedDataSign(hash, signature) || _isValidPersonalSign(hash, signature)) return _ERC1271_MAGIC;
        if (hash == _ERC7739_PROBE && signature.length == 0) return _ERC7739_SUPPORTED;
        return 0xffffffff;
    }

    // ---------------------------------------------------------------- internals

    /// @dev ERC-7739 PersonalSign: `signature` is the owner's over this account's EIP-712 digest
    /// of PersonalSign(bytes prefixed) with `hash` as the struct's only word.
    function _isValidPersonalSign(bytes32 hash, bytes calldata signature) private view returns (bool) {
        bytes32 digest =
            MessageHashUtils.toTypedDataHash(_domainSeparatorV4(), ERC7739Utils.personalSignStructHash(hash));
        return _isOwnerSignature(digest, signature);
    }

    /// @dev ERC-7739 TypedDataSign: `encoded` = sig ‖ appSeparator ‖ contents ‖ contentsDescr ‖
    /// uint16(len(contentsDescr)), `hash` must be the app's digest of `contents`, and sig the
    /// owner's over the app's digest of TypedDataSign(contents, this account's domain fields).
    /// A malformed encoding or descriptor decodes to empty values and fails, never reverts.
    function _isValidTypedDataSign(bytes32 hash, bytes calldata encoded) private view returns (bool) {
        (bytes calldata signature, bytes32 appSeparator, bytes32 contents, string calldata descr) =
            ERC7739Utils.decodeTypedDataSig(encoded);
        (string calldata contentsName, string calldata contentsType) = ERC7739Utils.decodeContentsDescr(descr);
        if (bytes(contentsName).length == 0 || hash != MessageHashUtils.toTypedDataHash(appSeparator, contents)) {
            return false;
        }
        // The account's EIP712Domain fields, as in the domain separator, with ERC-7739's salt 0.
        bytes memory domain = abi.encode(_NAME_HASH, _VERSION_HASH, block.chainid, address(this), bytes32(0));
        bytes32 structHash = ERC7739Utils.typedDataSignStructHash(contentsName, contentsType, contents, domain);
        return _isOwnerSignature(MessageHashUtils.toTypedDataHash(appSeparator, structHash), signature);
    }

    /// @dev Whether the owner signed `digest`: a 65-byte r‖s‖v signature with low s (OpenZeppelin's
    /// ECDSA refuses high s, v other than 27 or 28 and other lengths without reverting).
    function _isOwnerSignature(bytes32 digest, bytes calldata signature) private view returns (bool) {
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(digest, signature);
        return err == ECDSA.RecoverError.NoError && recovered == owner();
    }

    function _threshold(uint256 config) internal pure override returns (uint8) {
        return uint8(config >> _THRESHOLD_SHIFT);
    }

    /// @dev Loads `_config`, reverting while an execution is calling out (reentrancy guard: the
    /// lock bit lives in the hot slot, so setting it costs nothing extra and clearing it ~100 gas,
    /// against ~300 for a transient-storage guard).
    function _loadConfig() internal view override returns (uint256 config) {
        config = _config;
        if (config & _LOCK != 0) revert ReentrancyGuardReentrantCall();
    }

    /// @dev The EIP-712 domain separator: the cached one, rebuilt (by OpenZeppelin's EIP712)
    /// only after a fork changed the chain id or when this code runs at another address.
    function _separatorNow() private view returns (bytes32 separator) {
        separator = _separator;
        uint256 chainId = _separatorChainId;
        address self = _self;
        bool moved;
        assembly ("memory-safe") {
            moved := or(xor(chainid(), chainId), xor(address(), self))
        }
        if (moved) separator = _domainSeparatorV4();
    }

    /// @dev The ABI entry of the hot path ({execute}, {executeWithApprovals}): range-checks the
    /// uint64/uint8/bool terms as Solidity's ABI decoder does (a dirty word reverts without
    /// data), lays the PDR out in memory (see {_executeCore}) and runs {_executeCore}. Both
    /// entry points share the ABI head layout, so the static arguments are read at fixed
    /// offsets (Solidity has validated `target` already): target 0x04, value 0x24, data's
    /// offset 0x44, terms 0x64–0x123 (nonce, policyId, decision, approvalRequired, expiry,
    /// eventId), policy signature 0x124–0x163 (r, vs). `approvals` is the calldata offset of
    /// the first approval (0 for {execute}, which takes none), `approvalCount` their number
    /// (both checked against the calldata size by Solidity's ABI decoder).
    function _executeOne(bytes calldata data, uint256 approvals, uint256 approvalCount) private {
        bytes32 separator = _separatorNow();
        assembly ("memory-safe") {
            if or(
                or(gt(calldataload(0x64), 0xffffffffffffffff), gt(calldataload(0xa4), 0xff)),
                or(gt(calldataload(0xc4), 1), gt(calldataload(0xe4), 0xffffffffffffffff))
            ) { revert(0x00, 0x00) }
            mstore(0xa0, calldataload(0x64)) // nonce
            calldatacopy(0xc0, 0x04, 0x40) // target, value
            calldatacopy(0x120, 0x84, 0xa0) // policyId, decision, approvalRequired, expiry, eventId
            calldatacopy(0x240, data.offset, data.length)
        }
        _executeCore(separator, data.length, 0x124, approvals, approvalCount);
    }

    /// @dev The compact entry of the hot path ({executeCompact_dFki0}; docs/CONTRACTS.md,
    /// "Compact calldata"): checks and decodes the packed fields, lays the PDR out in memory as
    /// {_executeOne} does and runs {_executeCore}.
    function _executeCompact() private {
        bytes32 separator = _separatorNow();
        uint256 count;
        uint256 dataLength;
        assembly ("memory-safe") {
            let w := calldataload(40) // decision, approvalRequired, n, L in its first four bytes
            count := byte(2, w)
            let valueLength := byte(3, w)
            let valueAt := add(172, shl(6, count)) // past the header and the n approvals
            let dataAt := add(valueAt, valueLength)
            let v := calldataload(valueAt)
            // Malformed: shorter than header, approvals and value; approvalRequired above 1;
            // a value longer than 32 bytes or not minimal (a leading zero byte).
            if or(
                or(lt(calldatasize(), dataAt), gt(byte(1, w), 1)),
                or(gt(valueLength, 32), and(iszero(iszero(valueLength)), iszero(byte(0, v))))
            ) {
                mstore(0x00, 0xa876ebd2) // MalformedCompactCall()
                revert(0x1c, 0x04)
            }
            dataLength := sub(calldatasize(), dataAt)
            mstore(0xa0, shr(192, calldataload(24))) // nonce
            mstore(0xc0, shr(96, calldataload(4))) // target
            mstore(0xe0, shr(shl(3, sub(32, valueLength)), v)) // value (0 when valueLength is 0)
            mstore(0x120, calldataload(44)) // policyId
            mstore(0x140, byte(0, w)) // decision
            mstore(0x160, byte(1, w)) // approvalRequired
            mstore(0x180, shr(192, calldataload(32))) // expiry
            mstore(0x1a0, calldataload(76)) // eventId
            calldatacopy(0x240, dataAt, dataLength)
        }
        _executeCore(separator, dataLength, 108, 172, count);
    }

    /// @dev The hot path of {execute} (`approvals` 0), {executeWithApprovals} and the compact
    /// calldata, in assembly: the same checks, in the same order and with the same errors as the
    /// Solidity paths ({_checkPolicy}, {_checkApprovals}, {_consumeNonceAndLock}, {_call}),
    /// without Solidity's memory management, library call overhead and ABI re-encoding
    /// (~2,000 gas). Never returns to Solidity: it ends with RETURN of abi.encode(success,
    /// returndata), or reverts.
    ///
    /// Memory: the entry points run with nothing allocated (all their arguments are in
    /// calldata), so the free memory pointer is 0x80, and lay out at fixed addresses the PDR
    /// struct words 0xa0 nonce, 0xc0 target, 0xe0 value, 0x120 policyId, 0x140 decision,
    /// 0x160 approvalRequired, 0x180 expiry, 0x1a0 eventId (all range-checked), and the call
    /// data from 0x240 (`dataLength` bytes). This function writes the type hash at 0x80 and
    /// the data hash at 0x100, and uses 0x1c0–0x23f as scratch. `separator` is
    /// {_separatorNow}, computed by the entry point before the layout (rebuilding it after a
    /// fork uses memory). `policySig` is the calldata offset of the policy signature (r, vs),
    /// `approvals` that of the first approval (0: none may be given, the {execute} ABI entry)
    /// and `approvalCount` their number; the entry point has checked that they lie within the
    /// calldata.
    ///
    /// Signatures are recovered exactly as OpenZeppelin 5's `ECDSA.recover(hash, r, vs)`:
    /// s = vs with the top bit cleared, v = 27 + top bit; s above n/2 reverts with
    /// `ECDSAInvalidSignatureS(s)`; the ecrecover precompile's zero result (no output) reverts
    /// with `ECDSAInvalidSignature()`. `testFuzz_RecoverMatchesOpenZeppelin` checks every
    /// entry point against `ECDSA.tryRecover` on random and boundary (r, vs).
    function _executeCore(
        bytes32 separator,
        uint256 dataLength,
        uint256 policySig,
        uint256 approvals,
        uint256 approvalCount
    ) private {
        assembly {
            /// Reverts with the custom error `selector` and one or two word arguments.
            function fail1(selector, a) {
                mstore(0x00, selector)
                mstore(0x20, a)
                revert(0x1c, 0x24)
            }
            function fail2(selector, a, b) {
                mstore(0x00, selector)
                mstore(0x20, a)
                mstore(0x40, b) // clobbers the free memory pointer: we are reverting
                revert(0x1c, 0x44)
            }
            /// ECDSA.recover(digest, r, vs) for the compact signature at calldata `sig`, using
            /// memory s..s+0x7f and the scratch word 0x00.
            function recoverSigner(digest, sig, s) -> signer {
                let vs := calldataload(add(sig, 0x20))
                let sv := shr(1, shl(1, vs))
                if gt(sv, 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0) {
                    fail1(0xd78bce0c, sv) // ECDSAInvalidSignatureS(bytes32)
                }
                mstore(s, digest)
                mstore(add(s, 0x20), add(shr(255, vs), 27))
                mstore(add(s, 0x40), calldataload(sig))
                mstore(add(s, 0x60), sv)
                mstore(0x00, 0) // the precompile writes nothing when it cannot recover
                if iszero(staticcall(gas(), 0x01, s, 0x80, 0x00, 0x20)) { revert(0x00, 0x00) }
                signer := mload(0x00)
                if iszero(signer) {
                    mstore(0x00, 0xf645eedf) // ECDSAInvalidSignature()
                    revert(0x1c, 0x04)
                }
            }

            let config := sload(_config.slot)
            if shr(_LOCK_BIT, config) {
                mstore(0x00, 0x3ee5aeb5) // ReentrancyGuardReentrantCall()
                revert(0x1c, 0x04)
            }
            let scratch := 0x1c0
            let d := 0x240

            // digest = keccak256(0x1901 ‖ separator ‖ hashStruct(PDR)), see {_pdrDigest}.
            let digest
            {
                mstore(0x80, _PDR_TYPEHASH_LITERAL)
                mstore(0x100, keccak256(d, dataLength)) // dataHash
                mstore(scratch, 0x1901)
                mstore(add(scratch, 0x20), separator)
                mstore(add(scratch, 0x40), keccak256(0x80, 0x140)) // hashStruct(PDR)
                digest := keccak256(add(scratch, 0x1e), 0x42)
            }

            // Terms ({_checkTerms}).
            {
                let nonce := mload(0xa0)
                let decision := mload(0x140)
                let expiry := mload(0x180)
                let expected := and(shr(_NONCE_SHIFT, config), _NONCE_MASK)
                if iszero(eq(nonce, expected)) { fail2(0xf917ffea, expected, nonce) } // InvalidNonce(uint64,uint64)
                if iszero(eq(decision, DECISION_ALLOW)) { fail1(0x5558510d, decision) } // DecisionNotAllow(uint8)
                if gt(timestamp(), expiry) { fail2(0xfda15cc8, expiry, timestamp()) } // PDRExpired(uint64,uint256)
            }

            // Policy signature.
            {
                let signer := recoverSigner(digest, policySig, scratch)
                if iszero(eq(signer, and(config, 0xffffffffffffffffffffffffffffffffffffffff))) {
                    fail1(0x590f6edf, signer) // UnauthorizedPolicySigner(address)
                }
            }

            // Approvals ({_checkApprovals}) when the PDR requires them.
            if mload(0x160) { // approvalRequired
                let required := and(shr(_THRESHOLD_SHIFT, config), 0xff)
                if iszero(approvals) { fail2(_TOO_FEW_APPROVALS_SELECTOR, 0, required) } // {execute}: none given
                if iszero(required) { required := 1 }
                if lt(approvalCount, required) { fail2(_TOO_FEW_APPROVALS_SELECTOR, approvalCount, required) }
                let previous := 0
                for { let i := 0 } lt(i, approvalCount) { i := add(i, 1) } {
                    let signer := recoverSigner(digest, add(approvals, shl(6, i)), scratch)
                    if eq(signer, previous) { fail1(0x8ef2e407, signer) } // DuplicateApprover(address)
                    if lt(signer, previous) { fail2(0xf9ca8296, previous, signer) } // ApproversNotSorted(address,address)
                    mstore(0x00, signer)
                    mstore(0x20, isApprover.slot)
                    if iszero(sload(keccak256(0x00, 0x40))) { fail1(0xec37f146, signer) } // NotApprover(address)
                    previous := signer
                }
            }

            // Consume the nonce and lock before calling out ({_consumeNonceAndLock}): one SSTORE.
            let unlocked := or(
                and(config, not(shl(_NONCE_SHIFT, _NONCE_MASK))),
                shl(_NONCE_SHIFT, and(add(shr(_NONCE_SHIFT, config), 1), _NONCE_MASK))
            )
            sstore(_config.slot, or(unlocked, shl(_LOCK_BIT, 1)))

            // The call ({_call}): never delegatecall. A failure that left under gasBefore/16 +
            // _GAS_RESERVE may be 63/64 starvation by the sender: revert so the PDR is not burnt.
            let target := mload(0xc0)
            // A single call to the account itself is refused (a PDR with the account as target
            // is a batch PDR); checked here, with the target on the stack, and reverting the
            // SSTORE above: the same order as {executeDelegated}, after every PDR check.
            if eq(target, address()) {
                mstore(0x00, 0x773f5c67) // TargetIsAccount()
                revert(0x1c, 0x04)
            }
            let value := mload(0xe0)
            let gasBefore := gas()
            let success := call(gas(), target, value, d, dataLength, 0x00, 0x00)
            if iszero(success) {
                if lt(gas(), add(div(gasBefore, _STARVED_FRACTION), _GAS_RESERVE)) {
                    mstore(0x00, 0x1c26714c) // InsufficientGas()
                    revert(0x1c, 0x04)
                }
            }
            sstore(_config.slot, unlocked) // unlock: the slot is dirty now, ~100 gas

            // emit Executed(digest, eventId, packCall(target, selector, success), value)
            {
                let selector := 0
                if gt(dataLength, 3) { selector := shr(224, mload(d)) }
                mstore(0x00, or(or(shl(96, target), shl(64, selector)), shl(56, success)))
                mstore(0x20, value)
                log3(0x00, 0x40, _EXECUTED_TOPIC, digest, mload(0x1a0)) // topics: Executed, digest, eventId
            }

            // return abi.encode(success, returndata)
            let n := returndatasize()
            mstore(0x80, success)
            mstore(0xa0, 0x40)
            mstore(0xc0, n)
            returndatacopy(0xe0, 0x00, n)
            mstore(add(0xe0, n), 0) // zero the padding
            return(0x80, add(0x60, and(add(n, 0x1f), not(0x1f))))
        }
    }

    /// @dev EIP-712 digest of the struct (nonce, target, value, dataHash, policyId, decision,
    /// approvalRequired, expiry, eventId) of type `typeHash`: {PDR_TYPEHASH} or
    /// {DELEGATED_PDR_TYPEHASH}. Assembly: hashes the ten words in scratch memory past the free
    /// memory pointer without allocating (saves the ABI re-encoding).
    function _pdrDigest(bytes32 typeHash, address target, uint256 value, bytes32 dataHash, PDRTerms calldata t)
        internal
        view
        override
        returns (bytes32)
    {
        bytes32 structHash;
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, typeHash)
            // PDRTerms is a static struct: its six words are contiguous in calldata. Their
            // uint64/uint8/bool ranges are validated when _checkTerms and the callers read the
            // fields through Solidity, before any state change (dirty words revert there).
            mstore(add(m, 0x20), calldataload(t)) // nonce
            mstore(add(m, 0x40), target)
            mstore(add(m, 0x60), value)
            mstore(add(m, 0x80), dataHash)
            calldatacopy(add(m, 0xa0), add(t, 0x20), 0xa0) // policyId, decision, approvalRequired, expiry, eventId
            structHash := keccak256(m, 0x140)
        }
        return _hashTypedDataV4(structHash);
    }

    /// @dev Checks nonce, decision, expiry and the policy signature; returns the loaded config.
    function _checkPolicy(bytes32 digest, PDRTerms calldata t, Sig calldata s) private view returns (uint256 config) {
        config = _loadConfig();
        _checkTerms(config, t);
        address recovered = ECDSA.recover(digest, s.r, s.vs);
        if (recovered != address(uint160(config))) revert UnauthorizedPolicySigner(recovered);
    }

    /// @dev Checks the PDR's nonce against the policy nonce, its decision and expiry.
    function _checkTerms(uint256 config, PDRTerms calldata t) private view {
        uint64 expected = uint64((config >> _NONCE_SHIFT) & _NONCE_MASK);
        if (t.nonce != expected) revert InvalidNonce(expected, t.nonce);
        if (t.decision != DECISION_ALLOW) revert DecisionNotAllow(t.decision);
        if (block.timestamp > t.expiry) revert PDRExpired(t.expiry, block.timestamp);
    }

    /// @dev {_checkTerms} against the delegated nonce. Its last value (2^39 − 1) is refused too,
    /// so consuming a nonce can never carry out of the field.
    function _checkDelegatedTerms(uint256 config, PDRTerms calldata t) internal view override {
        uint64 expected = uint64((config >> _DELEGATED_NONCE_SHIFT) & _DELEGATED_NONCE_MASK);
        if (t.nonce != expected || expected == _DELEGATED_NONCE_MASK) revert InvalidNonce(expected, t.nonce);
        if (t.decision != DECISION_ALLOW) revert DecisionNotAllow(t.decision);
        if (block.timestamp > t.expiry) revert PDRExpired(t.expiry, block.timestamp);
    }

    /// @dev Requires `required` (at least 1) signatures from distinct approvers, sorted by address.
    function _checkApprovals(bytes32 digest, Sig[] calldata approvals, uint256 required) internal view override {
        if (required == 0) required = 1;
        if (approvals.length < required) revert TooFewApprovals(approvals.length, required);
        address previous;
        for (uint256 i = 0; i < approvals.length; i++) {
            address signer = ECDSA.recover(digest, approvals[i].r, approvals[i].vs);
            if (signer == previous) revert DuplicateApprover(signer);
            if (signer < previous) revert ApproversNotSorted(previous, signer);
            if (!isApprover[signer]) revert NotApprover(signer);
            previous = signer;
        }
    }

    /// @dev Stores policy nonce + 1 with the lock bit set (one SSTORE); {_unlock} clears the bit
    /// once the calls are done. Unchecked: a 48-bit nonce cannot wrap in practice (2^48 calls);
    /// if it did, the explicit mask keeps the carry out of the threshold bits.
    function _consumeNonceAndLock(uint256 config) private {
        unchecked {
            uint256 n = ((config >> _NONCE_SHIFT) + 1) & _NONCE_MASK;
            _config = (config & ~(_NONCE_MASK << _NONCE_SHIFT)) | (n << _NONCE_SHIFT) | _LOCK;
        }
    }

    /// @dev Stores delegated nonce + 1 with the lock bit set (one SSTORE). Unchecked: the
    /// nonce is below 2^39 − 1 ({_checkDelegatedTerms}), so adding 1 stays within its 39 bits.
    function _consumeDelegatedNonceAndLock(uint256 config) private {
        unchecked {
            _config = (config + (uint256(1) << _DELEGATED_NONCE_SHIFT)) | _LOCK;
        }
    }

    /// @dev Clears the lock bit (nothing else can change `_config` while it is set).
    function _unlock() private {
        _config &= ~_LOCK;
    }

    /// @dev Calls out (never delegatecall), emits {Executed}. A failure that may be due to the
    /// 63/64 gas rule (under gasBefore / {_STARVED_FRACTION} + {_GAS_RESERVE} gas left
    /// afterwards) reverts so that relayers cannot burn PDRs.
    function _call(bytes32 digest, bytes32 eventId, address target, uint256 value, bytes calldata data)
        private
        returns (bool success, bytes memory result)
    {
        uint256 gasBefore = gasleft();
        (success, result) = target.call{value: value}(data);
        if (!success && gasleft() < gasBefore / _STARVED_FRACTION + _GAS_RESERVE) revert InsufficientGas();
        bytes4 selector = data.length >= 4 ? bytes4(data[:4]) : bytes4(0);
        emit Executed(digest, eventId, packCall(target, selector, success), value);
    }

    function _setApprover(address approver, bool enabled) private {
        if (approver == address(0)) revert ZeroAddress();
        if (isApprover[approver] == enabled) revert ApproverUnchanged(approver, enabled);
        isApprover[approver] = enabled;
        if (enabled) approverCount++;
        else approverCount--;
        emit ApproverSet(approver, enabled);
    }

    function _checkThreshold(uint256 th, uint256 count) private pure {
        if (count == 0 ? th != 0 : (th == 0 || th > count)) revert InvalidThreshold(th, count);
    }
}
