// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

// Contracts of afrspec's matcher tests: a vault and a token that are not
// AFR's, with custom errors (with arguments), events, a require string, a
// panic and ether and ERC-20 transfers. testdata/contracts.json is generated
// from this file (go generate ./specs/afrspec).

contract Coin {
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    error InsufficientBalance(address holder, uint256 balance, uint256 needed);

    constructor(address holder, uint256 supply) {
        balanceOf[holder] = supply;
        emit Transfer(address(0), holder, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        uint256 bal = balanceOf[msg.sender];
        if (bal < value) revert InsufficientBalance(msg.sender, bal, value);
        balanceOf[msg.sender] = bal - value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }
}

contract Vault {
    address public owner;
    mapping(address => uint256) public deposits;

    event Deposited(address indexed who, uint256 amount);
    event Withdrawn(address indexed who, uint256 amount);

    error NotOwner(address caller, address owner);
    error Empty();

    constructor() {
        owner = msg.sender;
    }

    function deposit() external payable {
        if (msg.value == 0) revert Empty();
        deposits[msg.sender] += msg.value;
        emit Deposited(msg.sender, msg.value);
    }

    function withdraw(uint256 amount) external {
        require(deposits[msg.sender] >= amount, "insufficient deposit");
        deposits[msg.sender] -= amount;
        emit Withdrawn(msg.sender, amount);
        (bool ok,) = msg.sender.call{value: amount}("");
        require(ok, "transfer failed");
    }

    function sweep(address to) external {
        if (msg.sender != owner) revert NotOwner(msg.sender, owner);
        (bool ok,) = to.call{value: address(this).balance}("");
        require(ok, "transfer failed");
    }

    function ratio(uint256 a, uint256 b) external pure returns (uint256) {
        return a / b; // Panic(0x12) when b == 0
    }

    // pay forwards a Coin transfer from the vault's own balance.
    function pay(Coin coin, address to, uint256 value) external {
        if (msg.sender != owner) revert NotOwner(msg.sender, owner);
        coin.transfer(to, value);
    }
}

// Guard is deployed without DeployArtifact: the World learns its ABI only
// when a spec adds it to w.Registry by hand.
contract Guard {
    error Locked(uint256 until);

    function poke() external pure {
        revert Locked(42);
    }
}

// PoolBase declares an error that both pools inherit: a revert of either
// must be named after the pool that raised it.
abstract contract PoolBase {
    event Borrowed(address indexed who, uint256 amount);

    error TransferFailed(address token, uint256 amount);

    function _pull(Coin coin, uint256 amount) internal {
        // Coin.transfer reverts on an insufficient balance, and returns true
        // otherwise: a false return is what an unchecked token gives.
        if (!coin.transfer(msg.sender, amount)) revert TransferFailed(address(coin), amount);
    }
}

contract LendingPool is PoolBase {
    function borrow(Coin coin, uint256 amount) external {
        _pull(coin, amount);
        emit Borrowed(msg.sender, amount);
    }
}

// FixedLendingPool refuses loans above its cap after announcing them.
contract FixedLendingPool is PoolBase {
    uint256 public immutable cap;

    constructor(uint256 cap_) {
        cap = cap_;
    }

    function borrow(Coin coin, uint256 amount) external returns (uint256) {
        emit Borrowed(msg.sender, amount);
        if (amount > cap) revert TransferFailed(address(coin), amount);
        _pull(coin, amount);
        return amount;
    }
}

// Borrower borrows from a pool on behalf of its caller: the pool's revert
// reaches the transaction through it.
contract Borrower {
    function run(FixedLendingPool pool, Coin coin, uint256 amount) external returns (uint256) {
        return pool.borrow(coin, amount);
    }
}
