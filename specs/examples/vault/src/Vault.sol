// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Vault — an ether vault with three classic bugs, for AFR's worked example.
/// @notice DO NOT DEPLOY. `withdraw` sends before it updates the balance (re-entrancy),
/// `setOwner` has no access control, and `withdrawWithSig` accepts the same owner
/// signature any number of times (signature replay). FixedVault.sol is the same vault
/// with each bug fixed and a custom error for each refusal.
contract Vault {
    address public owner;
    mapping(address => uint256) public balanceOf;

    event Deposited(address indexed account, uint256 amount);
    event Withdrawn(address indexed account, uint256 amount);
    event OwnerChanged(address indexed previous, address indexed next);

    constructor() {
        owner = msg.sender;
    }

    function deposit() external payable {
        balanceOf[msg.sender] += msg.value;
        emit Deposited(msg.sender, msg.value);
    }

    /// Bug 1 (re-entrancy): the ether leaves before the balance is cleared.
    function withdraw() external {
        uint256 amount = balanceOf[msg.sender];
        require(amount > 0, "nothing to withdraw");
        (bool ok,) = msg.sender.call{value: amount}("");
        require(ok, "transfer failed");
        balanceOf[msg.sender] = 0;
        emit Withdrawn(msg.sender, amount);
    }

    /// Bug 2 (access control): anyone can make themselves the owner.
    function setOwner(address next) external {
        emit OwnerChanged(owner, next);
        owner = next;
    }

    /// Owner-only: sweep the vault's ether.
    function sweep(address payable to) external {
        require(msg.sender == owner, "not owner");
        to.transfer(address(this).balance);
    }

    /// Bug 3 (signature replay): a payout the owner signed can be claimed again and again.
    function withdrawWithSig(address payable to, uint256 amount, uint8 v, bytes32 r, bytes32 s) external {
        bytes32 digest = keccak256(abi.encode(address(this), block.chainid, to, amount));
        require(ecrecover(digest, v, r, s) == owner, "bad signature");
        to.transfer(amount);
    }
}
