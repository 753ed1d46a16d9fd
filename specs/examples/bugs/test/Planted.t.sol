// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

import {StdInvariant} from "./StdInvariant.sol";
import {Staking, FixedStaking} from "../src/Drift.sol";
import {EtherBank, FixedEtherBank, Reenterer} from "../src/Reentrancy.sol";
import {Market, Trader} from "../src/Oracle.sol";
import {Vault, Depositor} from "../src/Rounding.sol";
import {Treasury, FixedTreasury} from "../src/Access.sol";

// One invariant per pattern, each written once (an abstract test) and run twice: on the planted
// bug (Planted…Test, which fails, as planted: the `planted` profile of foundry.toml) and on its
// fixed twin (Fixed…Test, which holds: what `forge test` runs). The afrspec campaigns of
// bugs_test.go check the same invariants on the same contracts.

/// @dev The stakers (forge's targetSender), the same three as the afrspec campaign's senders.
abstract contract Stakers is StdInvariant {
    address[3] internal stakers = [address(0x5001), address(0x5002), address(0x5003)];
}

abstract contract DriftTest is Stakers {
    Staking internal staking;

    function deploy() internal virtual returns (Staking);

    function setUp() public {
        staking = deploy();
        targetContract(address(staking));
        for (uint256 i; i < stakers.length; i++) {
            targetSender(stakers[i]);
        }
    }

    /// @dev The total is the sum of the stakes.
    function invariant_Drift() public view {
        uint256 sum;
        for (uint256 i; i < stakers.length; i++) {
            sum += staking.staked(stakers[i]);
        }
        vm.assertEq(staking.totalStaked(), sum, "total staked != sum of the stakes");
    }
}

contract PlantedDriftTest is DriftTest {
    function deploy() internal override returns (Staking) {
        return new Staking();
    }
}

contract FixedDriftTest is DriftTest {
    function deploy() internal override returns (Staking) {
        return new FixedStaking();
    }
}

abstract contract ReentrancyTest is StdInvariant {
    address internal constant SAVER = address(0x5A7E);
    EtherBank internal bank;
    Reenterer internal attacker;

    function deploy() internal virtual returns (EtherBank);

    function setUp() public {
        bank = deploy();
        vm.deal(SAVER, 10 ether);
        vm.prank(SAVER);
        bank.deposit{value: 10 ether}();
        vm.deal(address(this), 5 ether);
        attacker = new Reenterer{value: 5 ether}(bank);
        targetContract(address(attacker));
    }

    /// @dev The bank holds what it owes its depositors.
    function invariant_Reentrancy() public view {
        vm.assertGe(
            address(bank).balance, bank.balanceOf(SAVER) + bank.balanceOf(address(attacker)), "the bank is insolvent"
        );
    }
}

contract PlantedReentrancyTest is ReentrancyTest {
    function deploy() internal override returns (EtherBank) {
        return new EtherBank();
    }
}

contract FixedReentrancyTest is ReentrancyTest {
    function deploy() internal override returns (EtherBank) {
        return new FixedEtherBank();
    }
}

abstract contract OracleTest is StdInvariant {
    Trader internal trader;
    Market internal market;

    function delayed() internal pure virtual returns (bool);

    function setUp() public {
        trader = new Trader(delayed());
        market = trader.market();
        targetContract(address(trader));
    }

    /// @dev Every loan is covered twice by its collateral at the fair price.
    function invariant_Oracle() public view {
        vm.assertLe(
            market.debt(address(trader)) * 2,
            market.collateral(address(trader)) * market.FAIR_PRICE(),
            "a loan is worth more than half its collateral"
        );
    }
}

contract PlantedOracleTest is OracleTest {
    function delayed() internal pure override returns (bool) {
        return false;
    }
}

contract FixedOracleTest is OracleTest {
    function delayed() internal pure override returns (bool) {
        return true;
    }
}

abstract contract RoundingTest is StdInvariant {
    Depositor internal depositor;
    Vault internal vault;

    function roundUp() internal pure virtual returns (bool);

    function setUp() public {
        depositor = new Depositor(roundUp());
        vault = depositor.vault();
        targetContract(address(depositor));
    }

    /// @dev The assets per share never fall below the starting 3 per 2.
    function invariant_Rounding() public view {
        vm.assertGe(vault.totalAssets() * 2, vault.totalShares() * 3, "the assets per share fell");
    }
}

contract PlantedRoundingTest is RoundingTest {
    function roundUp() internal pure override returns (bool) {
        return false;
    }
}

contract FixedRoundingTest is RoundingTest {
    function roundUp() internal pure override returns (bool) {
        return true;
    }
}

abstract contract AccessTest is Stakers {
    address internal constant PAYEE = address(0xFEE);
    Treasury internal treasury;

    function deploy() internal virtual returns (Treasury);

    function setUp() public {
        treasury = deploy(); // owned by this contract, which is no sender
        targetContract(address(treasury));
        bytes4[] memory selectors = new bytes4[](2);
        selectors[0] = Treasury.setFee.selector;
        selectors[1] = Treasury.setPayee.selector;
        targetSelector(FuzzSelector({addr: address(treasury), selectors: selectors}));
        for (uint256 i; i < stakers.length; i++) {
            targetSender(stakers[i]);
        }
    }

    /// @dev Only the owner changes the payee.
    function invariant_Access() public view {
        vm.assertEq(treasury.payee(), PAYEE, "the payee changed");
    }
}

contract PlantedAccessTest is AccessTest {
    function deploy() internal override returns (Treasury) {
        return new Treasury(PAYEE);
    }
}

contract FixedAccessTest is AccessTest {
    function deploy() internal override returns (Treasury) {
        return new FixedTreasury(PAYEE);
    }
}
