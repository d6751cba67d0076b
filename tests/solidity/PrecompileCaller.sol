// SPDX-License-Identifier: LGPL-3.0-only
pragma solidity ^0.8.20;

// A contract that uses the staking and distribution precompiles for itself (tests/test_native_precompiles.py).
// Compiled by tests/solidity/compile.js (npm's solc 0.8.28, optimizer on, 200 runs) into PrecompileCaller.json;
// tests/test_solidity_sources.py compiles it again and compares.

interface IStaking {
    function delegate(address delegatorAddress, string memory validatorAddress, uint256 amount)
        external returns (bool success);
}

interface IDistribution {
    function claimRewards(address delegatorAddress, uint32 maxRetrieve) external returns (bool success);
}

contract PrecompileCaller {
    IStaking constant STAKING = IStaking(0x0000000000000000000000000000000000000800);
    IDistribution constant DISTRIBUTION = IDistribution(0x0000000000000000000000000000000000000801);

    receive() external payable {}

    // The contract delegates its own coins.
    function delegateOwn(string calldata validator, uint256 amount) external returns (bool) {
        return STAKING.delegate(address(this), validator, amount);
    }

    // Delegates, then reverts: the delegation and its coin move go with the frame.
    function delegateThenRevert(string calldata validator, uint256 amount) external {
        STAKING.delegate(address(this), validator, amount);
        revert("undone");
    }

    // delegateThenRevert in an inner frame that fails, while this one goes on and succeeds.
    function delegateInFailedFrame(string calldata validator, uint256 amount) external returns (bool) {
        try this.delegateThenRevert(validator, amount) {
            return true;
        } catch {
            return false;
        }
    }

    // Asks to delegate the coins of the account that called it: refused.
    function delegateForCaller(string calldata validator, uint256 amount) external returns (bool) {
        return STAKING.delegate(msg.sender, validator, amount);
    }

    // Claims the contract's own rewards.
    function claimOwn() external returns (bool) {
        return DISTRIBUTION.claimRewards(address(this), 10);
    }
}
