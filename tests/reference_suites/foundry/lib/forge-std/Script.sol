// SPDX-License-Identifier: LGPL-3.0-only
pragma solidity ^0.8.20;

import {Vm} from "./Vm.sol";

// What forge looks for in a script: IS_SCRIPT, and the cheatcode address as `vm`.
abstract contract Script {
    bool public IS_SCRIPT = true;
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));
}
