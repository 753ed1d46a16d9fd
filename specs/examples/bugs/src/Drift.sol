// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// @title Staking
/// @notice Pattern 1, accounting drift: every stake is kept per staker and in a running total,
/// which must always equal the sum of the stakes. The planted bug: unstakeAll clears the
/// staker's stake and forgets the total (one path updates both, another only one).
contract Staking {
    mapping(address => uint256) public staked;
    uint256 public totalStaked;

    function stake(uint96 amount) external {
        staked[msg.sender] += amount;
        totalStaked += amount;
    }

    function unstake(uint96 amount) external {
        staked[msg.sender] -= amount;
        totalStaked -= amount;
    }

    /// @dev The planted bug: the total is left as it was.
    function unstakeAll() external virtual {
        staked[msg.sender] = 0;
    }
}

/// @title FixedStaking
/// @notice Staking whose unstakeAll takes the stake out of the total too.
contract FixedStaking is Staking {
    function unstakeAll() external override {
        totalStaked -= staked[msg.sender];
        staked[msg.sender] = 0;
    }
}
