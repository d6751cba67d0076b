// SPDX-License-Identifier: LGPL-3.0-only
pragma solidity ^0.8.20;

import {Test} from "forge-std/Test.sol";
import {Token} from "../../contracts/Token.sol";

// cosmos/evm's Counter and SimpleERC20 tests: run in forge's own EVM, and with --fork-url on the node's state.
contract TokenTest is Test {
    function test_MintAndTransfer() public {
        Token token = new Token();
        token.mint(address(this), 10 ether);
        token.transfer(address(0xB0B), 4 ether);
        assertEq(token.balanceOf(address(0xB0B)), 4 ether, "recipient");
        assertEq(token.totalSupply(), 10 ether, "supply");
    }

    function testFuzz_Mint(uint128 amount) public {
        Token token = new Token();
        token.mint(address(0xA11CE), amount);
        assertEq(token.balanceOf(address(0xA11CE)), amount, "minted");
    }

    // With --fork-url and TOKEN set: the token the Deploy script made on the node, read from the node's state.
    function test_DeployedTokenOnFork() public {
        Token token = Token(vm.envAddress("TOKEN"));
        assertEq(token.balanceOf(vm.envAddress("RECIPIENT")), 100 ether, "recipient's balance on the node");
        assertEq(token.totalSupply(), 1000 ether, "supply on the node");
        vm.prank(vm.envAddress("RECIPIENT"));
        token.transfer(address(0xB0B), 1 ether);
        assertEq(token.balanceOf(address(0xB0B)), 1 ether, "a transfer on the fork");
    }
}
