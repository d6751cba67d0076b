// SPDX-License-Identifier: LGPL-3.0-only
pragma solidity >=0.7.6 <0.9.0;

// The few of Foundry's cheatcodes these scripts and tests use (forge-std's Vm is not on the npm registry).
interface Vm {
    function envUint(string calldata name) external view returns (uint256);
    function envAddress(string calldata name) external view returns (address);
    function addr(uint256 privateKey) external pure returns (address);
    function startBroadcast(uint256 privateKey) external;
    function stopBroadcast() external;
    function prank(address sender) external;
    function getCode(string calldata artifactPath) external view returns (bytes memory);
    function readFile(string calldata path) external view returns (string memory);
    function parseJsonString(string calldata json, string calldata key) external pure returns (string memory);
    function parseBytes(string calldata text) external pure returns (bytes memory);
    function replace(string calldata input, string calldata from, string calldata to)
        external pure returns (string memory);
    function toLowercase(string calldata input) external pure returns (string memory);
    function toString(address value) external pure returns (string memory);
    function toString(bytes calldata value) external pure returns (string memory);
}
