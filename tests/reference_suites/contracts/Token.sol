// SPDX-License-Identifier: LGPL-3.0-only
pragma solidity ^0.8.20;

// A minimal mintable ERC-20 for tests/reference_suites' tool cases (cosmos/evm's evm-tools-compatibility suites
// deploy an OpenZeppelin ERC-20 with a mint of the same shape); a transfer above the balance reverts with a
// custom error, as OpenZeppelin 5's ERC20InsufficientBalance.
contract Token {
    string public constant name = "Token Example";
    string public constant symbol = "TEX";
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    address public immutable owner;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    error InsufficientBalance(address sender, uint256 balance, uint256 needed);
    error NotOwner(address caller);

    constructor() {
        owner = msg.sender;
    }

    function mint(address to, uint256 amount) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        uint256 balance = balanceOf[msg.sender];
        if (balance < amount) revert InsufficientBalance(msg.sender, balance, amount);
        balanceOf[msg.sender] = balance - amount;
        balanceOf[to] += amount;
        emit Transfer(msg.sender, to, amount);
        return true;
    }
}
