// SPDX-License-Identifier: LGPL-3.0-only
pragma solidity ^0.8.20;

import {Script} from "forge-std/Script.sol";
import {Token} from "../../contracts/Token.sol";

// cosmos/evm's DeployERC20 and Transfer scripts in one: deploy, mint to the deployer, send some to RECIPIENT.
contract Deploy is Script {
    function run() external {
        uint256 key = vm.envUint("PRIVATE_KEY");
        vm.startBroadcast(key);
        Token token = new Token();
        token.mint(vm.addr(key), 1000 ether);
        token.transfer(vm.envAddress("RECIPIENT"), 100 ether);
        vm.stopBroadcast();
    }
}
