// SPDX-License-Identifier: LGPL-3.0-only
pragma solidity ^0.8.20;

// A contract that sends its caller's coins over IBC through the ICS20 precompile, within the allowance the caller
// approved it (tests/test_ics20_precompile.py). Compiled by tests/solidity/compile.js (npm's solc 0.8.28, optimizer
// on, 200 runs) into ICS20Caller.json; tests/test_solidity_sources.py compiles it again and compares.

struct Height {
    uint64 revisionNumber;
    uint64 revisionHeight;
}

interface IICS20 {
    function transfer(string memory sourcePort, string memory sourceChannel, string memory denom, uint256 amount,
                      address sender, string memory receiver, Height memory timeoutHeight, uint64 timeoutTimestamp,
                      string memory memo) external returns (uint64 nextSequence);
}

contract ICS20Caller {
    IICS20 constant ICS20 = IICS20(0x0000000000000000000000000000000000000802);

    // Sends `amount` of the caller's `denom` to `receiver` over `channel`, timing out in 2096.
    function transferForCaller(string calldata channel, string calldata denom, uint256 amount,
                               string calldata receiver) external returns (uint64) {
        return ICS20.transfer("transfer", channel, denom, amount, msg.sender, receiver, Height(0, 0),
                              4000000000000000000, "");
    }
}
