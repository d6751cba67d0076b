// SPDX-License-Identifier: LGPL-3.0-only
pragma solidity ^0.8.20;

// The few of Foundry's cheatcodes these scripts and tests use (forge-std's Vm is not on the npm registry).
interface Vm {
    function envUint(string calldata name) external view returns (uint256);
    function envAddress(string calldata name) external view returns (address);
    function addr(uint256 privateKey) external pure returns (address);
    function startBroadcast(uint256 privateKey) external;
    function stopBroadcast() external;
    function prank(address sender) external;
}
