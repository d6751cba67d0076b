// SPDX-License-Identifier: LGPL-3.0-only
pragma solidity ^0.8.20;

import {Script} from "forge-std/Script.sol";

// What the Uniswap v3 scripts share: npm's compiled artifacts of @uniswap/v3-core and v3-periphery (solc 0.7.6, as
// Uniswap deployed them; the packages ship no source of the contracts themselves), read with forge's cheatcodes and
// deployed by a CREATE from the script, which forge broadcasts as a contract creation of the signer's.
abstract contract UniswapScript is Script {
    string internal constant CORE = "node_modules/@uniswap/v3-core/artifacts/contracts/";
    string internal constant PERIPHERY = "node_modules/@uniswap/v3-periphery/artifacts/contracts/";

    function artifact(string memory path) internal view returns (bytes memory) {
        return vm.getCode(path);
    }

    // An artifact's creation code with the NFTDescriptor library's address in place of solc's link placeholder
    // (`__$` and the first 17 bytes of keccak256 of the library's qualified name, in hex, then `$__`).
    function linkedToNFTDescriptor(string memory path, address library_) internal view returns (bytes memory) {
        string memory code = vm.parseJsonString(vm.readFile(path), ".bytecode");
        bytes17 hash = bytes17(keccak256("contracts/libraries/NFTDescriptor.sol:NFTDescriptor"));
        string memory placeholder = string.concat("__$", _hex(abi.encodePacked(hash)), "$__");
        return vm.parseBytes(vm.replace(code, placeholder, _hex(abi.encodePacked(library_))));
    }

    function deploy(bytes memory code) internal returns (address deployed) {
        assembly {
            deployed := create(0, add(code, 0x20), mload(code))
        }
        require(deployed != address(0), "contract creation failed");
    }

    function _hex(bytes memory value) private pure returns (string memory) {
        return vm.replace(vm.toString(value), "0x", "");
    }
}
