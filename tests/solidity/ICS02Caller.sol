// SPDX-License-Identifier: LGPL-3.0-only
pragma solidity ^0.8.20;

// A contract that reads a light client and checks proofs of the counterparty's state through the ICS02 precompile
// (tests/test_ibc_precompile_node.py). Compiled by tests/solidity/compile.js (npm's solc 0.8.28, optimizer on,
// 200 runs) into ICS02Caller.json; tests/test_solidity_sources.py compiles it again and compares.

struct Height {
    uint64 revisionNumber;
    uint64 revisionHeight;
}

interface ICS02I {
    function verifyMembership(string calldata clientId, bytes calldata proof, Height calldata proofHeight,
        bytes[] calldata path, bytes calldata value) external returns (uint256);

    function verifyNonMembership(string calldata clientId, bytes calldata proof, Height calldata proofHeight,
        bytes[] calldata path) external returns (uint256);

    function getClientState(string calldata clientId) external view returns (bytes memory);
}

contract ICS02Caller {
    ICS02I constant ICS02 = ICS02I(0x0000000000000000000000000000000000000807);

    // The counterparty's time at each proof height a proof was accepted at.
    mapping(uint64 => uint256) public provenAt;

    event Proven(bytes key, bytes value, uint256 timestamp);
    event Absent(bytes key, uint256 timestamp);

    // Accepts `value` at `key` of the counterparty's `store` only if the proof holds; else the call reverts with
    // the precompile's reason.
    function acceptValue(string calldata clientId, bytes calldata proof, Height calldata proofHeight,
        bytes calldata store, bytes calldata key, bytes calldata value) external returns (uint256 timestamp) {
        bytes[] memory path = new bytes[](2);
        path[0] = store;
        path[1] = key;
        timestamp = ICS02.verifyMembership(clientId, proof, proofHeight, path, value);
        provenAt[proofHeight.revisionHeight] = timestamp;
        emit Proven(key, value, timestamp);
    }

    function acceptAbsence(string calldata clientId, bytes calldata proof, Height calldata proofHeight,
        bytes calldata store, bytes calldata key) external returns (uint256 timestamp) {
        bytes[] memory path = new bytes[](2);
        path[0] = store;
        path[1] = key;
        timestamp = ICS02.verifyNonMembership(clientId, proof, proofHeight, path);
        emit Absent(key, timestamp);
    }

    function clientState(string calldata clientId) external view returns (bytes memory) {
        return ICS02.getClientState(clientId);
    }
}
