// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {IPaceSmartAccount} from "../../src/IPaceSmartAccount.sol";
import {PaceSmartAccount} from "../../src/PaceSmartAccount.sol";

/// @dev The trivial call target of the gas figures: `ping()` does nothing.
contract Sink {
    function ping() external payable {}
}

/// @dev A target with observable effects.
contract Counter {
    uint256 public count;
    uint256 public received;
    address public lastCaller;

    error Boom(uint256 code);

    function bump(uint256 by) external payable {
        count += by;
        received += msg.value;
        lastCaller = msg.sender;
    }

    function fail(uint256 code) external pure {
        revert Boom(code);
    }

    /// @dev Burns all gas it is given.
    function burn() external pure {
        while (true) {}
    }
}

/// @dev A malicious target that re-enters the account with a second, validly signed PDR.
contract Reenterer {
    PaceSmartAccount internal account;
    address internal target;
    bytes internal data;
    IPaceSmartAccount.PDRTerms internal terms;
    IPaceSmartAccount.Sig internal sig;

    bytes internal raw;

    bool public reentered;
    bytes public reentryRevert;

    /// @dev Re-enters with this calldata (e.g. the compact form) instead of execute.
    function armRaw(bytes calldata raw_) external {
        raw = raw_;
    }

    function arm(
        PaceSmartAccount account_,
        address target_,
        bytes calldata data_,
        IPaceSmartAccount.PDRTerms calldata terms_,
        IPaceSmartAccount.Sig calldata sig_
    ) external {
        account = account_;
        target = target_;
        data = data_;
        terms = terms_;
        sig = sig_;
    }

    function attack() external {
        if (raw.length != 0) {
            (bool ok, bytes memory ret) = address(account).call(raw);
            if (ok) reentered = true;
            else reentryRevert = ret;
            return;
        }
        try account.execute(target, 0, data, terms, sig) {
            reentered = true;
        } catch (bytes memory reason) {
            reentryRevert = reason;
        }
    }
}

/// @dev An owner contract that tries to rotate its account's keys while the account calls it.
contract AdminTarget {
    bytes public signerRevert;
    bytes public thresholdRevert;

    function rotate() external {
        try PaceSmartAccount(payable(msg.sender)).setPolicySigner(address(this)) {}
        catch (bytes memory reason) {
            signerRevert = reason;
        }
        try PaceSmartAccount(payable(msg.sender)).setThreshold(1) {}
        catch (bytes memory reason) {
            thresholdRevert = reason;
        }
    }
}

/// @dev A target whose work needs a fixed amount of gas (`rounds` keccaks; the tests' ROUNDS is
/// about 800,000 gas): with less it runs out of gas, as a call starved by its relayer does.
contract Hungry {
    uint256 public meals;

    error Refused(uint256 rounds);

    function eat(uint256 rounds) external payable {
        _work(rounds);
        meals++;
    }

    /// @dev The same work, then a revert: an honest failure of an expensive call.
    function eatThenRefuse(uint256 rounds) external payable {
        _work(rounds);
        revert Refused(rounds);
    }

    function _work(uint256 rounds) private pure {
        assembly ("memory-safe") {
            let x := rounds
            for { let i := 0 } lt(i, rounds) { i := add(i, 1) } {
                mstore(0x00, x)
                x := keccak256(0x00, 0x20)
            }
            mstore(0x00, x)
        }
    }
}

/// @dev One proxy-like hop: forwards `eat` to the next contract with all its gas (Solidity's
/// high-level call, 63/64 of what it has) and bubbles a failure up, as a token behind a proxy
/// does. A starved innermost call then leaves the account more than 1/64 of its gas.
contract Relay {
    address public immutable next;

    constructor(address next_) {
        next = next_;
    }

    function eat(uint256 rounds) external payable {
        Hungry(next).eat(rounds);
    }
}
