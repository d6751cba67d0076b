// SPDX-License-Identifier: LGPL-3.0-only
pragma solidity ^0.8.20;

import {Vm} from "./Vm.sol";

// What forge looks for in a test: IS_TEST, and the cheatcode address as `vm`; a failed assertion reverts.
abstract contract Test {
    bool public IS_TEST = true;
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    function assertEq(uint256 a, uint256 b, string memory what) internal pure {
        require(a == b, what);
    }
}
