// SPDX-License-Identifier: LGPL-3.0-only
pragma solidity ^0.8.20;

import {UniswapScript} from "./UniswapScript.sol";
import {Token} from "../../contracts/Token.sol";

interface UniswapV3FactoryI {
    function createPool(address tokenA, address tokenB, uint24 fee) external returns (address pool);
}

// cosmos/evm's foundry-uniswap-v3 second broadcast (run with --slow): Uniswap v3's factory, two tokens, the position
// descriptor linked to the NFTDescriptor library at LIBRARY, the position manager and the swap router, around the
// wrapped native coin at WETH9 (the chain's WERC20, where cosmos/evm's script deploys a WETH9 mock); then a pool
// made by the factory.
contract UniswapV3 is UniswapScript {
    function run() external {
        address weth = vm.envAddress("WETH9");
        bytes memory factoryCode = artifact(string.concat(CORE, "UniswapV3Factory.sol/UniswapV3Factory.json"));
        bytes memory descriptorCode = linkedToNFTDescriptor(
            string.concat(PERIPHERY, "NonfungibleTokenPositionDescriptor.sol/NonfungibleTokenPositionDescriptor.json"),
            vm.envAddress("LIBRARY")
        );
        bytes memory managerCode =
            artifact(string.concat(PERIPHERY, "NonfungiblePositionManager.sol/NonfungiblePositionManager.json"));
        bytes memory routerCode = artifact(string.concat(PERIPHERY, "SwapRouter.sol/SwapRouter.json"));

        vm.startBroadcast(vm.envUint("PRIVATE_KEY"));
        address factory = deploy(factoryCode);
        Token tokenA = new Token();
        Token tokenB = new Token();
        address descriptor = deploy(abi.encodePacked(descriptorCode, abi.encode(weth, bytes32("CHAIN"))));
        deploy(abi.encodePacked(managerCode, abi.encode(factory, weth, descriptor)));
        deploy(abi.encodePacked(routerCode, abi.encode(factory, weth)));
        UniswapV3FactoryI(factory).createPool(address(tokenA), address(tokenB), 3000);
        vm.stopBroadcast();
    }
}
