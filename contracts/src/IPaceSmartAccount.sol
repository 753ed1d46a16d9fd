// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// @title IPaceSmartAccount: the external surface of PaceSmartAccount
/// @notice Structs, events, custom errors and functions of a PACE account (Policy-Approved
/// Contract Execution, docs/DESIGN.md §4.7; reference: docs/CONTRACTS.md): execution (ABI, batch,
/// delegated and compact), administration, views and digests. The account also implements
/// ERC-1271 `isValidSignature` (IERC1271; the owner's signatures, bound to the account by
/// ERC-7739 nested EIP-712: see PaceSmartAccount.isValidSignature), Ownable2Step's `owner`,
/// `pendingOwner`, `transferOwnership` and `acceptOwnership` (a two-step transfer;
/// `renounceOwnership` reverts with {RenounceDisabled}), ERC-5267's `eip712Domain`, and accepts
/// plain ETH transfers.
/// @dev The whole external surface of the account apart from what it inherits (IERC1271,
/// Ownable2Step, ERC-5267) and `receive`: structs, events, errors and every function, including
/// those that take structs. The structs' canonical names (`IPaceSmartAccount.PDRTerms`) are
/// their `internalType`s in the ABI, from which abigen names the Go types
/// (`bindings.IPaceSmartAccountPDRTerms`); selectors do not depend on them.
interface IPaceSmartAccount {
    // ---------------------------------------------------------------- structs

    /// @notice The PDR fields that are not implied by the call itself.
    /// @param nonce must equal the account's current nonce in the PDR's space: {delegatedNonce}
    /// for {executeDelegated}, {nonce} for every other entry point
    /// @param policyId identifies the policy (e.g. hash of its canonical encoding) that decided
    /// @param decision must be {DECISION_ALLOW}
    /// @param approvalRequired whether `threshold` approver signatures are required
    /// @param expiry last valid block timestamp (inclusive)
    /// @param eventId the recorder event id of the intent this PDR authorises
    struct PDRTerms {
        uint64 nonce;
        bytes32 policyId;
        uint8 decision;
        bool approvalRequired;
        uint64 expiry;
        bytes32 eventId;
    }

    /// @notice An ERC-2098 compact secp256k1 signature (r, yParity << 255 | s); s must be in the
    /// lower half of the curve order (OpenZeppelin ECDSA rejects malleable signatures).
    struct Sig {
        bytes32 r;
        bytes32 vs;
    }

    /// @notice One call of a batch.
    struct Call {
        address target;
        uint256 value;
        bytes data;
    }

    /// @notice A scoped delegation of the right to sign PDRs. Signed (EIP-712, same domain) by
    /// `delegator`, which is the owner for the first link and the previous link's delegate after.
    /// Empty `targets` or `selectors` allow nothing; plain transfers have selector 0x00000000.
    /// @param delegator the signer of this delegation
    /// @param delegate the key that may sign PDRs (or delegate further) within this scope
    /// @param parent the EIP-712 digest of the previous link, zero for the first
    /// @param targets the call targets allowed
    /// @param selectors the function selectors allowed (first four bytes of calldata)
    /// @param maxValuePerCall the largest value of one call
    /// @param maxValueTotal the largest value of all calls made under this delegation
    /// @param expiry last valid block timestamp (inclusive)
    /// @param salt distinguishes otherwise equal delegations
    struct Delegation {
        address delegator;
        address delegate;
        bytes32 parent;
        address[] targets;
        bytes4[] selectors;
        uint256 maxValuePerCall;
        uint256 maxValueTotal;
        uint64 expiry;
        bytes32 salt;
    }

    /// @notice A delegation with its delegator's signature.
    struct SignedDelegation {
        Delegation delegation;
        Sig signature;
    }

    // ---------------------------------------------------------------- events

    /// @notice A call was executed under the PDR with digest `pdrHash`.
    /// @param pdrHash the EIP-712 digest of the PDR
    /// @param eventId the recorder event id bound in the PDR
    /// @param call the call, packed in one word (two data words in all, instead of four, save
    /// ~500 gas per call): bytes 0–19 the target address, bytes 20–23 the selector (first four
    /// bytes of the calldata, zero when shorter), byte 24 success (1) or failure (0), bytes
    /// 25–31 zero. A batch reverts instead of recording a failed call. See {packCall}.
    /// @param value the wei sent
    event Executed(bytes32 indexed pdrHash, bytes32 indexed eventId, bytes32 call, uint256 value);

    /// @notice A PDR signed by a delegate was accepted; `chain` lists the delegation digests
    /// from the owner's link to the delegate's.
    event DelegationUsed(bytes32 indexed pdrHash, address indexed delegate, bytes32[] chain);

    /// @notice The owner revoked the delegation with digest `delegationHash`.
    event DelegationRevoked(bytes32 indexed delegationHash);

    /// @notice The policy signer changed.
    event PolicySignerChanged(address indexed previousSigner, address indexed newSigner);

    /// @notice An approver was added (`enabled`) or removed.
    event ApproverSet(address indexed approver, bool enabled);

    /// @notice The approval threshold changed.
    event ThresholdChanged(uint8 previousThreshold, uint8 newThreshold);

    // ---------------------------------------------------------------- errors

    /// @notice The PDR's nonce is not the account's current nonce in its space (replay or out
    /// of order): {nonce} for policy-signed PDRs, {delegatedNonce} for delegated ones.
    error InvalidNonce(uint64 expected, uint64 got);

    /// @notice The PDR's decision is not allow.
    error DecisionNotAllow(uint8 decision);

    /// @notice The PDR expired at `expiry`; the block timestamp is `nowTs`.
    error PDRExpired(uint64 expiry, uint256 nowTs);

    /// @notice The PDR for this call was signed by `recovered`, not by the policy signer
    /// (also the outcome when target, value, calldata, chain or account differ from what was signed).
    error UnauthorizedPolicySigner(address recovered);

    /// @notice Fewer valid approvals than the threshold.
    error TooFewApprovals(uint256 got, uint256 threshold);

    /// @notice `signer` signed an approval but is not an approver.
    error NotApprover(address signer);

    /// @notice The same approver signed twice.
    error DuplicateApprover(address approver);

    /// @notice Approval signatures must be sorted by strictly increasing signer address.
    error ApproversNotSorted(address previous, address next);

    /// @notice A batch call failed; the batch was reverted and the nonce not consumed.
    error CallFailed(uint256 index, bytes returnData);

    /// @notice The external call failed with under gasBefore/16 + 10,000 gas left (gasBefore:
    /// the gas left just before the call), so it may have run out of the gas the sender
    /// supplied (EIP-150 forwards 63/64, and each proxy-like hop hands back 1/64): the
    /// transaction reverts so that a relayer cannot burn a PDR by under-funding it. The PDR
    /// stays valid; resubmit with more gas.
    error InsufficientGas();

    /// @notice A delegated PDR came with no delegation chain.
    error EmptyDelegationChain();

    /// @notice The delegation chain is longer than {MAX_DELEGATION_DEPTH}.
    error DelegationChainTooLong(uint256 length, uint256 max);

    /// @notice Link `index` names `got` as delegator where `expected` (owner or previous delegate) must be.
    error DelegatorMismatch(uint256 index, address expected, address got);

    /// @notice Link `index` points to parent `got`, not to the previous link `expected`.
    error DelegationParentMismatch(uint256 index, bytes32 expected, bytes32 got);

    /// @notice Link `index` was signed by `recovered`, not by its delegator.
    error InvalidDelegationSignature(uint256 index, address recovered);

    /// @notice The delegation has been revoked by the owner.
    error RevokedDelegation(bytes32 delegationHash);

    /// @notice The delegation expired at `expiry`.
    error DelegationExpired(bytes32 delegationHash, uint64 expiry);

    /// @notice `target` is not in the delegation's targets.
    error TargetNotDelegated(bytes32 delegationHash, address target);

    /// @notice `selector` is not in the delegation's selectors.
    error SelectorNotDelegated(bytes32 delegationHash, bytes4 selector);

    /// @notice `value` exceeds the delegation's per-call cap.
    error ValueOverCallCap(bytes32 delegationHash, uint256 value, uint256 cap);

    /// @notice Spending would bring the delegation's total to `total`, above its cap.
    error ValueOverTotalCap(bytes32 delegationHash, uint256 total, uint256 cap);

    /// @notice The PDR was signed by `recovered`, not by the chain's last delegate `delegate`.
    error UnauthorizedDelegate(address delegate, address recovered);

    /// @notice Compact execution calldata ({executeCompact_dFki0}) is shorter than its header,
    /// approvals and value, its approvalRequired byte is above 1, or its value is longer than
    /// 32 bytes or not minimal (a leading zero byte).
    error MalformedCompactCall();

    /// @notice A single call ({execute}, {executeWithApprovals}, {executeCompact_dFki0},
    /// {executeDelegated}) may not target the account itself. A PDR whose target is this account
    /// is a batch PDR ({executeBatch}); submitted as one call to the account it could only fail,
    /// and would burn its nonce. Administration is the owner's, never a PDR's.
    error TargetIsAccount();

    /// @notice `account` cannot be both the policy signer and an approver: one key would then be
    /// both the policy and the human that a PDR requiring approval needs.
    error PolicySignerIsApprover(address account);

    /// @notice A zero address was given where a key is required.
    error ZeroAddress();

    /// @notice The threshold must be between 1 and the number of approvers (0 only with none).
    error InvalidThreshold(uint256 threshold, uint256 approverCount);

    /// @notice The approver is already in the requested state.
    error ApproverUnchanged(address approver, bool enabled);

    /// @notice Renouncing ownership would make keys impossible to rotate and delegations
    /// impossible to revoke.
    error RenounceDisabled();

    /// @notice An execution was re-entered (through its target), or the owner tried to rotate the
    /// policy signer or threshold while an execution is calling out. Same selector as
    /// OpenZeppelin's ReentrancyGuard error.
    error ReentrancyGuardReentrantCall();

    // ---------------------------------------------------------------- execution

    /// @notice Executes one call under a PDR that does not require human approval.
    /// @param target the address to call
    /// @param value the wei to send
    /// @param data the calldata
    /// @param t the PDR terms
    /// @param policySig the policy signer's signature over the PDR digest
    /// @return success whether the call succeeded
    /// @return result the call's return data (or revert data)
    function execute(address target, uint256 value, bytes calldata data, PDRTerms calldata t, Sig calldata policySig)
        external
        payable
        returns (bool success, bytes memory result);

    /// @notice Executes one call under a PDR, checking approver signatures when it requires them.
    /// @param target the address to call
    /// @param value the wei to send
    /// @param data the calldata
    /// @param t the PDR terms
    /// @param policySig the policy signer's signature over the PDR digest
    /// @param approvals approver signatures over the PDR digest, sorted by signer address
    /// @return success whether the call succeeded
    /// @return result the call's return data (or revert data)
    function executeWithApprovals(
        address target,
        uint256 value,
        bytes calldata data,
        PDRTerms calldata t,
        Sig calldata policySig,
        Sig[] calldata approvals
    ) external payable returns (bool success, bytes memory result);

    /// @notice Executes a batch atomically under one PDR (target = this account, value = sum of
    /// values, dataHash = keccak256(abi.encode(calls))). Any failing call reverts the batch.
    /// @param calls the calls, in order
    /// @param t the PDR terms
    /// @param policySig the policy signer's signature over the batch PDR digest
    /// @param approvals approver signatures, sorted by signer, when the PDR requires approval
    function executeBatch(Call[] calldata calls, PDRTerms calldata t, Sig calldata policySig, Sig[] calldata approvals)
        external
        payable;

    /// @notice Executes one call under a PDR signed by a delegate, checking the whole delegation
    /// chain (owner → … → delegate) against the call and recording spending against each link.
    /// The PDR is the EIP-712 struct `DelegatedPDR` ({DELEGATED_PDR_TYPEHASH}, digest
    /// {hashDelegatedPDR}), never `PDR`: a policy-signed PDR cannot execute here, even when the
    /// chain delegates to the policy signer's key, nor a delegated one through the other entry
    /// points.
    /// @param c the call
    /// @param t the PDR terms
    /// @param delegateSig the last delegate's signature over the delegated PDR digest
    /// @param approvals approver signatures over the same digest, sorted by signer, when the PDR
    /// requires approval
    /// @param chain the delegation chain, owner's link first
    /// @return success whether the call succeeded
    /// @return result the call's return data (or revert data)
    function executeDelegated(
        Call calldata c,
        PDRTerms calldata t,
        Sig calldata delegateSig,
        Sig[] calldata approvals,
        SignedDelegation[] calldata chain
    ) external payable returns (bool success, bytes memory result);

    /// @notice The compact form of {execute} and {executeWithApprovals}: the same PDR checks,
    /// effects, event, errors and return value (abi.encode(success, returndata)) for calldata
    /// packed without ABI padding, which saves ~2,000 gas of calldata and decoding per call
    /// (docs/CONTRACTS.md, "Compact calldata"). The selector 0x0000008d was mined to be the
    /// lowest of this contract, so Solidity's dispatcher finds it first (the technique of
    /// Seaport's `fulfillBasicOrder_efficient_6GL6yc`); the arguments follow it, big-endian and
    /// unpadded, where Solidity's ABI decoder does not look:
    ///
    ///     0    4   selector 0x0000008d        44   32  policyId
    ///     4   20   target                     76   32  eventId
    ///     24   8   nonce (uint64)             108  64  policy signature r ‖ vs
    ///     32   8   expiry (uint64)            172  64n approvals r ‖ vs, sorted by signer
    ///     40   1   decision (uint8)           172 + 64n       L bytes: value, minimal big-endian
    ///     41   1   approvalRequired (0 or 1)  172 + 64n + L   the call data: every remaining byte
    ///     42   1   n, the number of approvals
    ///     43   1   L, the length of value (0–32; 0 for a zero value)
    ///
    /// The EIP-712 PDR signed is the same as for {execute}. Calldata shorter than 172 + 64n + L
    /// bytes, with approvalRequired above 1, L above 32 or a value with a leading zero byte
    /// reverts with {MalformedCompactCall}. With n = 0 and approval required it reverts with
    /// TooFewApprovals(0, max(threshold, 1)), as {executeWithApprovals} does without approvals.
    /// @return success whether the call succeeded
    /// @return result the call's return data (or revert data)
    function executeCompact_dFki0() external payable returns (bool success, bytes memory result);

    // ---------------------------------------------------------------- administration

    /// @notice Rotates the policy signer.
    function setPolicySigner(address newSigner) external;

    /// @notice Adds (`enabled`) or removes an approver. Removing one may not leave the threshold
    /// above the number of approvers.
    function setApprover(address approver, bool enabled) external;

    /// @notice Sets how many approvals a PDR that requires human approval needs.
    function setThreshold(uint8 newThreshold) external;

    /// @notice Revokes a delegation (and with it every delegation below it in a chain).
    function revokeDelegation(bytes32 delegationHash) external;

    // ---------------------------------------------------------------- views

    /// @notice The only decision value that executes.
    function DECISION_ALLOW() external view returns (uint8);

    /// @notice The longest delegation chain accepted (bounds the gas of a delegated call).
    function MAX_DELEGATION_DEPTH() external view returns (uint256);

    /// @notice EIP-712 type hash of the PDR struct, signed for {execute}, {executeWithApprovals},
    /// the compact form and {executeBatch}: keccak256("PDR(uint64 nonce,address target,uint256
    /// value,bytes32 dataHash,bytes32 policyId,uint8 decision,bool approvalRequired,uint64
    /// expiry,bytes32 eventId)").
    function PDR_TYPEHASH() external view returns (bytes32);

    /// @notice EIP-712 type hash of the DelegatedPDR struct, signed for {executeDelegated}: the
    /// fields of {PDR_TYPEHASH}'s struct under another name, keccak256("DelegatedPDR(uint64
    /// nonce,address target,uint256 value,bytes32 dataHash,bytes32 policyId,uint8 decision,bool
    /// approvalRequired,uint64 expiry,bytes32 eventId)").
    function DELEGATED_PDR_TYPEHASH() external view returns (bytes32);

    /// @notice EIP-712 type hash of the Delegation struct.
    function DELEGATION_TYPEHASH() external view returns (bytes32);

    /// @notice Whether an address is an approver.
    function isApprover(address approver) external view returns (bool);

    /// @notice Number of approvers.
    function approverCount() external view returns (uint256);

    /// @notice Whether the delegation with this EIP-712 digest was revoked.
    function isRevoked(bytes32 delegationHash) external view returns (bool);

    /// @notice Value spent so far under the delegation with this EIP-712 digest.
    function spent(bytes32 delegationHash) external view returns (uint256);

    /// @notice The nonce the next policy-signed PDR must carry ({execute}, {executeWithApprovals},
    /// the compact form, {executeBatch}). 48 bits: a PDR with a nonce of 2^48 or more never
    /// executes.
    function nonce() external view returns (uint64);

    /// @notice The nonce the next delegated PDR must carry ({executeDelegated}); a separate
    /// space, so delegates cannot invalidate pending policy PDRs (issue 12, finding 7). 39 bits:
    /// a delegated PDR with a nonce of 2^39 − 1 or more never executes.
    function delegatedNonce() external view returns (uint64);

    /// @notice The key that signs PDRs.
    function policySigner() external view returns (address);

    /// @notice Approvals required when a PDR requires human approval.
    function threshold() external view returns (uint8);

    /// @notice The EIP-712 domain separator of this account on this chain.
    function domainSeparator() external view returns (bytes32);

    /// @notice The EIP-712 digest of the PDR for one call, policy-signed ({PDR_TYPEHASH}).
    function hashPDR(address target, uint256 value, bytes calldata data, PDRTerms calldata t)
        external
        view
        returns (bytes32);

    /// @notice The EIP-712 digest of the delegated PDR for one call ({DELEGATED_PDR_TYPEHASH},
    /// {executeDelegated}).
    function hashDelegatedPDR(address target, uint256 value, bytes calldata data, PDRTerms calldata t)
        external
        view
        returns (bytes32);

    /// @notice The EIP-712 digest of the PDR for a batch.
    function hashBatch(Call[] calldata calls, PDRTerms calldata t) external view returns (bytes32);

    /// @notice The EIP-712 digest of a delegation (its id for revocation, parents and spending).
    function hashDelegation(Delegation calldata d) external view returns (bytes32);

    /// @notice The `call` word of {Executed}: target ‖ selector ‖ success byte ‖ seven zero bytes.
    function packCall(address target, bytes4 selector, bool success) external pure returns (bytes32);
}
