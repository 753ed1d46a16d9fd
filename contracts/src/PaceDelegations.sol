// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {IPaceSmartAccount} from "./IPaceSmartAccount.sol";

/// @title PaceDelegations: the delegation chains of a PACE account
/// @notice Checks scoped delegation chains (owner → delegate → sub-delegate …, at most
/// {MAX_DELEGATION_DEPTH} links) for {PaceSmartAccount.executeDelegated}, records spending per
/// link, and lets the owner revoke links. Every link is an EIP-712 `Delegation` in the
/// account's domain, signed by its delegator (the owner for the first link, the previous link's
/// delegate after) and identified by its digest ({hashDelegation}), by which {isRevoked} and
/// {spent} are keyed.
/// @dev An abstract base of PaceSmartAccount. It is Ownable and EIP712 because the owner is
/// the root of every chain (and alone may revoke) and links are digests in the account's
/// domain; the account supplies the PDR side through the hooks at the end ({_pdrDigest},
/// {_loadConfig}, {_checkDelegatedTerms}, {_checkApprovals}, {_threshold}), which compile to the same
/// direct jumps as private functions. Its state follows the account's own in storage (slots
/// 6–7, see PaceAccountState), where it was when the account was one contract.
abstract contract PaceDelegations is IPaceSmartAccount, Ownable, EIP712 {
    /// @inheritdoc IPaceSmartAccount
    uint256 public constant MAX_DELEGATION_DEPTH = 4;

    /// @inheritdoc IPaceSmartAccount
    bytes32 public constant DELEGATED_PDR_TYPEHASH = keccak256(
        "DelegatedPDR(uint64 nonce,address target,uint256 value,bytes32 dataHash,bytes32 policyId,uint8 decision,bool approvalRequired,uint64 expiry,bytes32 eventId)"
    );

    /// @inheritdoc IPaceSmartAccount
    bytes32 public constant DELEGATION_TYPEHASH = keccak256(
        "Delegation(address delegator,address delegate,bytes32 parent,address[] targets,bytes4[] selectors,uint256 maxValuePerCall,uint256 maxValueTotal,uint64 expiry,bytes32 salt)"
    );

    /// @notice The data of a delegated call is neither empty (a plain transfer, allowed by a
    /// `0x00000000` entry in `selectors`) nor starts with a nonzero selector: 1–3 bytes carry no
    /// selector, and a function whose selector is `0x00000000` cannot be delegated (a
    /// `0x00000000` entry means "plain transfer", never that function).
    /// @param length the call data's length in bytes (1–3, or at least 4 with a zero selector)
    error UndelegableCalldata(uint256 length);

    /// @inheritdoc IPaceSmartAccount
    mapping(bytes32 delegationHash => bool) public isRevoked;

    /// @inheritdoc IPaceSmartAccount
    mapping(bytes32 delegationHash => uint256) public spent;

    // ---------------------------------------------------------------- revocation

    /// @inheritdoc IPaceSmartAccount
    function revokeDelegation(bytes32 delegationHash) external onlyOwner {
        isRevoked[delegationHash] = true;
        emit DelegationRevoked(delegationHash);
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc IPaceSmartAccount
    function hashDelegatedPDR(address target, uint256 value, bytes calldata data, PDRTerms calldata t)
        external
        view
        returns (bytes32)
    {
        return _pdrDigest(DELEGATED_PDR_TYPEHASH, target, value, keccak256(data), t);
    }

    /// @inheritdoc IPaceSmartAccount
    function hashDelegation(Delegation calldata d) public view returns (bytes32) {
        return _hashTypedDataV4(
            keccak256(
                abi.encode(
                    DELEGATION_TYPEHASH,
                    d.delegator,
                    d.delegate,
                    d.parent,
                    keccak256(abi.encodePacked(d.targets)),
                    keccak256(abi.encodePacked(d.selectors)),
                    d.maxValuePerCall,
                    d.maxValueTotal,
                    d.expiry,
                    d.salt
                )
            )
        );
    }

    // ---------------------------------------------------------------- internals

    /// @dev All checks of {executeDelegated}; records spending and emits {DelegationUsed}.
    function _authorizeDelegated(
        Call calldata c,
        PDRTerms calldata t,
        Sig calldata delegateSig,
        Sig[] calldata approvals,
        SignedDelegation[] calldata chain
    ) internal returns (bytes32 digest, uint256 config) {
        digest = _pdrDigest(DELEGATED_PDR_TYPEHASH, c.target, c.value, keccak256(c.data), t);
        config = _loadConfig();
        _checkDelegatedTerms(config, t);
        (address delegate, bytes32[] memory hashes) = _checkChain(c, chain);
        address recovered = ECDSA.recover(digest, delegateSig.r, delegateSig.vs);
        if (recovered != delegate) revert UnauthorizedDelegate(delegate, recovered);
        if (t.approvalRequired) _checkApprovals(digest, approvals, _threshold(config));
        emit DelegationUsed(digest, delegate, hashes);
    }

    /// @dev Walks the delegation chain; returns the last delegate and the links' digests.
    function _checkChain(Call calldata c, SignedDelegation[] calldata chain)
        private
        returns (address delegate, bytes32[] memory hashes)
    {
        uint256 n = chain.length;
        if (n == 0) revert EmptyDelegationChain();
        if (n > MAX_DELEGATION_DEPTH) revert DelegationChainTooLong(n, MAX_DELEGATION_DEPTH);
        hashes = new bytes32[](n);
        delegate = owner();
        bytes32 parent;
        // Plain transfers (empty data, selector 0x00000000) or a nonzero selector: 1–3 bytes
        // have no selector and would match a 0x00000000 ("plain transfer") entry, as would a
        // function whose selector is 0x00000000 (issue 12, finding 3).
        uint256 length = c.data.length;
        bytes4 selector;
        if (length != 0) {
            if (length < 4) revert UndelegableCalldata(length);
            selector = bytes4(c.data[:4]);
            if (selector == 0) revert UndelegableCalldata(length);
        }
        for (uint256 i = 0; i < n; i++) {
            bytes32 h = _checkLink(i, chain[i], delegate, parent);
            _checkScope(h, chain[i].delegation, c, selector);
            hashes[i] = h;
            parent = h;
            delegate = chain[i].delegation.delegate;
        }
    }

    /// @dev Checks link `i`'s delegator, parent and signature; returns its digest.
    function _checkLink(uint256 i, SignedDelegation calldata link, address delegator, bytes32 parent)
        private
        view
        returns (bytes32 h)
    {
        Delegation calldata d = link.delegation;
        h = hashDelegation(d);
        if (d.delegator != delegator) revert DelegatorMismatch(i, delegator, d.delegator);
        if (d.parent != parent) revert DelegationParentMismatch(i, parent, d.parent);
        address recovered = ECDSA.recover(h, link.signature.r, link.signature.vs);
        if (recovered != delegator) revert InvalidDelegationSignature(i, recovered);
    }

    /// @dev Checks one link's revocation, expiry and scope, and records its spending.
    function _checkScope(bytes32 h, Delegation calldata d, Call calldata c, bytes4 selector) private {
        address target = c.target;
        uint256 value = c.value;
        if (isRevoked[h]) revert RevokedDelegation(h);
        if (block.timestamp > d.expiry) revert DelegationExpired(h, d.expiry);
        if (!_containsAddress(d.targets, target)) revert TargetNotDelegated(h, target);
        if (!_containsSelector(d.selectors, selector)) revert SelectorNotDelegated(h, selector);
        if (value > d.maxValuePerCall) revert ValueOverCallCap(h, value, d.maxValuePerCall);
        if (value != 0) {
            uint256 total = spent[h] + value;
            if (total > d.maxValueTotal) revert ValueOverTotalCap(h, total, d.maxValueTotal);
            spent[h] = total;
        }
    }

    function _containsAddress(address[] calldata list, address a) private pure returns (bool) {
        for (uint256 i = 0; i < list.length; i++) {
            if (list[i] == a) return true;
        }
        return false;
    }

    function _containsSelector(bytes4[] calldata list, bytes4 s) private pure returns (bool) {
        for (uint256 i = 0; i < list.length; i++) {
            if (list[i] == s) return true;
        }
        return false;
    }

    // ---------------------------------------------------------------- hooks (PaceSmartAccount)

    /// @dev The EIP-712 digest of the PDR for a call with this target, value and data hash,
    /// hashed as the struct with type hash `typeHash`: {PaceSmartAccount.PDR_TYPEHASH} for
    /// policy-signed PDRs, {DELEGATED_PDR_TYPEHASH} for delegated ones.
    function _pdrDigest(bytes32 typeHash, address target, uint256 value, bytes32 dataHash, PDRTerms calldata t)
        internal
        view
        virtual
        returns (bytes32);

    /// @dev The account's packed hot-path state; reverts while an execution is calling out.
    function _loadConfig() internal view virtual returns (uint256 config);

    /// @dev Checks the PDR's nonce (against the delegated nonce space), decision and expiry
    /// against `config`.
    function _checkDelegatedTerms(uint256 config, PDRTerms calldata t) internal view virtual;

    /// @dev Requires `required` (at least 1) approver signatures over `digest`, sorted by signer.
    function _checkApprovals(bytes32 digest, Sig[] calldata approvals, uint256 required) internal view virtual;

    /// @dev The approval threshold held in `config`.
    function _threshold(uint256 config) internal pure virtual returns (uint8);
}
