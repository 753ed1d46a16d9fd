// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {Test} from "./Test.sol";
import {Counter, Hungry} from "./Targets.sol";
import {IPaceSmartAccount} from "../../src/IPaceSmartAccount.sol";
import {PaceSmartAccount} from "../../src/PaceSmartAccount.sol";

/// @dev The invariant handler of PaceInvariants.t.sol: submits valid PDRs, replays, mutated
/// PDRs, starved calls, delegated calls within and over caps, PDRs carrying the other nonce
/// space's nonce, and calls to failing targets, and
/// keeps ghost counts of what the account must never do. It never reverts (fail_on_revert):
/// every outcome is recorded instead.
contract PaceHandler is Test {
    uint256 internal constant POLICY_KEY = 0xB0B;
    uint256 internal constant OWNER_KEY = 0xA11CE;
    uint256 internal constant DELEGATE_KEY = 0xD001;
    uint256 internal constant ROUNDS = 7_800;
    uint256 public constant CALL_CAP = 1 ether;
    uint256 public constant TOTAL_CAP = 3 ether;

    PaceSmartAccount public immutable account;
    Counter public immutable counter;
    Hungry public immutable hungry;
    IPaceSmartAccount.SignedDelegation internal link;
    bytes32 public immutable linkHash;

    // Ghosts.
    uint256 public consumed; // policy nonces the handler saw consumed
    uint256 public delegatedConsumed; // delegated nonces the handler saw consumed
    uint256 public authorizedOut; // value of accepted policy-signed PDRs and delegated calls within caps
    uint256 public delegatedOut; // the part of authorizedOut charged to the delegation
    uint256 public replaysAccepted; // a PDR executed a second time
    uint256 public mutantsAccepted; // a PDR executed for a call it was not signed for
    uint256 public overCapAccepted; // a delegated call over a cap executed
    uint256 public noncesBurnt; // a nonce consumed by a call whose target would have succeeded
    uint256 public nonceMovedOnRevert; // a reverted submission changed a nonce
    uint256 public otherSpaceMoved; // a submission moved the other space's nonce (finding 7)
    bytes internal lastCalldata;
    bool internal lastDelegated;

    constructor(PaceSmartAccount account_, Counter counter_, Hungry hungry_) {
        account = account_;
        counter = counter_;
        hungry = hungry_;
        address[] memory targets = new address[](1);
        targets[0] = address(counter_);
        bytes4[] memory selectors = new bytes4[](2);
        selectors[0] = Counter.bump.selector;
        selectors[1] = bytes4(0);
        IPaceSmartAccount.Delegation memory d = IPaceSmartAccount.Delegation({
            delegator: vm.addr(OWNER_KEY),
            delegate: vm.addr(DELEGATE_KEY),
            parent: 0,
            targets: targets,
            selectors: selectors,
            maxValuePerCall: CALL_CAP,
            maxValueTotal: TOTAL_CAP,
            expiry: type(uint64).max,
            salt: 0
        });
        linkHash = account_.hashDelegation(d);
        (bytes32 r, bytes32 vs) = vm.signCompact(OWNER_KEY, linkHash);
        link = IPaceSmartAccount.SignedDelegation(d, IPaceSmartAccount.Sig(r, vs));
    }

    /// @dev Terms with the current nonce of the policy or the delegated space.
    function _terms(bool delegated) internal view returns (IPaceSmartAccount.PDRTerms memory) {
        return IPaceSmartAccount.PDRTerms({
            nonce: delegated ? account.delegatedNonce() : account.nonce(),
            policyId: keccak256("policy"),
            decision: 1,
            approvalRequired: false,
            expiry: uint64(block.timestamp + 1 hours),
            eventId: keccak256("event")
        });
    }

    function _sign(uint256 key, address target, uint256 value, bytes memory data, IPaceSmartAccount.PDRTerms memory t)
        internal
        view
        returns (IPaceSmartAccount.Sig memory)
    {
        (bytes32 r, bytes32 vs) = vm.signCompact(key, account.hashPDR(target, value, data, t));
        return IPaceSmartAccount.Sig(r, vs);
    }

    function _signDelegated(
        uint256 key,
        address target,
        uint256 value,
        bytes memory data,
        IPaceSmartAccount.PDRTerms memory t
    ) internal view returns (IPaceSmartAccount.Sig memory) {
        (bytes32 r, bytes32 vs) = vm.signCompact(key, account.hashDelegatedPDR(target, value, data, t));
        return IPaceSmartAccount.Sig(r, vs);
    }

    /// @dev Submits `cd` with `gasLimit`; returns whether it did not revert and the call's success.
    /// `delegated` says which nonce space the submission's entry point uses: an accepted one
    /// must move that nonce by one and leave the other unchanged.
    function _submit(bytes memory cd, uint256 gasLimit, bool delegated) internal returns (bool accepted, bool success) {
        uint256 policyBefore = account.nonce();
        uint256 delegatedBefore = account.delegatedNonce();
        bytes memory out;
        (accepted, out) = address(account).call{gas: gasLimit}(cd);
        uint256 policyAfter = account.nonce();
        uint256 delegatedAfter = account.delegatedNonce();
        if (!accepted) {
            if (policyAfter != policyBefore || delegatedAfter != delegatedBefore) nonceMovedOnRevert++;
            return (false, false);
        }
        if (delegated) {
            delegatedConsumed++;
            if (policyAfter != policyBefore) otherSpaceMoved++;
        } else {
            consumed++;
            if (delegatedAfter != delegatedBefore) otherSpaceMoved++;
        }
        (success,) = abi.decode(out, (bool, bytes));
    }

    // ---------------------------------------------------------------- actions

    /// @dev A valid policy-signed PDR to the counter (bump) or a failing target (fail).
    function executeValid(uint256 value, bool failing) external {
        value = bound(value, 0, 2 ether);
        bytes memory data = failing ? abi.encodeCall(Counter.fail, (7)) : abi.encodeCall(Counter.bump, (1));
        IPaceSmartAccount.PDRTerms memory t = _terms(false);
        bytes memory cd = abi.encodeCall(
            account.execute, (address(counter), value, data, t, _sign(POLICY_KEY, address(counter), value, data, t))
        );
        (bool accepted, bool success) = _submit(cd, 2_000_000, false);
        if (accepted && success) authorizedOut += value;
        if (accepted) {
            lastCalldata = cd;
            lastDelegated = false;
        }
    }

    /// @dev Replays the last accepted submission.
    function replay() external {
        if (lastCalldata.length == 0) return;
        (bool accepted,) = _submit(lastCalldata, 2_000_000, lastDelegated);
        if (accepted) replaysAccepted++;
    }

    /// @dev A valid PDR whose call (value, target or data), nonce or signature is changed after signing.
    function executeMutated(uint8 field, uint256 value) external {
        value = bound(value, 0, 1 ether);
        bytes memory data = abi.encodeCall(Counter.bump, (1));
        IPaceSmartAccount.PDRTerms memory t = _terms(false);
        IPaceSmartAccount.Sig memory s = _sign(POLICY_KEY, address(counter), value, data, t);
        address target = address(counter);
        field = uint8(bound(field, 0, 4));
        if (field == 0) value += 1;
        else if (field == 1) target = address(hungry);
        else if (field == 2) data = abi.encodeCall(Counter.bump, (2));
        else if (field == 3) t.nonce += 1;
        else s.r = bytes32(uint256(s.r) ^ 1);
        (bool accepted,) = _submit(abi.encodeCall(account.execute, (target, value, data, t, s)), 2_000_000, false);
        if (accepted) mutantsAccepted++;
    }

    /// @dev A valid PDR for an ~800k-gas call submitted with a gas limit the relayer chooses.
    function executeStarved(uint256 gasLimit) external {
        gasLimit = bound(gasLimit, 30_000, 1_200_000);
        bytes memory data = abi.encodeCall(Hungry.eat, (ROUNDS));
        IPaceSmartAccount.PDRTerms memory t = _terms(false);
        bytes memory cd = abi.encodeCall(
            account.execute, (address(hungry), 0, data, t, _sign(POLICY_KEY, address(hungry), 0, data, t))
        );
        (bool accepted, bool success) = _submit(cd, gasLimit, false);
        if (accepted && !success) noncesBurnt++; // eat succeeds whenever it gets the gas
    }

    /// @dev A delegated call to the counter with any value: within the caps it must execute
    /// (and count as authorised), over them it must revert.
    function executeDelegated(uint256 value) external {
        value = bound(value, 0, 2 * CALL_CAP);
        bytes memory data = abi.encodeCall(Counter.bump, (1));
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), value, data);
        IPaceSmartAccount.PDRTerms memory t = _terms(true);
        IPaceSmartAccount.SignedDelegation[] memory chain = new IPaceSmartAccount.SignedDelegation[](1);
        chain[0] = link;
        bytes memory cd = abi.encodeCall(
            account.executeDelegated,
            (c, t, _signDelegated(DELEGATE_KEY, c.target, value, data, t), new IPaceSmartAccount.Sig[](0), chain)
        );
        bool withinCaps = value <= CALL_CAP && account.spent(linkHash) + value <= TOTAL_CAP;
        (bool accepted, bool success) = _submit(cd, 2_000_000, true);
        if (accepted && !withinCaps) overCapAccepted++;
        if (accepted && success) {
            authorizedOut += value;
            delegatedOut += value;
        }
        if (accepted) {
            lastCalldata = cd;
            lastDelegated = true;
        }
    }

    /// @dev A delegated PDR carrying the policy nonce, or a policy PDR carrying the delegated
    /// nonce, while the two counters differ: the wrong space's nonce never executes.
    function executeWrongSpace(bool delegated) external {
        if (account.nonce() == account.delegatedNonce()) return;
        bytes memory data = abi.encodeCall(Counter.bump, (1));
        IPaceSmartAccount.PDRTerms memory t = _terms(!delegated);
        bytes memory cd;
        if (delegated) {
            IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, data);
            IPaceSmartAccount.SignedDelegation[] memory chain = new IPaceSmartAccount.SignedDelegation[](1);
            chain[0] = link;
            cd = abi.encodeCall(
                account.executeDelegated,
                (c, t, _signDelegated(DELEGATE_KEY, c.target, 0, data, t), new IPaceSmartAccount.Sig[](0), chain)
            );
        } else {
            cd = abi.encodeCall(
                account.execute, (address(counter), 0, data, t, _sign(POLICY_KEY, address(counter), 0, data, t))
            );
        }
        (bool accepted,) = _submit(cd, 2_000_000, delegated);
        if (accepted) mutantsAccepted++;
    }

    /// @dev A delegated call whose data a delegation cannot scope (1–3 bytes, selector 0).
    function executeDelegatedUndelegable(bool short, uint256 value) external {
        value = bound(value, 0, CALL_CAP);
        bytes memory data = short ? bytes(hex"d09de0") : abi.encodeWithSelector(bytes4(0), uint256(1));
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), value, data);
        IPaceSmartAccount.PDRTerms memory t = _terms(true);
        IPaceSmartAccount.SignedDelegation[] memory chain = new IPaceSmartAccount.SignedDelegation[](1);
        chain[0] = link;
        bytes memory cd = abi.encodeCall(
            account.executeDelegated,
            (c, t, _signDelegated(DELEGATE_KEY, c.target, value, data, t), new IPaceSmartAccount.Sig[](0), chain)
        );
        (bool accepted,) = _submit(cd, 2_000_000, true);
        if (accepted) overCapAccepted++; // out of scope: as bad as over a cap
    }
}
