// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title FixedVault — Vault.sol with its three bugs fixed; every refusal is a custom error.
contract FixedVault {
    address public owner;
    mapping(address => uint256) public balanceOf;
    mapping(bytes32 => bool) public used;
    bool private locked;

    error NothingToWithdraw(address account);
    error Reentrancy();
    error TransferFailed(address to, uint256 amount);
    error NotOwner(address caller);
    error BadSignature(address signer);
    error SignatureReused(bytes32 digest);

    event Deposited(address indexed account, uint256 amount);
    event Withdrawn(address indexed account, uint256 amount);
    event OwnerChanged(address indexed previous, address indexed next);
    event PaidWithSig(address indexed to, uint256 amount, uint256 nonce);

    constructor() {
        owner = msg.sender;
    }

    modifier nonReentrant() {
        if (locked) revert Reentrancy();
        locked = true;
        _;
        locked = false;
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _;
    }

    function deposit() external payable {
        balanceOf[msg.sender] += msg.value;
        emit Deposited(msg.sender, msg.value);
    }

    /// Fix 1: checks, effects, interactions — and a lock.
    function withdraw() external nonReentrant {
        uint256 amount = balanceOf[msg.sender];
        if (amount == 0) revert NothingToWithdraw(msg.sender);
        balanceOf[msg.sender] = 0;
        (bool ok,) = msg.sender.call{value: amount}("");
        if (!ok) revert TransferFailed(msg.sender, amount);
        emit Withdrawn(msg.sender, amount);
    }

    /// Fix 2: only the owner hands over ownership.
    function setOwner(address next) external onlyOwner {
        emit OwnerChanged(owner, next);
        owner = next;
    }

    function sweep(address payable to) external onlyOwner {
        to.transfer(address(this).balance);
    }

    /// Fix 3: the signed message carries a nonce, and each digest pays once.
    function withdrawWithSig(address payable to, uint256 amount, uint256 nonce, uint8 v, bytes32 r, bytes32 s)
        external
        nonReentrant
    {
        bytes32 digest = keccak256(abi.encode(address(this), block.chainid, to, amount, nonce));
        if (used[digest]) revert SignatureReused(digest);
        address signer = ecrecover(digest, v, r, s);
        if (signer != owner) revert BadSignature(signer);
        used[digest] = true;
        emit PaidWithSig(to, amount, nonce);
        to.transfer(amount);
    }
}
