// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {Test} from "./utils/Test.sol";
import {Sink, Counter, Reenterer, AdminTarget, Hungry, Relay} from "./utils/Targets.sol";
import {IPaceSmartAccount} from "../src/IPaceSmartAccount.sol";
import {PaceSmartAccount} from "../src/PaceSmartAccount.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";

/// @dev Keys, deployment and signing helpers shared by the PACE test contracts.
abstract contract PaceBase is Test {
    uint256 internal constant OWNER_KEY = 0xA11CE;
    uint256 internal constant POLICY_KEY = 0xB0B;
    uint256 internal constant APPROVER1_KEY = 0xC001;
    uint256 internal constant APPROVER2_KEY = 0xC002;
    uint256 internal constant APPROVER3_KEY = 0xC003;
    uint256 internal constant DELEGATE_KEY = 0xD001;
    uint256 internal constant SUBDELEGATE_KEY = 0xD002;
    uint256 internal constant ATTACKER_KEY = 0xBAD;

    bytes32 internal constant POLICY_ID = keccak256("policy:test");
    bytes32 internal constant EVENT_ID = keccak256("event:1");
    uint256 internal constant START = 1_700_000_000;

    /// @dev Hungry.eat(ROUNDS) needs about 800,000 gas: a call for which 1/64 of the gas
    /// forwarded exceeds the old 10,000 gas reserve.
    uint256 internal constant ROUNDS = 7_800;

    PaceSmartAccount internal account;
    Sink internal sink;
    Counter internal counter;

    event Executed(bytes32 indexed pdrHash, bytes32 indexed eventId, bytes32 call, uint256 value);
    event DelegationUsed(bytes32 indexed pdrHash, address indexed delegate, bytes32[] chain);

    function setUp() public virtual {
        vm.warp(START);
        address[] memory approvers = new address[](3);
        approvers[0] = vm.addr(APPROVER1_KEY);
        approvers[1] = vm.addr(APPROVER2_KEY);
        approvers[2] = vm.addr(APPROVER3_KEY);
        account = new PaceSmartAccount(vm.addr(OWNER_KEY), vm.addr(POLICY_KEY), approvers, 1);
        sink = new Sink();
        counter = new Counter();
        vm.deal(address(account), 100 ether);
    }

    function terms(uint64 n, bool approval) internal view returns (IPaceSmartAccount.PDRTerms memory) {
        return IPaceSmartAccount.PDRTerms({
            nonce: n,
            policyId: POLICY_ID,
            decision: 1,
            approvalRequired: approval,
            expiry: uint64(block.timestamp + 1 hours),
            eventId: EVENT_ID
        });
    }

    function signDigest(uint256 key, bytes32 digest) internal pure returns (IPaceSmartAccount.Sig memory) {
        (bytes32 r, bytes32 vs) = vm.signCompact(key, digest);
        return IPaceSmartAccount.Sig(r, vs);
    }

    function signPDR(uint256 key, address target, uint256 value, bytes memory data, IPaceSmartAccount.PDRTerms memory t)
        internal
        view
        returns (IPaceSmartAccount.Sig memory)
    {
        return signDigest(key, account.hashPDR(target, value, data, t));
    }

    /// @dev A delegate's signature over the delegated PDR ({executeDelegated}).
    function signDelegatedPDR(
        uint256 key,
        address target,
        uint256 value,
        bytes memory data,
        IPaceSmartAccount.PDRTerms memory t
    ) internal view returns (IPaceSmartAccount.Sig memory) {
        return signDigest(key, account.hashDelegatedPDR(target, value, data, t));
    }

    /// @dev Approver signatures sorted by signer address, as the account requires.
    function approvalsBy(uint256[] memory keys, bytes32 digest)
        internal
        pure
        returns (IPaceSmartAccount.Sig[] memory sigs)
    {
        for (uint256 i = 1; i < keys.length; i++) {
            for (uint256 j = i; j > 0 && vm.addr(keys[j - 1]) > vm.addr(keys[j]); j--) {
                (keys[j - 1], keys[j]) = (keys[j], keys[j - 1]);
            }
        }
        sigs = new IPaceSmartAccount.Sig[](keys.length);
        for (uint256 i = 0; i < keys.length; i++) {
            sigs[i] = signDigest(keys[i], digest);
        }
    }

    /// @dev The `call` word of Executed, packed independently of the contract.
    function packCall(address target, bytes4 selector, bool success) internal pure returns (bytes32) {
        return bytes32(abi.encodePacked(target, selector, success, bytes7(0)));
    }

    function one(uint256 k) internal pure returns (uint256[] memory a) {
        a = new uint256[](1);
        a[0] = k;
    }

    function two(uint256 k1, uint256 k2) internal pure returns (uint256[] memory a) {
        a = new uint256[](2);
        a[0] = k1;
        a[1] = k2;
    }

    function bumpData(uint256 by) internal pure returns (bytes memory) {
        return abi.encodeCall(Counter.bump, (by));
    }

    /// @dev What the owner signs for ERC-1271 `hash` on this account (ERC-7739 PersonalSign).
    function erc1271Digest(bytes32 hash) internal view returns (bytes32) {
        bytes32 structHash = keccak256(abi.encode(keccak256("PersonalSign(bytes prefixed)"), hash));
        return keccak256(abi.encodePacked("\x19\x01", account.domainSeparator(), structHash));
    }

    /// @dev The malleable twin of a compact signature: s' = N − s with the parity bit flipped.
    function malleate(IPaceSmartAccount.Sig memory s) internal pure returns (IPaceSmartAccount.Sig memory) {
        uint256 vs = uint256(s.vs);
        uint256 lowS = vs & ((uint256(1) << 255) - 1);
        uint256 parity = vs >> 255;
        uint256 highS = SECP256K1_N - lowS;
        return IPaceSmartAccount.Sig(s.r, bytes32(((1 - parity) << 255) | highS));
    }

    /// @dev The policy-signed PDR's EIP-712 type (execute, executeWithApprovals, compact, batch).
    string internal constant PDR_TYPE =
        "PDR(uint64 nonce,address target,uint256 value,bytes32 dataHash,bytes32 policyId,uint8 decision,bool approvalRequired,uint64 expiry,bytes32 eventId)";

    /// @dev The delegated PDR's EIP-712 type (executeDelegated): the same fields, another name.
    string internal constant DELEGATED_PDR_TYPE =
        "DelegatedPDR(uint64 nonce,address target,uint256 value,bytes32 dataHash,bytes32 policyId,uint8 decision,bool approvalRequired,uint64 expiry,bytes32 eventId)";

    /// @dev EIP-712 digest of the policy-signed PDR, computed independently of the contract's assembly.
    function referenceDigest(address target, uint256 value, bytes memory data, IPaceSmartAccount.PDRTerms memory t)
        internal
        view
        returns (bytes32)
    {
        return referenceDigestOf(PDR_TYPE, target, value, data, t);
    }

    /// @dev EIP-712 digest of the PDR fields under the type string `typeString`, computed
    /// independently of the contract.
    function referenceDigestOf(
        string memory typeString,
        address target,
        uint256 value,
        bytes memory data,
        IPaceSmartAccount.PDRTerms memory t
    ) internal view returns (bytes32) {
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("PaceSmartAccount"),
                keccak256("1"),
                block.chainid,
                address(account)
            )
        );
        bytes32 structHash = keccak256(
            abi.encode(
                keccak256(bytes(typeString)),
                t.nonce,
                target,
                value,
                keccak256(data),
                t.policyId,
                t.decision,
                t.approvalRequired,
                t.expiry,
                t.eventId
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", domain, structHash));
    }

    // ---- submission through the ABI entry points or the compact calldata ----

    /// @dev When set, the exec helpers submit compact calldata ({PaceSmartAccount.executeCompact_dFki0})
    /// instead of calling execute / executeWithApprovals.
    bool internal compact;

    /// @dev Compact calldata, encoded independently of the contract (docs/CONTRACTS.md).
    function compactCalldata(
        address target,
        uint256 value,
        bytes memory data,
        IPaceSmartAccount.PDRTerms memory t,
        IPaceSmartAccount.Sig memory s,
        IPaceSmartAccount.Sig[] memory a
    ) internal pure returns (bytes memory cd) {
        uint256 valueLength;
        while (valueLength < 32 && value >> (8 * valueLength) != 0) valueLength++;
        bytes memory packedValue = new bytes(valueLength);
        for (uint256 i = 0; i < valueLength; i++) {
            packedValue[i] = bytes1(uint8(value >> (8 * (valueLength - 1 - i))));
        }
        bytes memory sigs = abi.encodePacked(s.r, s.vs);
        for (uint256 i = 0; i < a.length; i++) {
            sigs = abi.encodePacked(sigs, a[i].r, a[i].vs);
        }
        cd = abi.encodePacked(
            bytes4(0x0000008d),
            target,
            t.nonce,
            t.expiry,
            t.decision,
            t.approvalRequired,
            uint8(a.length),
            uint8(valueLength),
            t.policyId,
            t.eventId
        );
        cd = abi.encodePacked(cd, sigs, packedValue, data);
    }

    /// @dev The calldata of one execution in the current mode: execute (ABI, no approvals) or
    /// compact.
    function execCalldata(
        address target,
        uint256 value,
        bytes memory data,
        IPaceSmartAccount.PDRTerms memory t,
        IPaceSmartAccount.Sig memory s
    ) internal view returns (bytes memory) {
        if (compact) {
            return compactCalldata(target, value, data, t, s, new IPaceSmartAccount.Sig[](0));
        }
        return abi.encodeCall(PaceSmartAccount.execute, (target, value, data, t, s));
    }

    /// @dev The calldata of one execution with approvals in the current mode.
    function execApprovedCalldata(
        address target,
        uint256 value,
        bytes memory data,
        IPaceSmartAccount.PDRTerms memory t,
        IPaceSmartAccount.Sig memory s,
        IPaceSmartAccount.Sig[] memory a
    ) internal view returns (bytes memory) {
        if (compact) return compactCalldata(target, value, data, t, s, a);
        return abi.encodeCall(PaceSmartAccount.executeWithApprovals, (target, value, data, t, s, a));
    }

    /// @dev Sends execution calldata, bubbling a revert up (so vm.expectRevert sees the
    /// account's error) and decoding the (success, result) return value.
    function submit(bytes memory cd, uint256 gasLimit) internal returns (bool ok, bytes memory ret) {
        (bool success, bytes memory out) = address(account).call{gas: gasLimit}(cd);
        if (!success) {
            assembly ("memory-safe") {
                revert(add(out, 0x20), mload(out))
            }
        }
        if (out.length == 0) return (false, out); // a revert caught by vm.expectRevert
        return abi.decode(out, (bool, bytes));
    }

    /// @dev execute, or its compact form.
    function exec(
        address target,
        uint256 value,
        bytes memory data,
        IPaceSmartAccount.PDRTerms memory t,
        IPaceSmartAccount.Sig memory s
    ) internal returns (bool ok, bytes memory ret) {
        return submit(execCalldata(target, value, data, t, s), gasleft());
    }

    /// @dev executeWithApprovals, or its compact form.
    function execApproved(
        address target,
        uint256 value,
        bytes memory data,
        IPaceSmartAccount.PDRTerms memory t,
        IPaceSmartAccount.Sig memory s,
        IPaceSmartAccount.Sig[] memory a
    ) internal returns (bool ok, bytes memory ret) {
        return submit(execApprovedCalldata(target, value, data, t, s, a), gasleft());
    }

    // ---- delegation helpers ----

    function scope(address delegator, address delegate, bytes32 parent)
        internal
        view
        returns (IPaceSmartAccount.Delegation memory d)
    {
        address[] memory targets = new address[](1);
        targets[0] = address(counter);
        bytes4[] memory selectors = new bytes4[](1);
        selectors[0] = Counter.bump.selector;
        d = IPaceSmartAccount.Delegation({
            delegator: delegator,
            delegate: delegate,
            parent: parent,
            targets: targets,
            selectors: selectors,
            maxValuePerCall: 1 ether,
            maxValueTotal: 3 ether,
            expiry: uint64(block.timestamp + 1 days),
            salt: bytes32(0)
        });
    }

    function signDelegation(uint256 key, IPaceSmartAccount.Delegation memory d)
        internal
        view
        returns (IPaceSmartAccount.SignedDelegation memory)
    {
        return IPaceSmartAccount.SignedDelegation(d, signDigest(key, account.hashDelegation(d)));
    }

    function chainOf(IPaceSmartAccount.SignedDelegation memory a)
        internal
        pure
        returns (IPaceSmartAccount.SignedDelegation[] memory c)
    {
        c = new IPaceSmartAccount.SignedDelegation[](1);
        c[0] = a;
    }

    function ownerToDelegate() internal view returns (IPaceSmartAccount.SignedDelegation[] memory) {
        return chainOf(signDelegation(OWNER_KEY, scope(vm.addr(OWNER_KEY), vm.addr(DELEGATE_KEY), 0)));
    }

    /// @dev A delegation with zero value caps: the weakest delegate (finding 7).
    function zeroCapChain() internal view returns (IPaceSmartAccount.SignedDelegation[] memory) {
        IPaceSmartAccount.Delegation memory d = scope(vm.addr(OWNER_KEY), vm.addr(DELEGATE_KEY), 0);
        d.maxValuePerCall = 0;
        d.maxValueTotal = 0;
        return chainOf(signDelegation(OWNER_KEY, d));
    }

    /// @dev The nonce the next delegated PDR must carry.
    function delegatedNonce() internal view returns (uint256) {
        return account.delegatedNonce();
    }

    function execDelegated(
        uint256 pdrKey,
        IPaceSmartAccount.Call memory c,
        IPaceSmartAccount.PDRTerms memory t,
        IPaceSmartAccount.SignedDelegation[] memory chain
    ) internal returns (bool ok) {
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(pdrKey, c.target, c.value, c.data, t);
        (ok,) = account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
    }
}

/// @dev Single-call executions and every attack on them, run through the ABI entry points
/// ({PaceSmartAccountTest}) and through the compact calldata ({PaceCompactTest}).
abstract contract PaceExecutionTest is PaceBase {
    function test_ExecutesWithPolicySignature() public {
        bytes memory data = bumpData(5);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 0, data, t);
        bytes32 digest = account.hashPDR(address(counter), 0, data, t);

        vm.expectEmit(address(account));
        emit Executed(digest, EVENT_ID, packCall(address(counter), Counter.bump.selector, true), 0);
        (bool ok,) = exec(address(counter), 0, data, t, s);

        vm.assertTrue(ok, "call succeeded");
        vm.assertEq(counter.count(), 5, "effect");
        vm.assertEq(counter.lastCaller(), address(account), "called by the account");
        vm.assertEq(uint256(account.nonce()), 1, "nonce consumed");
    }

    function test_ExecutesWithValue() public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        exec(address(counter), 2 ether, data, t, signPDR(POLICY_KEY, address(counter), 2 ether, data, t));
        vm.assertEq(counter.received(), 2 ether, "value delivered");
        vm.assertEq(address(account).balance, 98 ether, "value left the account");
    }

    function test_ExecutesWithApprovals() public {
        vm.prank(vm.addr(OWNER_KEY));
        account.setThreshold(2);
        bytes memory data = bumpData(7);
        IPaceSmartAccount.PDRTerms memory t = terms(0, true);
        bytes32 digest = account.hashPDR(address(counter), 0, data, t);
        (bool ok,) = execApproved(
            address(counter),
            0,
            data,
            t,
            signDigest(POLICY_KEY, digest),
            approvalsBy(two(APPROVER1_KEY, APPROVER3_KEY), digest)
        );
        vm.assertTrue(ok, "call succeeded");
        vm.assertEq(counter.count(), 7, "effect");
    }

    function test_ApprovalsIgnoredWhenNotRequired() public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        (bool ok,) = execApproved(
            address(counter),
            0,
            data,
            t,
            signPDR(POLICY_KEY, address(counter), 0, data, t),
            new IPaceSmartAccount.Sig[](0)
        );
        vm.assertTrue(ok, "executed without approvals");
    }

    function test_FailedCallConsumesNonceAndIsRecorded() public {
        bytes memory data = abi.encodeCall(Counter.fail, (42));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        bytes32 digest = account.hashPDR(address(counter), 0, data, t);
        vm.expectEmit(address(account));
        emit Executed(digest, EVENT_ID, packCall(address(counter), Counter.fail.selector, false), 0);
        (bool ok, bytes memory ret) = exec(address(counter), 0, data, t, signDigest(POLICY_KEY, digest));
        vm.assertFalse(ok, "call failed");
        vm.assertEq(ret, abi.encodeWithSelector(Counter.Boom.selector, 42), "revert data returned");
        vm.assertEq(uint256(account.nonce()), 1, "nonce consumed");
    }

    function test_RevertWhen_BatchPDRUsedForSingleCall() public {
        IPaceSmartAccount.Call[] memory calls = new IPaceSmartAccount.Call[](1);
        calls[0] = IPaceSmartAccount.Call(address(counter), 0, bumpData(2));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDigest(POLICY_KEY, account.hashBatch(calls, t));
        vm.expectPartialRevert(IPaceSmartAccount.UnauthorizedPolicySigner.selector);
        exec(address(counter), 0, bumpData(2), t, s);
    }

    function test_RevertWhen_WrongSigner() public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signPDR(ATTACKER_KEY, address(counter), 0, data, t);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceSmartAccount.UnauthorizedPolicySigner.selector, vm.addr(ATTACKER_KEY))
        );
        exec(address(counter), 0, data, t, s);
    }

    function test_RevertWhen_NonceReplayed() public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 0, data, t);
        exec(address(counter), 0, data, t, s);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.InvalidNonce.selector, uint64(1), uint64(0)));
        exec(address(counter), 0, data, t, s);
    }

    function test_RevertWhen_OtherChainId() public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 0, data, t);
        vm.chainId(block.chainid + 1);
        vm.expectPartialRevert(IPaceSmartAccount.UnauthorizedPolicySigner.selector);
        exec(address(counter), 0, data, t, s);
    }

    function test_RevertWhen_OtherAccount() public {
        address[] memory none = new address[](0);
        PaceSmartAccount other = new PaceSmartAccount(vm.addr(OWNER_KEY), vm.addr(POLICY_KEY), none, 0);
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 0, data, t); // for `account`
        vm.expectPartialRevert(IPaceSmartAccount.UnauthorizedPolicySigner.selector);
        account = other;
        exec(address(counter), 0, data, t, s);
    }

    function test_RevertWhen_Expired() public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 0, data, t);
        vm.warp(uint256(t.expiry) + 1);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.PDRExpired.selector, t.expiry, uint256(t.expiry) + 1));
        exec(address(counter), 0, data, t, s);
    }

    function test_RevertWhen_CalldataDiffers() public {
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 0, bumpData(1), t);
        vm.expectPartialRevert(IPaceSmartAccount.UnauthorizedPolicySigner.selector);
        exec(address(counter), 0, bumpData(1000), t, s);
    }

    function test_RevertWhen_ValueDiffers() public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 0, data, t);
        vm.expectPartialRevert(IPaceSmartAccount.UnauthorizedPolicySigner.selector);
        exec(address(counter), 50 ether, data, t, s);
    }

    function test_RevertWhen_TargetDiffers() public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 0, data, t);
        vm.expectPartialRevert(IPaceSmartAccount.UnauthorizedPolicySigner.selector);
        exec(address(sink), 0, data, t, s);
    }

    function test_RevertWhen_DecisionDeny() public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        t.decision = 0;
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 0, data, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.DecisionNotAllow.selector, uint8(0)));
        exec(address(counter), 0, data, t, s);
    }

    function test_RevertWhen_ApprovalRequiredButNoneGiven() public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, true);
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 0, data, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.TooFewApprovals.selector, 0, 1));
        exec(address(counter), 0, data, t, s);
    }

    function test_RevertWhen_TooFewApprovers() public {
        vm.prank(vm.addr(OWNER_KEY));
        account.setThreshold(2);
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, true);
        bytes32 digest = account.hashPDR(address(counter), 0, data, t);
        IPaceSmartAccount.Sig memory s = signDigest(POLICY_KEY, digest);
        IPaceSmartAccount.Sig[] memory a = approvalsBy(one(APPROVER1_KEY), digest);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.TooFewApprovals.selector, 1, 2));
        execApproved(address(counter), 0, data, t, s, a);
    }

    function test_RevertWhen_DuplicateApprover() public {
        vm.prank(vm.addr(OWNER_KEY));
        account.setThreshold(2);
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, true);
        bytes32 digest = account.hashPDR(address(counter), 0, data, t);
        IPaceSmartAccount.Sig[] memory a = new IPaceSmartAccount.Sig[](2);
        a[0] = signDigest(APPROVER1_KEY, digest);
        a[1] = a[0];
        IPaceSmartAccount.Sig memory s = signDigest(POLICY_KEY, digest);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.DuplicateApprover.selector, vm.addr(APPROVER1_KEY)));
        execApproved(address(counter), 0, data, t, s, a);
    }

    function test_RevertWhen_ApproversUnsorted() public {
        vm.prank(vm.addr(OWNER_KEY));
        account.setThreshold(2);
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, true);
        bytes32 digest = account.hashPDR(address(counter), 0, data, t);
        IPaceSmartAccount.Sig[] memory a = approvalsBy(two(APPROVER1_KEY, APPROVER2_KEY), digest);
        (a[0], a[1]) = (a[1], a[0]);
        address hi = ECDSA.recover(digest, a[0].r, a[0].vs);
        address lo = ECDSA.recover(digest, a[1].r, a[1].vs);
        IPaceSmartAccount.Sig memory s = signDigest(POLICY_KEY, digest);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.ApproversNotSorted.selector, hi, lo));
        execApproved(address(counter), 0, data, t, s, a);
    }

    function test_RevertWhen_ApproverNotListed() public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, true);
        bytes32 digest = account.hashPDR(address(counter), 0, data, t);
        IPaceSmartAccount.Sig memory s = signDigest(POLICY_KEY, digest);
        IPaceSmartAccount.Sig[] memory a = approvalsBy(one(ATTACKER_KEY), digest);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.NotApprover.selector, vm.addr(ATTACKER_KEY)));
        execApproved(address(counter), 0, data, t, s, a);
    }

    /// @dev The malleable twin (r, N − s, v ^ 1) of a valid signature cannot be expressed as an
    /// ERC-2098 compact signature (N − s ≥ 2^255 spills into the parity bit), so it recovers to
    /// another address; the high-s values that do fit are rejected by OpenZeppelin's s check.
    function test_RevertWhen_PolicySignatureMalleable() public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory twin = malleate(signPDR(POLICY_KEY, address(counter), 0, data, t));
        (bool ok,) = address(account).call(execCalldata(address(counter), 0, data, t, twin));
        vm.assertFalse(ok, "malleated twin accepted");

        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 0, data, t);
        bytes32 highS = bytes32(SECP256K1_N / 2 + 1); // < 2^255: representable, but not low-s
        s.vs = highS;
        vm.expectRevert(abi.encodeWithSelector(ECDSA.ECDSAInvalidSignatureS.selector, highS));
        exec(address(counter), 0, data, t, s);
        vm.assertEq(uint256(account.nonce()), 0, "nothing executed");
    }

    function test_RevertWhen_ApprovalSignatureMalleable() public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, true);
        bytes32 digest = account.hashPDR(address(counter), 0, data, t);
        IPaceSmartAccount.Sig[] memory a = approvalsBy(one(APPROVER1_KEY), digest);
        a[0].vs = bytes32(SECP256K1_N / 2 + 7); // high s that still fits in 255 bits
        IPaceSmartAccount.Sig memory s = signDigest(POLICY_KEY, digest);
        vm.expectRevert(abi.encodeWithSelector(ECDSA.ECDSAInvalidSignatureS.selector, a[0].vs));
        execApproved(address(counter), 0, data, t, s, a);
    }

    function test_RevertWhen_ReenteredThroughTarget() public {
        Reenterer evil = new Reenterer();
        // A second PDR, validly signed for nonce 1, that the target tries to use mid-call.
        bytes memory innerData = bumpData(100);
        IPaceSmartAccount.PDRTerms memory inner = terms(1, false);
        IPaceSmartAccount.Sig memory innerSig = signPDR(POLICY_KEY, address(counter), 0, innerData, inner);
        evil.arm(account, address(counter), innerData, inner, innerSig);
        if (compact) evil.armRaw(execCalldata(address(counter), 0, innerData, inner, innerSig));

        bytes memory data = abi.encodeCall(Reenterer.attack, ());
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        (bool ok,) = exec(address(evil), 0, data, t, signPDR(POLICY_KEY, address(evil), 0, data, t));

        vm.assertTrue(ok, "outer call returned");
        vm.assertFalse(evil.reentered(), "re-entry must not execute");
        vm.assertEq(
            evil.reentryRevert(),
            abi.encodeWithSelector(IPaceSmartAccount.ReentrancyGuardReentrantCall.selector),
            "blocked by the guard"
        );
        vm.assertEq(counter.count(), 0, "inner call had no effect");
        vm.assertEq(uint256(account.nonce()), 1, "only the outer nonce consumed");
    }

    /// @dev A (possibly invalid) signature component: boundary values of secp256k1 and the
    /// EVM's precompile checks, or a random word.
    function pickWord(uint8 kind, bytes32 rand) internal pure returns (uint256) {
        uint256 p = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F; // field prime
        uint256[11] memory edges = [
            0,
            1,
            SECP256K1_N / 2,
            SECP256K1_N / 2 + 1,
            SECP256K1_N - 1,
            SECP256K1_N,
            SECP256K1_N + 1,
            p - 1,
            p,
            (uint256(1) << 255) - 1,
            type(uint256).max
        ];
        kind %= 16;
        return kind < edges.length ? edges[kind] : uint256(rand);
    }

    /// @dev Expects exactly what OpenZeppelin's ECDSA.tryRecover(digest, r, vs) implies for a
    /// signature checked against `authorized`: its error, or `otherwise(recovered)` for another
    /// signer, or success.
    function expectLikeOpenZeppelin(bytes32 digest, bytes32 r, bytes32 vs, address authorized, bytes4 otherwise)
        internal
    {
        (address recovered, ECDSA.RecoverError err, bytes32 arg) = ECDSA.tryRecover(digest, r, vs);
        if (err == ECDSA.RecoverError.InvalidSignatureS) {
            vm.expectRevert(abi.encodeWithSelector(ECDSA.ECDSAInvalidSignatureS.selector, arg));
        } else if (err == ECDSA.RecoverError.InvalidSignature) {
            vm.expectRevert(abi.encodeWithSelector(ECDSA.ECDSAInvalidSignature.selector));
        } else if (recovered != authorized) {
            vm.expectRevert(abi.encodeWithSelector(otherwise, recovered));
        }
    }

    /// @dev Differential test of the assembly hot path's signature recovery against
    /// OpenZeppelin's ECDSA.tryRecover: policy signatures of {execute} and approvals of
    /// {executeWithApprovals} built from boundary and random (r, s, parity), or real signatures
    /// by random keys, are accepted or rejected exactly as OpenZeppelin decides.
    function testFuzz_RecoverMatchesOpenZeppelin(
        uint8 rKind,
        uint8 sKind,
        bytes32 rRand,
        bytes32 sRand,
        bool parity,
        bool approval
    ) public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, approval);
        bytes32 digest = account.hashPDR(address(counter), 0, data, t);
        bytes32 r;
        bytes32 vs;
        if (rKind % 4 == 3) {
            // a real low-s signature by a random key (the key of a listed approver included)
            uint256 key = uint256(rRand) % (SECP256K1_N - 1) + 1;
            if (sKind % 8 == 0) key = approval ? APPROVER2_KEY : POLICY_KEY;
            (r, vs) = vm.signCompact(key, digest);
        } else {
            r = bytes32(pickWord(rKind, rRand));
            vs = bytes32((pickWord(sKind, sRand) & ((uint256(1) << 255) - 1)) | (parity ? uint256(1) << 255 : 0));
        }
        if (approval) {
            IPaceSmartAccount.Sig[] memory a = new IPaceSmartAccount.Sig[](1);
            a[0] = IPaceSmartAccount.Sig(r, vs);
            expectLikeOpenZeppelin(digest, r, vs, vm.addr(APPROVER2_KEY), IPaceSmartAccount.NotApprover.selector);
            execApproved(address(counter), 0, data, t, signDigest(POLICY_KEY, digest), a);
        } else {
            expectLikeOpenZeppelin(
                digest, r, vs, vm.addr(POLICY_KEY), IPaceSmartAccount.UnauthorizedPolicySigner.selector
            );
            exec(address(counter), 0, data, t, IPaceSmartAccount.Sig(r, vs));
        }
    }

    /// @dev While an execution calls out, the owner cannot rotate the policy signer or threshold
    /// (the lock bit shares their slot): here the owner is the target itself.
    function test_RevertWhen_AdminDuringExecution() public {
        AdminTarget admin = new AdminTarget();
        address[] memory approvers = new address[](1);
        approvers[0] = vm.addr(APPROVER1_KEY);
        account = new PaceSmartAccount(address(admin), vm.addr(POLICY_KEY), approvers, 1);
        bytes memory data = abi.encodeCall(AdminTarget.rotate, ());
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        (bool ok,) = exec(address(admin), 0, data, t, signPDR(POLICY_KEY, address(admin), 0, data, t));
        vm.assertTrue(ok, "outer call returned");
        vm.assertEq(
            admin.signerRevert(),
            abi.encodeWithSelector(IPaceSmartAccount.ReentrancyGuardReentrantCall.selector),
            "setPolicySigner blocked"
        );
        vm.assertEq(
            admin.thresholdRevert(),
            abi.encodeWithSelector(IPaceSmartAccount.ReentrancyGuardReentrantCall.selector),
            "setThreshold blocked"
        );
        vm.assertEq(account.policySigner(), vm.addr(POLICY_KEY), "signer unchanged");
        vm.assertEq(uint256(account.nonce()), 1, "nonce consumed, lock released");
        vm.prank(address(admin));
        account.setThreshold(1); // unlocked again after the execution
    }

    function test_ShortCalldataHasZeroSelector() public {
        bytes memory data = hex"abcdef";
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        bytes32 digest = account.hashPDR(address(sink), 1 wei, data, t);
        vm.expectEmit(address(account));
        emit Executed(digest, EVENT_ID, packCall(address(sink), bytes4(0), false), 1 wei);
        exec(address(sink), 1 wei, data, t, signDigest(POLICY_KEY, digest));
    }

    function test_RevertWhen_TargetStarvedOfGas() public {
        bytes memory data = abi.encodeCall(Counter.burn, ());
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 0, data, t);
        vm.expectRevert(IPaceSmartAccount.InsufficientGas.selector);
        submit(execCalldata(address(counter), 0, data, t, s), 300_000);
        vm.assertEq(uint256(account.nonce()), 0, "PDR not burnt");
    }

    // ---- a relayer cannot burn a PDR (audit finding 2) ----

    /// @dev `Hungry.eat(ROUNDS)` behind `hops` relays (0: the Hungry itself).
    function hungryBehind(uint256 hops) internal returns (Hungry hungry, address target) {
        hungry = new Hungry();
        target = address(hungry);
        for (uint256 i = 0; i < hops; i++) {
            target = address(new Relay(target));
        }
    }

    /// @dev The calldata of a policy-signed PDR (nonce 0) for `target.eat(ROUNDS)`.
    function eatCalldata(address target) internal view returns (bytes memory) {
        bytes memory data = abi.encodeCall(Hungry.eat, (ROUNDS));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        return execCalldata(target, 0, data, t, signPDR(POLICY_KEY, target, 0, data, t));
    }

    /// @dev A call that needs ~800,000 gas, submitted by a relayer with a gas limit too tight
    /// for it but loose enough that 1/64 of the gas forwarded exceeds the old 10,000 reserve:
    /// the whole transaction reverts, the nonce is unchanged, and the same PDR executes
    /// afterwards with enough gas.
    function test_RevertWhen_RelayerStarvesCall() public {
        (Hungry hungry, address target) = hungryBehind(0);
        bytes memory cd = eatCalldata(target);
        vm.expectRevert(IPaceSmartAccount.InsufficientGas.selector);
        submit(cd, 780_000);
        vm.assertEq(uint256(account.nonce()), 0, "PDR not burnt");
        (bool ok,) = submit(cd, 2_000_000);
        vm.assertTrue(ok, "the same PDR executes with enough gas");
        vm.assertEq(hungry.meals(), 1, "effect");
        vm.assertEq(uint256(account.nonce()), 1, "nonce consumed once");
    }

    /// @dev The same starvation through one and two proxy-like hops, which each hand back 1/64
    /// of their own gas when the innermost call runs out: the failure still reverts.
    function test_RevertWhen_RelayerStarvesCallThroughProxies() public {
        for (uint256 hops = 1; hops <= 2; hops++) {
            (Hungry hungry, address target) = hungryBehind(hops);
            bytes memory cd = eatCalldata(target);
            vm.expectRevert(IPaceSmartAccount.InsufficientGas.selector);
            submit(cd, 780_000);
            vm.assertEq(uint256(account.nonce()), 0, "PDR not burnt");
            vm.assertEq(hungry.meals(), 0, "no effect");
        }
    }

    /// @dev Whatever gas limit a relayer picks, a PDR for a call that succeeds with enough gas
    /// either executes successfully or is not consumed: never a recorded failure with its
    /// nonce spent. Up to three proxy-like hops in front of the target.
    function testFuzz_RelayerCannotBurnPDR(uint256 gasLimit, uint8 hops) public {
        gasLimit = bound(gasLimit, 30_000, 1_500_000);
        (Hungry hungry, address target) = hungryBehind(hops % 4);
        (bool mined, bytes memory ret) = address(account).call{gas: gasLimit}(eatCalldata(target));
        if (mined) {
            (bool success,) = abi.decode(ret, (bool, bytes));
            vm.assertTrue(success, "PDR burnt: consumed by a starved call");
            vm.assertEq(hungry.meals(), 1, "effect");
            vm.assertEq(uint256(account.nonce()), 1, "nonce consumed");
        } else {
            vm.assertEq(uint256(account.nonce()), 0, "nonce kept");
        }
    }

    /// @dev The clean case: an expensive call that fails by itself, given plenty of gas, is
    /// recorded as failed and consumes its nonce (the check blames only starvation).
    function test_ExpensiveFailedCallConsumesNonce() public {
        Hungry hungry = new Hungry();
        bytes memory data = abi.encodeCall(Hungry.eatThenRefuse, (ROUNDS));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        bytes32 digest = account.hashPDR(address(hungry), 0, data, t);
        vm.expectEmit(address(account));
        emit Executed(digest, EVENT_ID, packCall(address(hungry), Hungry.eatThenRefuse.selector, false), 0);
        (bool ok, bytes memory ret) =
            submit(execCalldata(address(hungry), 0, data, t, signDigest(POLICY_KEY, digest)), 2_000_000);
        vm.assertFalse(ok, "call failed");
        vm.assertEq(ret, abi.encodeWithSelector(Hungry.Refused.selector, ROUNDS), "its own revert data");
        vm.assertEq(uint256(account.nonce()), 1, "nonce consumed");
    }

    // ---- a batch PDR cannot be burnt as a single call (audit finding 4) ----

    /// @dev A batch PDR signs target = account, value = sum, dataHash = keccak256(abi.encode(calls)):
    /// anyone could submit it as one call to the account, which fails, and burn its nonce. The
    /// single-call entry points refuse the account as target; the batch still executes.
    function test_RevertWhen_BatchPDRSubmittedAsSelfCall() public {
        IPaceSmartAccount.Call[] memory calls = new IPaceSmartAccount.Call[](2);
        calls[0] = IPaceSmartAccount.Call(address(counter), 1 ether, bumpData(2));
        calls[1] = IPaceSmartAccount.Call(address(sink), 0, abi.encodeCall(Sink.ping, ()));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDigest(POLICY_KEY, account.hashBatch(calls, t));
        vm.expectRevert(IPaceSmartAccount.TargetIsAccount.selector);
        exec(address(account), 1 ether, abi.encode(calls), t, s);
        vm.assertEq(uint256(account.nonce()), 0, "batch PDR not burnt");
        account.executeBatch(calls, t, s, new IPaceSmartAccount.Sig[](0));
        vm.assertEq(counter.count(), 2, "batch executed");
        vm.assertEq(uint256(account.nonce()), 1, "nonce consumed by the batch");
    }

    /// @dev Every single call to the account itself is refused, however it is signed: plain
    /// transfer, administration, the batch entry, with and without approvals.
    function test_RevertWhen_SingleCallTargetsAccount() public {
        bytes[4] memory datas = [
            bytes(""),
            abi.encodeCall(PaceSmartAccount.setThreshold, (2)),
            abi.encodeCall(
                PaceSmartAccount.executeBatch,
                (
                    new IPaceSmartAccount.Call[](0),
                    terms(1, false),
                    IPaceSmartAccount.Sig(0, 0),
                    new IPaceSmartAccount.Sig[](0)
                )
            ),
            hex"00"
        ];
        for (uint256 i = 0; i < datas.length; i++) {
            for (uint256 approval = 0; approval < 2; approval++) {
                IPaceSmartAccount.PDRTerms memory t = terms(0, approval == 1);
                bytes32 digest = account.hashPDR(address(account), i, datas[i], t);
                vm.expectRevert(IPaceSmartAccount.TargetIsAccount.selector);
                execApproved(
                    address(account),
                    i,
                    datas[i],
                    t,
                    signDigest(POLICY_KEY, digest),
                    approvalsBy(one(APPROVER1_KEY), digest)
                );
            }
        }
        vm.assertEq(uint256(account.nonce()), 0, "nothing consumed");
    }

    // ---------------------------------------------------------------- nonce spaces (finding 7)

    /// @dev Finding 7: a delegate — even one with zero value caps — consumes delegated nonces
    /// only, so policy PDRs signed before its calls (with and without approval) still execute.
    function test_DelegatedExecutionLeavesPolicyPDRsPending() public {
        bytes memory data = bumpData(5);
        IPaceSmartAccount.PDRTerms memory t0 = terms(0, false);
        IPaceSmartAccount.Sig memory s0 = signPDR(POLICY_KEY, address(counter), 0, data, t0);
        IPaceSmartAccount.PDRTerms memory t1 = terms(1, true);
        bytes32 d1 = account.hashPDR(address(counter), 0, data, t1);
        IPaceSmartAccount.SignedDelegation[] memory chain = zeroCapChain();
        for (uint64 i = 0; i < 3; i++) {
            IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(1));
            vm.assertTrue(execDelegated(DELEGATE_KEY, c, terms(i, false), chain), "delegated call");
        }
        vm.assertEq(uint256(account.nonce()), 0, "policy nonce untouched by delegated calls");
        vm.assertEq(delegatedNonce(), 3, "delegated nonce");
        (bool ok,) = exec(address(counter), 0, data, t0, s0);
        vm.assertTrue(ok, "pending policy PDR executes");
        (ok,) = execApproved(address(counter), 0, data, t1, signDigest(POLICY_KEY, d1), approvalsBy(one(APPROVER1_KEY), d1));
        vm.assertTrue(ok, "pending approved PDR executes");
        vm.assertEq(counter.count(), 13, "effects");
        vm.assertEq(uint256(account.nonce()), 2, "policy nonce");
        vm.assertEq(delegatedNonce(), 3, "delegated nonce untouched by policy PDRs");
    }

    /// @dev Finding 7, the other way: policy executions leave a pending delegated PDR valid.
    function test_PolicyExecutionsLeaveDelegatedPDRPending() public {
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(2));
        IPaceSmartAccount.PDRTerms memory dt = terms(0, false);
        IPaceSmartAccount.Sig memory ds = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, dt);
        for (uint64 i = 0; i < 3; i++) {
            bytes memory data = bumpData(1);
            IPaceSmartAccount.PDRTerms memory t = terms(i, false);
            (bool executed,) = exec(address(counter), 0, data, t, signPDR(POLICY_KEY, address(counter), 0, data, t));
            vm.assertTrue(executed, "policy PDR");
        }
        vm.assertEq(delegatedNonce(), 0, "delegated nonce untouched by policy PDRs");
        (bool ok,) = account.executeDelegated(c, dt, ds, new IPaceSmartAccount.Sig[](0), zeroCapChain());
        vm.assertTrue(ok, "pending delegated PDR executes");
        vm.assertEq(counter.count(), 5, "effects");
        vm.assertEq(uint256(account.nonce()), 3, "policy nonce");
        vm.assertEq(delegatedNonce(), 1, "delegated nonce");
    }

    /// @dev A policy PDR is still single-use after delegated calls moved the other counter.
    function test_RevertWhen_PolicyNonceReplayedAcrossSpaces() public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 0, data, t);
        exec(address(counter), 0, data, t, s);
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(1));
        vm.assertTrue(execDelegated(DELEGATE_KEY, c, terms(0, false), zeroCapChain()), "delegated call");
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.InvalidNonce.selector, uint64(1), uint64(0)));
        exec(address(counter), 0, data, t, s);
        // A policy PDR carrying the delegated counter's value is as stale as any other.
        t = terms(2, false);
        s = signPDR(POLICY_KEY, address(counter), 0, data, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.InvalidNonce.selector, uint64(1), uint64(2)));
        exec(address(counter), 0, data, t, s);
    }

    // ---------------------------------------------------------------- signed types (issue 25)

    /// @dev The owner's delegation to the policy signer's own key (scoped to the counter).
    function chainToPolicySigner() internal view returns (IPaceSmartAccount.SignedDelegation[] memory) {
        return chainOf(signDelegation(OWNER_KEY, scope(vm.addr(OWNER_KEY), vm.addr(POLICY_KEY), 0)));
    }

    /// @dev Issue 25: when the owner delegates to the policy signer's own key, a policy PDR that
    /// has executed (policy nonce 0) does not execute a second time through executeDelegated,
    /// whose nonce space is still at 0: it signs a `PDR`, and executeDelegated verifies a
    /// `DelegatedPDR`. Before, both were one struct and the replay executed.
    function test_RevertWhen_PolicyPDRReplayedAsDelegated() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = chainToPolicySigner();
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(5));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, c.target, c.value, c.data, t);
        (bool ok,) = exec(c.target, c.value, c.data, t, s);
        vm.assertTrue(ok, "policy PDR executes");
        address recovered =
            ECDSA.recover(referenceDigestOf(DELEGATED_PDR_TYPE, c.target, c.value, c.data, t), s.r, s.vs);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceSmartAccount.UnauthorizedDelegate.selector, vm.addr(POLICY_KEY), recovered)
        );
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
        vm.assertEq(counter.count(), 5, "executed once");
        vm.assertEq(delegatedNonce(), 0, "delegated nonce untouched");
    }

    /// @dev Issue 25, the other way: a delegated PDR signed by the policy signer's key (as
    /// delegate) that has executed through executeDelegated does not execute again through
    /// the policy entry points, whose nonce space is still at 0.
    function test_RevertWhen_DelegatedPDRReplayedAsPolicy() public {
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(5));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(POLICY_KEY, c.target, c.value, c.data, t);
        (bool ok,) = account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chainToPolicySigner());
        vm.assertTrue(ok, "delegated PDR executes");
        address recovered = ECDSA.recover(referenceDigest(c.target, c.value, c.data, t), s.r, s.vs);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.UnauthorizedPolicySigner.selector, recovered));
        exec(c.target, c.value, c.data, t, s);
        vm.assertEq(counter.count(), 5, "executed once");
        vm.assertEq(uint256(account.nonce()), 0, "policy nonce untouched");
    }

    /// @dev Issue 25: approvals are over the digest of their PDR's type, so the approvals of a
    /// policy PDR do not approve a delegated PDR with the same fields.
    function test_RevertWhen_PolicyApprovalsReusedForDelegatedPDR() public {
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(5));
        IPaceSmartAccount.PDRTerms memory t = terms(0, true);
        bytes32 policyDigest = account.hashPDR(c.target, c.value, c.data, t);
        IPaceSmartAccount.Sig[] memory approvals = approvalsBy(one(APPROVER1_KEY), policyDigest);
        (bool ok,) = execApproved(c.target, c.value, c.data, t, signDigest(POLICY_KEY, policyDigest), approvals);
        vm.assertTrue(ok, "approved policy PDR executes");
        bytes32 delegatedDigest = account.hashDelegatedPDR(c.target, c.value, c.data, t);
        address recovered = ECDSA.recover(delegatedDigest, approvals[0].r, approvals[0].vs);
        IPaceSmartAccount.SignedDelegation[] memory chain = ownerToDelegate();
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.NotApprover.selector, recovered));
        account.executeDelegated(c, t, signDigest(DELEGATE_KEY, delegatedDigest), approvals, chain);
        vm.assertEq(counter.count(), 5, "executed once");
    }

    /// @dev A policy PDR whose nonce is past the policy space's 48 bits never executes.
    function test_RevertWhen_PolicyNonceBeyondItsSpace() public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(uint64(1) << 48, false);
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 0, data, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.InvalidNonce.selector, uint64(0), uint64(1) << 48));
        exec(address(counter), 0, data, t, s);
    }

    function test_RotatedPolicySignerTakesEffect() public {
        vm.prank(vm.addr(OWNER_KEY));
        account.setPolicySigner(vm.addr(SUBDELEGATE_KEY));
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory old = signPDR(POLICY_KEY, address(counter), 0, data, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.UnauthorizedPolicySigner.selector, vm.addr(POLICY_KEY)));
        exec(address(counter), 0, data, t, old);
        (bool ok,) = exec(address(counter), 0, data, t, signPDR(SUBDELEGATE_KEY, address(counter), 0, data, t));
        vm.assertTrue(ok, "new signer accepted");
    }

    function test_Gas_ExecutePolicyOnly() public {
        bytes memory data = abi.encodeCall(Sink.ping, ());
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        exec(address(sink), 0, data, t, signPDR(POLICY_KEY, address(sink), 0, data, t));
    }

    function test_Gas_ExecuteWithOneApproval() public {
        bytes memory data = abi.encodeCall(Sink.ping, ());
        IPaceSmartAccount.PDRTerms memory t = terms(0, true);
        bytes32 digest = account.hashPDR(address(sink), 0, data, t);
        execApproved(address(sink), 0, data, t, signDigest(POLICY_KEY, digest), approvalsBy(one(APPROVER1_KEY), digest));
    }

    function testFuzz_OnlyPolicySignerExecutes(uint256 keySeed) public {
        uint256 key = keyFrom(keySeed);
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signPDR(key, address(counter), 0, data, t);
        (bool ok,) = address(account).call(execCalldata(address(counter), 0, data, t, s));
        vm.assertEq(ok, key == POLICY_KEY, "accepted iff policy signer");
        vm.assertEq(counter.count(), ok ? 1 : 0, "effect iff accepted");
    }

    function testFuzz_AnyTamperedFieldRejected(uint8 field, uint256 delta) public {
        delta = bound(delta, 1, type(uint64).max);
        bytes memory data = bumpData(1);
        address target = address(counter);
        uint256 value = 0;
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, target, value, data, t);
        field = field % 6;
        if (field == 0) target = address(uint160(target) ^ uint160(delta));
        if (field == 1) value = delta;
        if (field == 2) data = bumpData(1 + delta);
        if (field == 3) t.policyId = bytes32(uint256(t.policyId) ^ delta);
        if (field == 4) t.eventId = bytes32(uint256(t.eventId) ^ delta);
        if (field == 5) t.expiry = uint64(t.expiry + (delta % 1000) + 1);
        (bool ok, bytes memory ret) = address(account).call(execCalldata(target, value, data, t, s));
        vm.assertFalse(ok, "tampered PDR accepted");
        vm.assertTrue(bytes4(ret) == IPaceSmartAccount.UnauthorizedPolicySigner.selector, "rejected as wrong signer");
    }

    function testFuzz_ExpiryIsInclusive(uint64 expiry, uint32 ahead) public {
        expiry = uint64(bound(expiry, START, type(uint64).max - 2 ** 32));
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        t.expiry = expiry;
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 0, data, t);
        vm.warp(uint256(expiry) + ahead);
        (bool ok,) = address(account).call(execCalldata(address(counter), 0, data, t, s));
        vm.assertEq(ok, ahead == 0, "valid until expiry inclusive");
    }
}

contract PaceSmartAccountTest is PaceExecutionTest {
    // ---------------------------------------------------------------- happy paths

    function test_ExecuteBatch() public {
        IPaceSmartAccount.Call[] memory calls = new IPaceSmartAccount.Call[](2);
        calls[0] = IPaceSmartAccount.Call(address(counter), 1 ether, bumpData(2));
        calls[1] = IPaceSmartAccount.Call(address(sink), 0, abi.encodeCall(Sink.ping, ()));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        bytes32 digest = account.hashBatch(calls, t);
        vm.assertEq(digest, referenceDigest(address(account), 1 ether, abi.encode(calls), t), "batch digest");
        account.executeBatch(calls, t, signDigest(POLICY_KEY, digest), new IPaceSmartAccount.Sig[](0));
        vm.assertEq(counter.count(), 2, "first call");
        vm.assertEq(counter.received(), 1 ether, "value");
        vm.assertEq(uint256(account.nonce()), 1, "one nonce per batch");
    }

    function test_RevertWhen_BatchWithoutRequiredApprovals() public {
        IPaceSmartAccount.Call[] memory calls = new IPaceSmartAccount.Call[](2);
        calls[0] = IPaceSmartAccount.Call(address(counter), 0, bumpData(2));
        calls[1] = IPaceSmartAccount.Call(address(sink), 0, abi.encodeCall(Sink.ping, ()));
        IPaceSmartAccount.PDRTerms memory t = terms(0, true);
        bytes32 digest = account.hashBatch(calls, t);
        IPaceSmartAccount.Sig memory s = signDigest(POLICY_KEY, digest);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.TooFewApprovals.selector, 0, 1));
        account.executeBatch(calls, t, s, new IPaceSmartAccount.Sig[](0));
        // An approval by someone who is not an approver does not count either.
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.NotApprover.selector, vm.addr(POLICY_KEY)));
        account.executeBatch(calls, t, s, approvalsBy(one(POLICY_KEY), digest));
        // With the approver's signature the batch runs.
        account.executeBatch(calls, t, s, approvalsBy(one(APPROVER1_KEY), digest));
        vm.assertEq(counter.count(), 2, "batch executed once approved");
    }

    function test_RevertWhen_BatchCallFails() public {
        IPaceSmartAccount.Call[] memory calls = new IPaceSmartAccount.Call[](2);
        calls[0] = IPaceSmartAccount.Call(address(counter), 0, bumpData(2));
        calls[1] = IPaceSmartAccount.Call(address(counter), 0, abi.encodeCall(Counter.fail, (7)));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDigest(POLICY_KEY, account.hashBatch(calls, t));
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaceSmartAccount.CallFailed.selector, 1, abi.encodeWithSelector(Counter.Boom.selector, 7)
            )
        );
        account.executeBatch(calls, t, s, new IPaceSmartAccount.Sig[](0));
    }

    // ---------------------------------------------------------------- nonce spaces (finding 7)

    /// @dev Finding 7 for batches: delegated calls leave a pending batch PDR valid.
    function test_DelegatedExecutionLeavesBatchPDRPending() public {
        IPaceSmartAccount.Call[] memory calls = new IPaceSmartAccount.Call[](1);
        calls[0] = IPaceSmartAccount.Call(address(counter), 0, bumpData(4));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDigest(POLICY_KEY, account.hashBatch(calls, t));
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(1));
        vm.assertTrue(execDelegated(DELEGATE_KEY, c, terms(0, false), zeroCapChain()), "delegated call");
        account.executeBatch(calls, t, s, new IPaceSmartAccount.Sig[](0));
        vm.assertEq(counter.count(), 5, "effects");
        vm.assertEq(uint256(account.nonce()), 1, "policy nonce");
        vm.assertEq(delegatedNonce(), 1, "delegated nonce");
    }

    /// @dev Replays in the delegated space are refused, and a delegated PDR must carry the
    /// delegated counter, not the policy nonce.
    function test_RevertWhen_DelegatedNonceReplayed() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = zeroCapChain();
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(1));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        IPaceSmartAccount.Sig[] memory none = new IPaceSmartAccount.Sig[](0);
        account.executeDelegated(c, t, s, none, chain);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.InvalidNonce.selector, uint64(1), uint64(0)));
        account.executeDelegated(c, t, s, none, chain);
        for (uint64 i = 0; i < 3; i++) {
            bytes memory data = bumpData(1);
            IPaceSmartAccount.PDRTerms memory pt = terms(i, false);
            exec(address(counter), 0, data, pt, signPDR(POLICY_KEY, address(counter), 0, data, pt));
        }
        t = terms(3, false); // the policy nonce now
        s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.InvalidNonce.selector, uint64(1), uint64(3)));
        account.executeDelegated(c, t, s, none, chain);
        vm.assertEq(delegatedNonce(), 1, "delegated nonce");
        vm.assertEq(uint256(account.nonce()), 3, "policy nonce");
    }

    /// @dev The delegated space holds 39 bits: a delegated PDR whose nonce is past them never
    /// executes, and neither does the last value (consuming it would carry out of the field).
    function test_RevertWhen_DelegatedNonceBeyondItsSpace() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = zeroCapChain();
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(1));
        IPaceSmartAccount.Sig[] memory none = new IPaceSmartAccount.Sig[](0);
        IPaceSmartAccount.PDRTerms memory t = terms(uint64(1) << 39, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.InvalidNonce.selector, uint64(0), uint64(1) << 39));
        account.executeDelegated(c, t, s, none, chain);
        // Move the delegated counter to its last value (bits 216–254 of `_config`, slot 3).
        uint64 last = (uint64(1) << 39) - 1;
        bytes32 config = vm.load(address(account), bytes32(uint256(3)));
        vm.store(address(account), bytes32(uint256(3)), config | bytes32(uint256(last) << 216));
        vm.assertEq(delegatedNonce(), last, "delegated nonce at its last value");
        t = terms(last, false);
        s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.InvalidNonce.selector, last, last));
        account.executeDelegated(c, t, s, none, chain);
        // The policy space is unaffected.
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory pt = terms(0, false);
        (bool ok,) = exec(address(counter), 0, data, pt, signPDR(POLICY_KEY, address(counter), 0, data, pt));
        vm.assertTrue(ok, "policy PDR executes");
        vm.assertEq(delegatedNonce(), last, "delegated nonce unchanged");
    }

    function test_DigestMatchesReference() public view {
        IPaceSmartAccount.PDRTerms memory t = terms(3, true);
        bytes memory data = bumpData(9);
        vm.assertEq(
            account.hashPDR(address(counter), 5, data, t), referenceDigest(address(counter), 5, data, t), "digest"
        );
    }

    function test_DelegatedDigestMatchesReference() public view {
        bytes memory data = bumpData(7);
        IPaceSmartAccount.PDRTerms memory t = terms(3, true);
        bytes32 digest = account.hashDelegatedPDR(address(counter), 5, data, t);
        vm.assertEq(digest, referenceDigestOf(DELEGATED_PDR_TYPE, address(counter), 5, data, t), "digest");
        vm.assertNotEq(digest, account.hashPDR(address(counter), 5, data, t), "delegated vs policy digest");
        vm.assertEq(account.DELEGATED_PDR_TYPEHASH(), keccak256(bytes(DELEGATED_PDR_TYPE)), "type hash");
        vm.assertEq(account.PDR_TYPEHASH(), keccak256(bytes(PDR_TYPE)), "policy type hash");
    }

    // ---------------------------------------------------------------- attacks on PDRs

    function test_RevertWhen_ERC1271SignatureMalleable() public view {
        bytes32 h = keccak256("message");
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(OWNER_KEY, erc1271Digest(h));
        bytes32 twinS = bytes32(SECP256K1_N - uint256(s));
        uint8 twinV = v == 27 ? 28 : 27;
        vm.assertTrue(account.isValidSignature(h, abi.encodePacked(r, s, v)) == bytes4(0x1626ba7e), "original");
        vm.assertTrue(
            account.isValidSignature(h, abi.encodePacked(r, twinS, twinV)) == bytes4(0xffffffff), "twin rejected"
        );
    }

    /// @dev The assembly path range-checks the uint64/uint8/bool terms as Solidity's ABI decoder
    /// does: a dirty word reverts without data, and nothing executes.
    function test_RevertWhen_DirtyTermsCalldata() public {
        bytes memory data = bumpData(1);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 0, data, t);
        // head: target 0x04, value 0x24, data offset 0x44, nonce 0x64, policyId 0x84, decision 0xa4,
        // approvalRequired 0xc4, expiry 0xe4 (byte 4 + 0x?? is the word's most significant byte)
        uint16[4] memory words = [uint16(0x64), 0xa4, 0xc4, 0xe4];
        for (uint256 i = 0; i < words.length; i++) {
            bytes memory cd = abi.encodeCall(PaceSmartAccount.execute, (address(counter), 0, data, t, s));
            cd[words[i]] = 0x01;
            (bool ok, bytes memory ret) = address(account).call(cd);
            vm.assertFalse(ok, "dirty word accepted");
            vm.assertEq(ret.length, 0, "reverts without data");
        }
        vm.assertEq(uint256(account.nonce()), 0, "nothing executed");
    }

    function test_PackCallMatchesEventLayout() public view {
        vm.assertEq(
            account.packCall(address(counter), Counter.bump.selector, true),
            packCall(address(counter), Counter.bump.selector, true),
            "success"
        );
        vm.assertEq(
            account.packCall(address(0xBEEF), bytes4(0), false), packCall(address(0xBEEF), bytes4(0), false), "failure"
        );
    }

    // ---------------------------------------------------------------- delegation

    function test_DelegatedExecution() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = ownerToDelegate();
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 1 ether, bumpData(3));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        bytes32 digest = account.hashDelegatedPDR(c.target, c.value, c.data, t);
        bytes32[] memory hashes = new bytes32[](1);
        hashes[0] = account.hashDelegation(chain[0].delegation);

        vm.expectEmit(address(account));
        emit DelegationUsed(digest, vm.addr(DELEGATE_KEY), hashes);
        vm.assertTrue(execDelegated(DELEGATE_KEY, c, t, chain), "executed");
        vm.assertEq(counter.count(), 3, "effect");
        vm.assertEq(account.spent(hashes[0]), 1 ether, "spending recorded");
    }

    function test_SubDelegationWithinScope() public {
        IPaceSmartAccount.Delegation memory root = scope(vm.addr(OWNER_KEY), vm.addr(DELEGATE_KEY), 0);
        bytes32 rootHash = account.hashDelegation(root);
        IPaceSmartAccount.Delegation memory sub = scope(vm.addr(DELEGATE_KEY), vm.addr(SUBDELEGATE_KEY), rootHash);
        sub.maxValuePerCall = 0.5 ether;
        IPaceSmartAccount.SignedDelegation[] memory chain = new IPaceSmartAccount.SignedDelegation[](2);
        chain[0] = signDelegation(OWNER_KEY, root);
        chain[1] = signDelegation(DELEGATE_KEY, sub);
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0.5 ether, bumpData(1));
        vm.assertTrue(execDelegated(SUBDELEGATE_KEY, c, terms(0, false), chain), "executed");
        vm.assertEq(account.spent(rootHash), 0.5 ether, "parent spending");
        vm.assertEq(account.spent(account.hashDelegation(sub)), 0.5 ether, "child spending");
    }

    function test_RevertWhen_SubDelegationExceedsParentScope() public {
        IPaceSmartAccount.Delegation memory root = scope(vm.addr(OWNER_KEY), vm.addr(DELEGATE_KEY), 0);
        bytes32 rootHash = account.hashDelegation(root);
        IPaceSmartAccount.Delegation memory sub = scope(vm.addr(DELEGATE_KEY), vm.addr(SUBDELEGATE_KEY), rootHash);
        sub.targets[0] = address(sink); // the parent never allowed `sink`
        sub.selectors[0] = Sink.ping.selector;
        IPaceSmartAccount.SignedDelegation[] memory chain = new IPaceSmartAccount.SignedDelegation[](2);
        chain[0] = signDelegation(OWNER_KEY, root);
        chain[1] = signDelegation(DELEGATE_KEY, sub);
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(sink), 0, abi.encodeCall(Sink.ping, ()));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(SUBDELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.TargetNotDelegated.selector, rootHash, address(sink)));
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
    }

    function test_RevertWhen_DelegationTargetOutOfScope() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = ownerToDelegate();
        bytes32 h = account.hashDelegation(chain[0].delegation);
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(sink), 0, abi.encodeCall(Counter.bump, (1)));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.TargetNotDelegated.selector, h, address(sink)));
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
    }

    function test_RevertWhen_DelegationSelectorOutOfScope() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = ownerToDelegate();
        bytes32 h = account.hashDelegation(chain[0].delegation);
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, abi.encodeCall(Counter.fail, (1)));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceSmartAccount.SelectorNotDelegated.selector, h, Counter.fail.selector)
        );
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
    }

    function test_RevertWhen_DelegationValueOverCallCap() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = ownerToDelegate();
        bytes32 h = account.hashDelegation(chain[0].delegation);
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 2 ether, bumpData(1));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.ValueOverCallCap.selector, h, 2 ether, 1 ether));
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
    }

    function test_RevertWhen_DelegationValueOverTotalCap() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = ownerToDelegate();
        bytes32 h = account.hashDelegation(chain[0].delegation);
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 1 ether, bumpData(1));
        for (uint64 i = 0; i < 3; i++) {
            vm.assertTrue(execDelegated(DELEGATE_KEY, c, terms(i, false), chain), "within total cap");
        }
        IPaceSmartAccount.PDRTerms memory t = terms(3, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.ValueOverTotalCap.selector, h, 4 ether, 3 ether));
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
    }

    function test_RevertWhen_DelegationExpired() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = ownerToDelegate();
        bytes32 h = account.hashDelegation(chain[0].delegation);
        vm.warp(uint256(chain[0].delegation.expiry) + 1);
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(1));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false); // the PDR itself is still valid
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceSmartAccount.DelegationExpired.selector, h, chain[0].delegation.expiry)
        );
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
    }

    function test_RevertWhen_DelegationRevoked() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = ownerToDelegate();
        bytes32 h = account.hashDelegation(chain[0].delegation);
        vm.prank(vm.addr(OWNER_KEY));
        account.revokeDelegation(h);
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(1));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.RevokedDelegation.selector, h));
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
    }

    function test_RevertWhen_DelegationNotFromOwner() public {
        IPaceSmartAccount.SignedDelegation[] memory chain =
            chainOf(signDelegation(ATTACKER_KEY, scope(vm.addr(ATTACKER_KEY), vm.addr(DELEGATE_KEY), 0)));
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(1));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaceSmartAccount.DelegatorMismatch.selector, 0, vm.addr(OWNER_KEY), vm.addr(ATTACKER_KEY)
            )
        );
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
    }

    function test_RevertWhen_DelegationSignatureForged() public {
        // Names the owner as delegator but is signed by the attacker.
        IPaceSmartAccount.SignedDelegation[] memory chain =
            chainOf(signDelegation(ATTACKER_KEY, scope(vm.addr(OWNER_KEY), vm.addr(DELEGATE_KEY), 0)));
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(1));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceSmartAccount.InvalidDelegationSignature.selector, 0, vm.addr(ATTACKER_KEY))
        );
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
    }

    function test_RevertWhen_DelegationParentMismatch() public {
        IPaceSmartAccount.Delegation memory root = scope(vm.addr(OWNER_KEY), vm.addr(DELEGATE_KEY), 0);
        IPaceSmartAccount.Delegation memory sub =
            scope(vm.addr(DELEGATE_KEY), vm.addr(SUBDELEGATE_KEY), keccak256("other"));
        IPaceSmartAccount.SignedDelegation[] memory chain = new IPaceSmartAccount.SignedDelegation[](2);
        chain[0] = signDelegation(OWNER_KEY, root);
        chain[1] = signDelegation(DELEGATE_KEY, sub);
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(1));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(SUBDELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaceSmartAccount.DelegationParentMismatch.selector, 1, account.hashDelegation(root), keccak256("other")
            )
        );
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
    }

    function test_RevertWhen_PDRNotSignedByDelegate() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = ownerToDelegate();
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(1));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(ATTACKER_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaceSmartAccount.UnauthorizedDelegate.selector, vm.addr(DELEGATE_KEY), vm.addr(ATTACKER_KEY)
            )
        );
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
    }

    function test_RevertWhen_DelegationChainEmpty() public {
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(1));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(IPaceSmartAccount.EmptyDelegationChain.selector);
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), new IPaceSmartAccount.SignedDelegation[](0));
    }

    function test_RevertWhen_DelegationChainTooLong() public {
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(1));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.DelegationChainTooLong.selector, 5, 4));
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), new IPaceSmartAccount.SignedDelegation[](5));
    }

    /// @dev A delegated PDR for a call that needs ~800,000 gas, starved by its relayer: the
    /// transaction reverts, so neither the nonce nor the delegation's spending is charged
    /// (before the fix both were, and no value was sent); with enough gas it executes.
    function test_RevertWhen_RelayerStarvesDelegatedCall() public {
        Hungry hungry = new Hungry();
        IPaceSmartAccount.Delegation memory d = scope(vm.addr(OWNER_KEY), vm.addr(DELEGATE_KEY), 0);
        d.targets[0] = address(hungry);
        d.selectors[0] = Hungry.eat.selector;
        IPaceSmartAccount.SignedDelegation[] memory chain = chainOf(signDelegation(OWNER_KEY, d));
        bytes32 h = account.hashDelegation(d);
        IPaceSmartAccount.Call memory c =
            IPaceSmartAccount.Call(address(hungry), 1 ether, abi.encodeCall(Hungry.eat, (ROUNDS)));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        bytes memory cd =
            abi.encodeCall(PaceSmartAccount.executeDelegated, (c, t, s, new IPaceSmartAccount.Sig[](0), chain));
        vm.expectRevert(IPaceSmartAccount.InsufficientGas.selector);
        submit(cd, 800_000);
        vm.assertEq(delegatedNonce(), 0, "PDR not burnt");
        vm.assertEq(account.spent(h), 0, "delegation not charged");
        (bool ok,) = submit(cd, 2_000_000);
        vm.assertTrue(ok, "executes with enough gas");
        vm.assertEq(account.spent(h), 1 ether, "charged once");
        vm.assertEq(address(hungry).balance, 1 ether, "value delivered");
    }

    /// @dev executeDelegated refuses the account as target too, even when a delegation lists it.
    function test_RevertWhen_DelegatedCallTargetsAccount() public {
        IPaceSmartAccount.Delegation memory d = scope(vm.addr(OWNER_KEY), vm.addr(DELEGATE_KEY), 0);
        d.targets[0] = address(account);
        d.selectors[0] = bytes4(0);
        IPaceSmartAccount.SignedDelegation[] memory chain = chainOf(signDelegation(OWNER_KEY, d));
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(account), 1 ether, "");
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(IPaceSmartAccount.TargetIsAccount.selector);
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
        vm.assertEq(delegatedNonce(), 0, "nothing consumed");
    }

    /// @dev Decision (audit finding 8): a delegated call's value is charged to every link of its
    /// chain before the call (checks-effects-interactions), and stays charged when the call
    /// fails: the cap bounds the value the delegate authorised in consumed PDRs, and no target
    /// can make the account spend past it. No value leaves the account for a failed call.
    function test_FailedDelegatedCallStillChargesSpending() public {
        IPaceSmartAccount.Delegation memory d = scope(vm.addr(OWNER_KEY), vm.addr(DELEGATE_KEY), 0);
        d.selectors[0] = Counter.fail.selector;
        IPaceSmartAccount.SignedDelegation[] memory chain = chainOf(signDelegation(OWNER_KEY, d));
        bytes32 h = account.hashDelegation(d);
        IPaceSmartAccount.Call memory c =
            IPaceSmartAccount.Call(address(counter), 1 ether, abi.encodeCall(Counter.fail, (3)));
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        bytes32 digest = account.hashDelegatedPDR(c.target, c.value, c.data, t);
        vm.expectEmit(address(account));
        emit Executed(digest, EVENT_ID, packCall(address(counter), Counter.fail.selector, false), 1 ether);
        vm.assertFalse(execDelegated(DELEGATE_KEY, c, t, chain), "call failed");
        vm.assertEq(delegatedNonce(), 1, "delegated nonce consumed");
        vm.assertEq(uint256(account.nonce()), 0, "policy nonce untouched");
        vm.assertEq(account.spent(h), 1 ether, "spending charged");
        vm.assertEq(address(account).balance, 100 ether, "no value left the account");
    }

    // ---------------------------------------------------------------- administration

    function test_OwnerRotatesKeys() public {
        vm.startPrank(vm.addr(OWNER_KEY));
        account.setPolicySigner(vm.addr(SUBDELEGATE_KEY));
        account.setApprover(vm.addr(ATTACKER_KEY), true);
        account.setThreshold(3);
        account.setApprover(vm.addr(APPROVER3_KEY), false);
        vm.stopPrank();
        vm.assertEq(account.policySigner(), vm.addr(SUBDELEGATE_KEY), "policy signer");
        vm.assertEq(uint256(account.threshold()), 3, "threshold");
        vm.assertEq(account.approverCount(), 3, "approver count");
        vm.assertTrue(account.isApprover(vm.addr(ATTACKER_KEY)), "added");
        vm.assertFalse(account.isApprover(vm.addr(APPROVER3_KEY)), "removed");
    }

    // ---- the policy signer is never an approver (audit finding 6) ----

    function test_RevertWhen_PolicySignerMadeApprover() public {
        vm.prank(vm.addr(OWNER_KEY));
        vm.expectRevert(
            abi.encodeWithSelector(IPaceSmartAccount.PolicySignerIsApprover.selector, vm.addr(POLICY_KEY))
        );
        account.setApprover(vm.addr(POLICY_KEY), true);
        vm.assertFalse(account.isApprover(vm.addr(POLICY_KEY)), "not an approver");
    }

    function test_RevertWhen_ApproverMadePolicySigner() public {
        vm.prank(vm.addr(OWNER_KEY));
        vm.expectRevert(
            abi.encodeWithSelector(IPaceSmartAccount.PolicySignerIsApprover.selector, vm.addr(APPROVER2_KEY))
        );
        account.setPolicySigner(vm.addr(APPROVER2_KEY));
        vm.assertEq(account.policySigner(), vm.addr(POLICY_KEY), "signer unchanged");
    }

    function test_RevertWhen_ConstructedWithPolicySignerAsApprover() public {
        address[] memory approvers = new address[](2);
        approvers[0] = vm.addr(APPROVER1_KEY);
        approvers[1] = vm.addr(POLICY_KEY);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceSmartAccount.PolicySignerIsApprover.selector, vm.addr(POLICY_KEY))
        );
        new PaceSmartAccount(vm.addr(OWNER_KEY), vm.addr(POLICY_KEY), approvers, 1);
    }

    /// @dev The clean cases: a key may change role once it has left the other one.
    function test_KeysSwitchRolesOneAtATime() public {
        vm.startPrank(vm.addr(OWNER_KEY));
        account.setApprover(vm.addr(APPROVER3_KEY), false);
        account.setPolicySigner(vm.addr(APPROVER3_KEY)); // a former approver signs policy
        account.setApprover(vm.addr(POLICY_KEY), true); // the former policy signer approves
        vm.stopPrank();
        vm.assertEq(account.policySigner(), vm.addr(APPROVER3_KEY), "policy signer");
        vm.assertTrue(account.isApprover(vm.addr(POLICY_KEY)), "approver");
        vm.assertFalse(account.isApprover(vm.addr(APPROVER3_KEY)), "no longer an approver");
    }

    /// @dev Random administration by the owner over five keys never leaves the policy signer
    /// among the approvers.
    function testFuzz_PolicySignerNeverApprover(uint256[12] memory ops) public {
        vm.startPrank(vm.addr(OWNER_KEY));
        for (uint256 i = 0; i < ops.length; i++) {
            address key = vm.addr(0xC000 + (ops[i] >> 8) % 5);
            uint256 op = ops[i] % 3;
            if (op == 0) {
                try account.setPolicySigner(key) {} catch {}
            } else {
                try account.setApprover(key, op == 1) {} catch {}
            }
            vm.assertFalse(account.isApprover(account.policySigner()), "policy signer is an approver");
        }
        vm.stopPrank();
    }

    // ---- the last approver stays (audit finding 9) ----

    /// @dev Decision: once an account has approvers it keeps at least one. A threshold of 0
    /// exists only with no approvers, and removing the last one would leave PDRs that require
    /// approval impossible to execute without anyone having decided so; approvers are rotated
    /// by adding the new one first.
    function test_RevertWhen_RemovingLastApprover() public {
        address[] memory approvers = new address[](1);
        approvers[0] = vm.addr(APPROVER1_KEY);
        account = new PaceSmartAccount(vm.addr(OWNER_KEY), vm.addr(POLICY_KEY), approvers, 1);
        vm.startPrank(vm.addr(OWNER_KEY));
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.InvalidThreshold.selector, 1, 0));
        account.setApprover(vm.addr(APPROVER1_KEY), false);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.InvalidThreshold.selector, 0, 1));
        account.setThreshold(0);
        // Rotation: add the new approver, then remove the old one.
        account.setApprover(vm.addr(APPROVER2_KEY), true);
        account.setApprover(vm.addr(APPROVER1_KEY), false);
        vm.stopPrank();
        vm.assertEq(account.approverCount(), 1, "one approver");
        vm.assertTrue(account.isApprover(vm.addr(APPROVER2_KEY)), "rotated");
    }

    // ---- two-step ownership (audit finding 11) ----

    /// @dev The owner roots every delegation chain: a transfer takes effect only when the new
    /// owner accepts, and a mistyped transfer can be overwritten before that.
    function test_OwnershipTransferIsTwoStep() public {
        Ownable2Step acct = Ownable2Step(address(account));
        vm.startPrank(vm.addr(OWNER_KEY));
        acct.transferOwnership(vm.addr(ATTACKER_KEY)); // a mistake …
        vm.assertEq(acct.owner(), vm.addr(OWNER_KEY), "owner unchanged until accepted");
        acct.transferOwnership(vm.addr(APPROVER1_KEY)); // … overwritten
        vm.stopPrank();
        vm.assertEq(acct.pendingOwner(), vm.addr(APPROVER1_KEY), "pending owner");
        vm.prank(vm.addr(ATTACKER_KEY));
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, vm.addr(ATTACKER_KEY)));
        acct.acceptOwnership();
        vm.prank(vm.addr(APPROVER1_KEY));
        acct.acceptOwnership();
        vm.assertEq(acct.owner(), vm.addr(APPROVER1_KEY), "new owner");
        vm.assertEq(acct.pendingOwner(), address(0), "no pending owner");
    }

    /// @dev Delegations rooted at the old owner work until the new owner accepts, then stop.
    function test_DelegationRootMovesOnAcceptance() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = ownerToDelegate();
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(1));
        vm.prank(vm.addr(OWNER_KEY));
        Ownable2Step(address(account)).transferOwnership(vm.addr(APPROVER1_KEY));
        vm.assertTrue(execDelegated(DELEGATE_KEY, c, terms(0, false), chain), "old root until accepted");
        vm.prank(vm.addr(APPROVER1_KEY));
        Ownable2Step(address(account)).acceptOwnership();
        IPaceSmartAccount.PDRTerms memory t = terms(1, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaceSmartAccount.DelegatorMismatch.selector, 0, vm.addr(APPROVER1_KEY), vm.addr(OWNER_KEY)
            )
        );
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
    }

    function test_RevertWhen_NotOwner() public {
        vm.prank(vm.addr(ATTACKER_KEY));
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, vm.addr(ATTACKER_KEY)));
        account.setPolicySigner(vm.addr(ATTACKER_KEY));
    }

    function test_RevertWhen_ThresholdAboveApprovers() public {
        vm.prank(vm.addr(OWNER_KEY));
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.InvalidThreshold.selector, 4, 3));
        account.setThreshold(4);
    }

    function test_RevertWhen_RemovingApproverBreaksThreshold() public {
        vm.startPrank(vm.addr(OWNER_KEY));
        account.setThreshold(3);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.InvalidThreshold.selector, 3, 2));
        account.setApprover(vm.addr(APPROVER1_KEY), false);
        vm.stopPrank();
    }

    function test_RevertWhen_ZeroPolicySigner() public {
        vm.prank(vm.addr(OWNER_KEY));
        vm.expectRevert(IPaceSmartAccount.ZeroAddress.selector);
        account.setPolicySigner(address(0));
    }

    function test_RevertWhen_ApproverUnchanged() public {
        vm.prank(vm.addr(OWNER_KEY));
        vm.expectRevert(
            abi.encodeWithSelector(IPaceSmartAccount.ApproverUnchanged.selector, vm.addr(APPROVER1_KEY), true)
        );
        account.setApprover(vm.addr(APPROVER1_KEY), true);
    }

    function test_RevertWhen_RenounceOwnership() public {
        vm.prank(vm.addr(OWNER_KEY));
        vm.expectRevert(IPaceSmartAccount.RenounceDisabled.selector);
        account.renounceOwnership();
    }

    /// @dev ERC-1271 signatures are bound to the account (ERC-7739 PersonalSign); the attacks
    /// on them are in PaceERC1271.t.sol.
    function test_ERC1271OwnerSignature() public view {
        bytes32 h = keccak256("message");
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(OWNER_KEY, erc1271Digest(h));
        vm.assertTrue(account.isValidSignature(h, abi.encodePacked(r, s, v)) == bytes4(0x1626ba7e), "owner");
        (v, r, s) = vm.sign(POLICY_KEY, erc1271Digest(h));
        vm.assertTrue(account.isValidSignature(h, abi.encodePacked(r, s, v)) == bytes4(0xffffffff), "not owner");
        vm.assertTrue(account.isValidSignature(h, hex"00") == bytes4(0xffffffff), "garbage");
    }

    function test_ReceivesEther() public {
        (bool ok,) = address(account).call{value: 1 ether}("");
        vm.assertTrue(ok, "receive");
        vm.assertEq(address(account).balance, 101 ether, "balance");
    }

    function test_NoDelegatecallOpcode() public view {
        bytes memory code = address(account).code;
        for (uint256 i = 0; i < code.length; i++) {
            uint8 op = uint8(code[i]);
            vm.assertTrue(op != 0xf4, "DELEGATECALL in runtime code");
            if (op >= 0x60 && op <= 0x7f) i += op - 0x5f; // skip PUSH data
        }
    }

    // ---------------------------------------------------------------- gas snapshot entries

    // ---------------------------------------------------------------- fuzz

    function testFuzz_DigestMatchesReference(
        address target,
        uint256 value,
        bytes calldata data,
        uint64 n,
        bytes32 policyId,
        uint8 decision,
        bool approval,
        uint64 expiry,
        bytes32 eventId
    ) public view {
        IPaceSmartAccount.PDRTerms memory t =
            IPaceSmartAccount.PDRTerms(n, policyId, decision, approval, expiry, eventId);
        vm.assertEq(account.hashPDR(target, value, data, t), referenceDigest(target, value, data, t), "digest");
        vm.assertEq(
            account.hashDelegatedPDR(target, value, data, t),
            referenceDigestOf(DELEGATED_PDR_TYPE, target, value, data, t),
            "delegated digest"
        );
    }

    function testFuzz_DelegationTotalCap(uint256[4] memory amounts) public {
        IPaceSmartAccount.SignedDelegation[] memory chain = ownerToDelegate();
        bytes32 h = account.hashDelegation(chain[0].delegation);
        uint256 total;
        uint64 n;
        for (uint256 i = 0; i < amounts.length; i++) {
            uint256 v = bound(amounts[i], 0, 1 ether);
            IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), v, bumpData(1));
            IPaceSmartAccount.PDRTerms memory t = terms(n, false);
            IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
            (bool ok,) = address(account)
                .call(
                    abi.encodeCall(PaceSmartAccount.executeDelegated, (c, t, s, new IPaceSmartAccount.Sig[](0), chain))
                );
            bool within = total + v <= 3 ether;
            vm.assertEq(ok, within, "accepted iff within total cap");
            if (ok) {
                total += v;
                n++;
            }
        }
        vm.assertEq(account.spent(h), total, "spent");
        vm.assertEq(counter.received(), total, "delivered");
    }
}

/// @dev The execution tests through the compact calldata, and the compact decoder's own rules.
contract PaceCompactTest is PaceExecutionTest {
    function setUp() public override {
        super.setUp();
        compact = true;
    }

    /// @dev A valid compact submission of a call with value and one approval.
    function validCompact() internal view returns (bytes memory cd) {
        bytes memory data = bumpData(3);
        IPaceSmartAccount.PDRTerms memory t = terms(0, true);
        bytes32 digest = account.hashPDR(address(counter), 1 ether, data, t);
        cd = compactCalldata(
            address(counter), 1 ether, data, t, signDigest(POLICY_KEY, digest), approvalsBy(one(APPROVER1_KEY), digest)
        );
    }

    /// @dev Calls the account and requires that nothing executed.
    function callRejected(bytes memory cd) internal returns (bytes memory ret) {
        bool ok;
        (ok, ret) = address(account).call(cd);
        vm.assertFalse(ok, "malformed compact calldata executed");
        vm.assertEq(uint256(account.nonce()), 0, "nonce untouched");
        vm.assertEq(counter.count(), 0, "no effect");
    }

    function test_CompactExecutesWithValueAndApproval() public {
        bytes memory cd = validCompact();
        vm.assertEq(cd.length, 172 + 64 + 8 + 36, "header, one approval, 8-byte value, data");
        (bool ok, bytes memory ret) = address(account).call(cd);
        vm.assertTrue(ok, "executed");
        (bool success,) = abi.decode(ret, (bool, bytes));
        vm.assertTrue(success, "call succeeded");
        vm.assertEq(counter.count(), 3, "effect");
        vm.assertEq(counter.received(), 1 ether, "value delivered");
    }

    function test_CompactSelectorIsTheFunctions() public pure {
        vm.assertTrue(PaceSmartAccount.executeCompact_dFki0.selector == bytes4(0x0000008d), "mined selector 0x0000008d");
    }

    /// @dev Every truncation inside header, approvals or value is malformed; inside the data it
    /// is another call, which the policy signature does not cover.
    function test_RevertWhen_CompactCalldataTruncated() public {
        bytes memory cd = validCompact();
        uint256 dataAt = 172 + 64 + 8;
        // from 1: empty calldata is a plain transfer to receive()
        for (uint256 len = 1; len < cd.length; len++) {
            bytes memory short = new bytes(len);
            for (uint256 i = 0; i < len; i++) {
                short[i] = cd[i];
            }
            bytes memory ret = callRejected(short);
            if (len < 4) {
                vm.assertEq(ret.length, 0, "no selector: reverts without data");
            } else if (len < dataAt) {
                vm.assertEq(ret, abi.encodeWithSelector(IPaceSmartAccount.MalformedCompactCall.selector), "malformed");
            } else {
                vm.assertEq(bytes4(ret), IPaceSmartAccount.UnauthorizedPolicySigner.selector, "other data");
            }
        }
    }

    /// @dev Bytes past the end belong to the call data: another call, not signed.
    function test_RevertWhen_CompactCalldataOverlong() public {
        bytes memory ret = callRejected(abi.encodePacked(validCompact(), bytes1(0)));
        vm.assertEq(bytes4(ret), IPaceSmartAccount.UnauthorizedPolicySigner.selector, "other data");
    }

    function test_RevertWhen_CompactApprovalRequiredDirty() public {
        for (uint256 b = 2; b < 256; b += 37) {
            bytes memory cd = validCompact();
            cd[41] = bytes1(uint8(b));
            vm.assertEq(
                callRejected(cd), abi.encodeWithSelector(IPaceSmartAccount.MalformedCompactCall.selector), "dirty flag"
            );
        }
    }

    function test_RevertWhen_CompactValueNotMinimal() public {
        bytes memory data = bumpData(3);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(counter), 1, data, t);
        bytes memory cd = compactCalldata(address(counter), 1, data, t, s, new IPaceSmartAccount.Sig[](0));
        // value 1 as two bytes 00 01: the same number, not the canonical encoding
        bytes memory padded = new bytes(cd.length + 1);
        for (uint256 i = 0; i < 172; i++) {
            padded[i] = cd[i];
        }
        padded[43] = 0x02;
        for (uint256 i = 172; i < cd.length; i++) {
            padded[i + 1] = cd[i];
        }
        vm.assertEq(
            callRejected(padded), abi.encodeWithSelector(IPaceSmartAccount.MalformedCompactCall.selector), "00 01"
        );
        // a value length above 32
        cd[43] = bytes1(uint8(33));
        vm.assertEq(
            callRejected(abi.encodePacked(cd, new bytes(64))),
            abi.encodeWithSelector(IPaceSmartAccount.MalformedCompactCall.selector),
            "L 33"
        );
    }

    function test_RevertWhen_CompactSelectorWrong() public {
        for (uint256 i = 0; i < 4; i++) {
            bytes memory cd = validCompact();
            cd[i] = bytes1(uint8(cd[i]) ^ 0x40);
            vm.assertEq(callRejected(cd).length, 0, "unknown selector reverts without data");
        }
    }

    function test_CompactLargestValue() public {
        vm.deal(address(account), type(uint256).max);
        bytes memory data = "";
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        uint256 v = type(uint256).max - 5;
        IPaceSmartAccount.Sig memory s = signPDR(POLICY_KEY, address(0xBEEF), v, data, t);
        bytes memory cd = compactCalldata(address(0xBEEF), v, data, t, s, new IPaceSmartAccount.Sig[](0));
        vm.assertEq(uint8(cd[43]), 32, "32-byte value");
        (bool ok,) = address(account).call(cd);
        vm.assertTrue(ok, "executed");
        vm.assertEq(address(0xBEEF).balance, v, "value delivered");
    }

    /// @dev Any truncation, extension or single-byte change of valid compact calldata reverts
    /// with an empty reason (selector changed) or one of the account's custom errors, and
    /// executes nothing.
    function testFuzz_MutatedCompactCalldataNeverExecutes(uint8 mode, uint256 pos, uint8 flip, bytes calldata extra)
        public
    {
        bytes memory cd = validCompact();
        if (mode % 3 == 0) {
            bytes memory short = new bytes(1 + pos % (cd.length - 1)); // empty calldata would be a transfer
            for (uint256 i = 0; i < short.length; i++) {
                short[i] = cd[i];
            }
            cd = short;
        } else if (mode % 3 == 1) {
            cd = abi.encodePacked(cd, extra.length == 0 ? bytes("x") : extra);
        } else {
            cd[pos % cd.length] = bytes1(uint8(cd[pos % cd.length]) ^ (flip == 0 ? 1 : flip));
        }
        bytes memory ret = callRejected(cd);
        if (ret.length == 0) return; // unknown selector or short calldata
        bytes4 e = bytes4(ret);
        vm.assertTrue(
            e == IPaceSmartAccount.MalformedCompactCall.selector
                || e == IPaceSmartAccount.UnauthorizedPolicySigner.selector
                || e == IPaceSmartAccount.InvalidNonce.selector || e == IPaceSmartAccount.DecisionNotAllow.selector
                || e == IPaceSmartAccount.PDRExpired.selector || e == IPaceSmartAccount.NotApprover.selector
                || e == IPaceSmartAccount.TooFewApprovals.selector || e == IPaceSmartAccount.DuplicateApprover.selector
                || e == IPaceSmartAccount.ApproversNotSorted.selector || e == ECDSA.ECDSAInvalidSignature.selector
                || e == ECDSA.ECDSAInvalidSignatureS.selector,
            "a custom error of the account"
        );
    }
}

/// @dev Submits random valid and invalid PDRs; keeps a ghost count of what must have executed.
contract PaceHandler is PaceBase {
    uint256 public executed;
    uint256 public expectedCount;

    constructor(PaceSmartAccount a, Counter c) {
        account = a;
        counter = c;
    }

    function setUp() public override {}

    function submit(uint8 mode, uint8 by, uint16 skew) external {
        bytes memory data = bumpData(by);
        uint64 n = account.nonce();
        IPaceSmartAccount.PDRTerms memory t = terms(n, false);
        uint256 key = POLICY_KEY;
        mode = mode % 5;
        if (mode == 1) key = ATTACKER_KEY;
        if (mode == 2 && n > 0) t.nonce = n - 1 - uint64(skew % n);
        if (mode == 3) t.decision = 0;
        if (mode == 4) t.expiry = uint64(block.timestamp - 1 - (skew % 1000));
        bool valid = key == POLICY_KEY && t.nonce == n && t.decision == 1 && t.expiry >= block.timestamp;
        IPaceSmartAccount.Sig memory s = signPDR(key, address(counter), 0, data, t);
        (bool ok,) = address(account).call(abi.encodeCall(PaceSmartAccount.execute, (address(counter), 0, data, t, s)));
        require(ok == valid, "handler: acceptance differs from model");
        if (ok) {
            executed++;
            expectedCount += by;
        }
    }
}

contract PaceSmartAccountInvariantTest is PaceBase {
    PaceHandler internal handler;

    function setUp() public override {
        super.setUp();
        handler = new PaceHandler(account, counter);
    }

    function targetContracts() public view returns (address[] memory t) {
        t = new address[](1);
        t[0] = address(handler);
    }

    /// @dev Every accepted PDR consumed exactly one nonce, and nothing else reached the target.
    function invariant_NonceCountsExecutions() public view {
        vm.assertEq(uint256(account.nonce()), handler.executed(), "nonce");
        vm.assertEq(counter.count(), handler.expectedCount(), "effects");
    }
}
