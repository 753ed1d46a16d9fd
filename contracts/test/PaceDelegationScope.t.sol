// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {PaceBase} from "./PaceSmartAccount.t.sol";
import {Counter} from "./utils/Targets.sol";
import {Recorder} from "./utils/ScopeTargets.sol";
import {IPaceSmartAccount} from "../src/IPaceSmartAccount.sol";
import {PaceDelegations} from "../src/PaceDelegations.sol";

/// @dev Issue 12, finding 3 (Medium): delegation scope escape through selector `0x00000000`.
/// A `0x00000000` entry in a delegation's `selectors` means "plain transfer" (empty calldata)
/// only: calldata of 1–3 bytes (no selector) and calldata whose real selector is `0x00000000`
/// (Seaport's `fulfillBasicOrder_efficient_6GL6yc`, or any fallback) are refused in delegated
/// calls with `UndelegableCalldata(length)`, before any link is checked. {Recorder} stands in
/// for both kinds of target: its fallback accepts and records any calldata.
contract PaceDelegationScopeTest is PaceBase {
    Recorder internal recorder;

    function setUp() public override {
        super.setUp();
        recorder = new Recorder();
    }

    /// @dev A link over `recorder` and `counter` allowing `selectors`, 1 ether per call.
    function transferScope(address delegator, address delegate, bytes32 parent, bytes4[] memory selectors)
        internal
        view
        returns (IPaceSmartAccount.Delegation memory d)
    {
        d = scope(delegator, delegate, parent);
        address[] memory targets = new address[](2);
        targets[0] = address(recorder);
        targets[1] = address(counter);
        d.targets = targets;
        d.selectors = selectors;
    }

    function sels(bytes4 a) internal pure returns (bytes4[] memory s) {
        s = new bytes4[](1);
        s[0] = a;
    }

    function sels(bytes4 a, bytes4 b) internal pure returns (bytes4[] memory s) {
        s = new bytes4[](2);
        s[0] = a;
        s[1] = b;
    }

    /// @dev The owner's link to DELEGATE_KEY allowing `selectors` (the docs' "plain transfers
    /// only" delegation when `selectors` is [0x00000000]).
    function transferChain(bytes4[] memory selectors)
        internal
        view
        returns (IPaceSmartAccount.SignedDelegation[] memory)
    {
        return chainOf(
            signDelegation(OWNER_KEY, transferScope(vm.addr(OWNER_KEY), vm.addr(DELEGATE_KEY), 0, selectors))
        );
    }

    /// @dev Owner → DELEGATE_KEY → SUBDELEGATE_KEY, both links allowing `selectors`.
    function transferChain2(bytes4[] memory selectors)
        internal
        view
        returns (IPaceSmartAccount.SignedDelegation[] memory chain)
    {
        IPaceSmartAccount.Delegation memory root =
            transferScope(vm.addr(OWNER_KEY), vm.addr(DELEGATE_KEY), 0, selectors);
        IPaceSmartAccount.Delegation memory sub =
            transferScope(vm.addr(DELEGATE_KEY), vm.addr(SUBDELEGATE_KEY), account.hashDelegation(root), selectors);
        chain = new IPaceSmartAccount.SignedDelegation[](2);
        chain[0] = signDelegation(OWNER_KEY, root);
        chain[1] = signDelegation(DELEGATE_KEY, sub);
    }

    /// @dev Expects executeDelegated of (target, value, data) signed by `key` under `chain` to
    /// revert with UndelegableCalldata(data.length), and that nothing happened.
    function expectUndelegable(
        uint256 key,
        address target,
        uint256 value,
        bytes memory data,
        IPaceSmartAccount.SignedDelegation[] memory chain
    ) internal {
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(target, value, data);
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(key, c.target, c.value, c.data, t);
        vm.expectRevert(abi.encodeWithSelector(PaceDelegations.UndelegableCalldata.selector, data.length));
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
        vm.assertEq(recorder.calls(), 0, "the target was not called");
        vm.assertEq(account.nonce(), 0, "no nonce consumed");
        vm.assertEq(address(account).balance, 100 ether, "no value left the account");
        for (uint256 i = 0; i < chain.length; i++) {
            vm.assertEq(account.spent(account.hashDelegation(chain[i].delegation)), 0, "nothing charged");
        }
    }

    // ---------------------------------------------------------------- the clean cases

    function test_PlainTransferUnderTransferDelegation() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = transferChain(sels(bytes4(0)));
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(recorder), 0.5 ether, "");
        vm.assertTrue(execDelegated(DELEGATE_KEY, c, terms(0, false), chain), "plain transfer executed");
        vm.assertEq(recorder.received(), 0.5 ether, "value received");
        vm.assertEq(recorder.lastData().length, 0, "empty calldata");
        vm.assertEq(account.spent(account.hashDelegation(chain[0].delegation)), 0.5 ether, "spending recorded");
    }

    function test_PlainTransferThroughSubDelegation() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = transferChain2(sels(bytes4(0)));
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(recorder), 0.25 ether, "");
        vm.assertTrue(execDelegated(SUBDELEGATE_KEY, c, terms(0, false), chain), "plain transfer executed");
        vm.assertEq(recorder.received(), 0.25 ether, "value received");
    }

    function test_NonzeroSelectorNextToZeroEntry() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = transferChain(sels(bytes4(0), Counter.bump.selector));
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(counter), 0, bumpData(7));
        vm.assertTrue(execDelegated(DELEGATE_KEY, c, terms(0, false), chain), "bump executed");
        vm.assertEq(counter.count(), 7, "bumped");
    }

    function test_RevertWhen_PlainTransferWithoutZeroEntry() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = transferChain(sels(Counter.bump.selector));
        bytes32 h = account.hashDelegation(chain[0].delegation);
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(recorder), 1 wei, "");
        IPaceSmartAccount.PDRTerms memory t = terms(0, false);
        IPaceSmartAccount.Sig memory s = signDelegatedPDR(DELEGATE_KEY, c.target, c.value, c.data, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceSmartAccount.SelectorNotDelegated.selector, h, bytes4(0)));
        account.executeDelegated(c, t, s, new IPaceSmartAccount.Sig[](0), chain);
    }

    /// @dev Undelegated PDRs are not affected: the policy signer decides on the exact bytes.
    function test_PolicySignedShortAndZeroSelectorCallsStillExecute() public {
        bytes[3] memory datas = [bytes(hex"01"), bytes(hex"00000000"), bytes(hex"00000000ff")];
        for (uint256 i = 0; i < datas.length; i++) {
            IPaceSmartAccount.PDRTerms memory t = terms(uint64(i), false);
            (bool ok,) = exec(
                address(recorder), 0, datas[i], t, signPDR(POLICY_KEY, address(recorder), 0, datas[i], t)
            );
            vm.assertTrue(ok, "executed");
        }
        vm.assertEq(recorder.calls(), 3, "all three reached the target");
    }

    // ---------------------------------------------------------------- the attacks

    function test_RevertWhen_DelegatedCalldataIsOneToThreeBytes() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = transferChain(sels(bytes4(0)));
        expectUndelegable(DELEGATE_KEY, address(recorder), 0, hex"ff", chain);
        expectUndelegable(DELEGATE_KEY, address(recorder), 1 wei, hex"0000", chain);
        expectUndelegable(DELEGATE_KEY, address(recorder), 0, hex"abcdef", chain);
    }

    function test_RevertWhen_ZeroSelectorFunctionUnderTransferDelegation() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = transferChain(sels(bytes4(0)));
        // A call of a function whose selector is 0x00000000, e.g. Seaport's
        // fulfillBasicOrder_efficient_6GL6yc(BasicOrderParameters).
        bytes memory data = abi.encodeWithSelector(bytes4(0), uint256(1), address(this), bytes32("order"));
        expectUndelegable(DELEGATE_KEY, address(recorder), 0.1 ether, data, chain);
    }

    function test_RevertWhen_ZeroSelectorWithoutArguments() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = transferChain(sels(bytes4(0)));
        expectUndelegable(DELEGATE_KEY, address(recorder), 0, hex"00000000", chain);
    }

    function test_RevertWhen_ZeroSelectorNextToOtherSelectors() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = transferChain(sels(Counter.bump.selector, bytes4(0)));
        expectUndelegable(DELEGATE_KEY, address(counter), 0, abi.encodeWithSelector(bytes4(0), uint256(5)), chain);
        expectUndelegable(DELEGATE_KEY, address(counter), 0, hex"d09de0", chain); // bump's first 3 bytes
    }

    function test_RevertWhen_ZeroSelectorThroughSubDelegation() public {
        IPaceSmartAccount.SignedDelegation[] memory chain = transferChain2(sels(bytes4(0)));
        expectUndelegable(SUBDELEGATE_KEY, address(recorder), 0, hex"000000001234", chain);
        expectUndelegable(SUBDELEGATE_KEY, address(recorder), 0, hex"00", chain);
    }

    /// @dev Every 1–3-byte calldata and every calldata with selector 0x00000000 is refused, with
    /// or without value, under a chain that allows 0x00000000.
    function testFuzz_ShortOrZeroSelectorCalldataNeverDelegated(bytes memory tail, uint8 shortLen, bool short, uint96 value)
        public
    {
        bytes memory data;
        if (short) {
            data = new bytes(bound(shortLen, 1, 3));
            for (uint256 i = 0; i < data.length && i < tail.length; i++) {
                data[i] = tail[i];
            }
        } else {
            data = bytes.concat(bytes4(0), tail);
        }
        expectUndelegable(
            DELEGATE_KEY, address(recorder), bound(value, 0, 1 ether), data, transferChain(sels(bytes4(0)))
        );
    }

    /// @dev The fix refuses nothing else: a nonzero selector in scope still executes.
    function testFuzz_NonzeroSelectorInScopeExecutes(bytes4 selector, bytes memory args) public {
        vm.assume(selector != bytes4(0));
        IPaceSmartAccount.SignedDelegation[] memory chain = transferChain(sels(bytes4(0), selector));
        bytes memory data = bytes.concat(selector, args);
        IPaceSmartAccount.Call memory c = IPaceSmartAccount.Call(address(recorder), 1 wei, data);
        vm.assertTrue(execDelegated(DELEGATE_KEY, c, terms(0, false), chain), "executed");
        vm.assertEq(recorder.lastData(), data, "the target got the calldata");
    }
}
