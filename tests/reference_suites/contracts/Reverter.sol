// SPDX-License-Identifier: LGPL-3.0-only
pragma solidity ^0.8.20;

// Reverts of every kind for tests/reference_suites/test/7_reverts.js, after cosmos/evm's revert_cases suite: plain
// reverts, Solidity's panics, nested and wrapped reverts, out of gas, and precompile calls that revert inside a
// contract (the staking and distribution precompiles given a bad validator address).

interface IStaking {
    function delegate(address delegatorAddress, string memory validatorAddress, uint256 amount)
        external returns (bool success);
}

interface IDistribution {
    struct Coin {
        string denom;
        uint256 amount;
    }

    function withdrawDelegatorRewards(address delegatorAddress, string memory validatorAddress)
        external returns (Coin[] memory amount);
}

interface IBank {
    struct Balance {
        address contractAddress;
        uint256 amount;
    }

    function balances(address account) external view returns (Balance[] memory);
}

contract Reverter {
    IStaking constant STAKING = IStaking(0x0000000000000000000000000000000000000800);
    IDistribution constant DISTRIBUTION = IDistribution(0x0000000000000000000000000000000000000801);
    IBank constant BANK = IBank(0x0000000000000000000000000000000000000804);

    uint256 public counter;
    uint256[] private items;
    mapping(uint256 => uint256) private slots;

    event Called(string what);

    constructor() payable {}

    function standardRevert(string calldata reason) external {
        counter++;
        revert(reason);
    }

    function requireBelow(uint256 value, uint256 threshold) external {
        counter++;
        require(value < threshold, "Value exceeds threshold");
    }

    function assertFails() external {
        counter++;
        assert(counter == 0);
    }

    function divide(uint256 a, uint256 b) external pure returns (uint256) {
        return a / b;
    }

    function divideTx(uint256 a, uint256 b) external returns (uint256) {
        counter++;
        return a / b;
    }

    function outOfBounds(uint256 index) external returns (uint256) {
        counter++;
        return items[index];
    }

    function nestedRevert() external {
        counter++;
        try this.innerRevert() {
        } catch (bytes memory reason) {
            assembly {
                revert(add(reason, 0x20), mload(reason))
            }
        }
    }

    function innerRevert() external pure {
        revert("Internal function revert");
    }

    function wrapped(Reverter target, string calldata reason) external {
        counter++;
        target.standardRevert(reason);
    }

    function burnGas(uint256 iterations) external {
        for (uint256 i = 0; i < iterations; i++) {
            slots[i] = i + counter;
        }
    }

    function stakingRevert(string calldata validator) external {
        counter++;
        emit Called("staking");
        STAKING.delegate(address(this), validator, 1);
    }

    function distributionRevert(string calldata validator) external {
        counter++;
        DISTRIBUTION.withdrawDelegatorRewards(address(this), validator);
    }

    // A bank query that succeeds, then a staking call that reverts: the whole tx reverts with the staking reason.
    function queryThenStakingRevert(string calldata validator) external {
        counter++;
        BANK.balances(address(this));
        emit Called("bank");
        STAKING.delegate(address(this), validator, 1);
    }

    // The staking call in a frame of its own whose revert this one rethrows.
    function stakingRevertRethrown(string calldata validator) external {
        counter++;
        try this.stakingRevert(validator) {
        } catch (bytes memory reason) {
            assembly {
                revert(add(reason, 0x20), mload(reason))
            }
        }
    }

    // Most of the gas burnt, then a staking call that has too little left.
    function burnThenStake(uint256 iterations, string calldata validator) external {
        for (uint256 i = 0; i < iterations; i++) {
            slots[i] = i + counter;
        }
        STAKING.delegate(address(this), validator, 1);
    }
}
