// SPDX-License-Identifier: LGPL-3.0-only
pragma solidity ^0.8.20;

import {UniswapScript} from "./UniswapScript.sol";

// cosmos/evm's foundry-uniswap-v3 first broadcast: Uniswap v3's NFTDescriptor library alone, which the position
// descriptor of the second broadcast (UniswapV3.s.sol) links to at the address given as LIBRARY.
contract UniswapLibrary is UniswapScript {
    function run() external {
        bytes memory code = artifact(string.concat(PERIPHERY, "libraries/NFTDescriptor.sol/NFTDescriptor.json"));
        vm.startBroadcast(vm.envUint("PRIVATE_KEY"));
        deploy(code);
        vm.stopBroadcast();
    }
}
