"""Bytecode fixtures, assembled from the listings below so a reader can check them by eye.

StoreContract: empty calldata returns slot 0; a non-zero word stores it in slot 0 and emits
LOG1(STORED, word); a zero word reverts with the 32-byte word 42.
"""

from eth_utils import keccak

from evm_client import send

OPS = {"STOP": 0x00, "MSTORE": 0x52, "SLOAD": 0x54, "SSTORE": 0x55, "JUMP": 0x56, "JUMPI": 0x57, "JUMPDEST": 0x5B,
       "CALLDATALOAD": 0x35, "CALLDATASIZE": 0x36, "CODECOPY": 0x39, "DUP1": 0x80, "LOG1": 0xA1,
       "RETURN": 0xF3, "REVERT": 0xFD,
       "ADD": 0x01, "SUB": 0x03, "LT": 0x10, "EQ": 0x14, "SHL": 0x1B, "SHR": 0x1C, "CALLER": 0x33,
       "CALLDATACOPY": 0x37, "GAS": 0x5A, "DUP2": 0x81, "DUP3": 0x82, "SWAP1": 0x90, "LOG3": 0xA3,
       "CALL": 0xF1, "DELEGATECALL": 0xF4, "TIMESTAMP": 0x42, "NUMBER": 0x43, "PUSH0": 0x5F}

STORED = bytes.fromhex("aa" * 32)


def assemble(listing):
    """Ops, ("PUSH", int or bytes, width) and ("LABEL", name) / ("REF", name) to bytecode."""
    def size(item):
        if isinstance(item, str):
            return 1
        if item[0] == "LABEL":
            return 0
        return 1 + (1 if item[0] == "REF" else item[2])

    labels, pc = {}, 0
    for item in listing:
        if not isinstance(item, str) and item[0] == "LABEL":
            labels[item[1]] = pc
        pc += size(item)
    out = bytearray()
    for item in listing:
        if isinstance(item, str):
            out.append(OPS[item])
        elif item[0] == "REF":
            out += bytes([0x60, labels[item[1]]])
        elif item[0] == "PUSH":
            value = item[1] if isinstance(item[1], bytes) else item[1].to_bytes(item[2], "big")
            out += bytes([0x5F + item[2]]) + value
    return bytes(out)


RUNTIME = assemble([
    "CALLDATASIZE", ("REF", "set"), "JUMPI",
    ("PUSH", 0, 1), "SLOAD", ("PUSH", 0, 1), "MSTORE", ("PUSH", 32, 1), ("PUSH", 0, 1), "RETURN",
    ("LABEL", "set"), "JUMPDEST",
    ("PUSH", 0, 1), "CALLDATALOAD", "DUP1", ("REF", "store"), "JUMPI",
    ("PUSH", 42, 1), ("PUSH", 0, 1), "MSTORE", ("PUSH", 32, 1), ("PUSH", 0, 1), "REVERT",
    ("LABEL", "store"), "JUMPDEST",
    "DUP1", ("PUSH", 0, 1), "SSTORE", ("PUSH", 0, 1), "MSTORE",
    ("PUSH", STORED, 32), ("PUSH", 32, 1), ("PUSH", 0, 1), "LOG1", "STOP",
])

def init_code(runtime):
    """Creation code that deploys `runtime` (up to 255 bytes): copy it to memory and return it."""
    return assemble([("PUSH", len(runtime), 1), "DUP1", ("PUSH", 11, 1), ("PUSH", 0, 1), "CODECOPY",
                     ("PUSH", 0, 1), "RETURN"]) + runtime


INIT = init_code(RUNTIME)
# A loop that runs until its gas is gone: every call to it fails out of gas, after many steps.
SPIN = assemble([("LABEL", "top"), "JUMPDEST", ("REF", "top"), "JUMP"])


def _selector(signature):
    return keccak(signature.encode())[:4]


def _return_string(text):
    """Return the ABI encoding of a string of up to 32 bytes."""
    return [("PUSH", 32, 1), ("PUSH", 0, 1), "MSTORE", ("PUSH", len(text), 1), ("PUSH", 32, 1), "MSTORE",
            ("PUSH", text.encode(), len(text)), ("PUSH", 256 - 8 * len(text), 1), "SHL", ("PUSH", 64, 1), "MSTORE",
            ("PUSH", 96, 1), ("PUSH", 0, 1), "RETURN"]


TRANSFER_TOPIC = bytes.fromhex("ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")

# A minimal ERC-20 ("Test Token", TT, 18 decimals): balances in the slot numbered by the holder's address;
# balanceOf, transfer (Transfer log, reverts when the balance is short), name, symbol, decimals.
TOKEN_RUNTIME = assemble([
    ("PUSH", 0, 1), "CALLDATALOAD", ("PUSH", 224, 1), "SHR",
    "DUP1", ("PUSH", _selector("balanceOf(address)"), 4), "EQ", ("REF", "balance"), "JUMPI",
    "DUP1", ("PUSH", _selector("transfer(address,uint256)"), 4), "EQ", ("REF", "transfer"), "JUMPI",
    "DUP1", ("PUSH", _selector("name()"), 4), "EQ", ("REF", "name"), "JUMPI",
    "DUP1", ("PUSH", _selector("symbol()"), 4), "EQ", ("REF", "symbol"), "JUMPI",
    "DUP1", ("PUSH", _selector("decimals()"), 4), "EQ", ("REF", "decimals"), "JUMPI",
    ("LABEL", "fail"), "JUMPDEST", ("PUSH", 0, 1), ("PUSH", 0, 1), "REVERT",
    ("LABEL", "balance"), "JUMPDEST",
    ("PUSH", 4, 1), "CALLDATALOAD", "SLOAD", ("PUSH", 0, 1), "MSTORE", ("PUSH", 32, 1), ("PUSH", 0, 1), "RETURN",
    ("LABEL", "transfer"), "JUMPDEST",
    ("PUSH", 36, 1), "CALLDATALOAD", "CALLER", "SLOAD",                   # [sel, amount, balance]
    "DUP2", "DUP2", "LT", ("REF", "fail"), "JUMPI",
    "DUP2", "SWAP1", "SUB", "CALLER", "SSTORE",                             # balance[caller] -= amount
    "DUP1", ("PUSH", 4, 1), "CALLDATALOAD", "SLOAD", "ADD", ("PUSH", 4, 1), "CALLDATALOAD", "SSTORE",
    ("PUSH", 0, 1), "MSTORE",
    ("PUSH", 4, 1), "CALLDATALOAD", "CALLER", ("PUSH", TRANSFER_TOPIC, 32), ("PUSH", 32, 1), ("PUSH", 0, 1), "LOG3",
    ("PUSH", 1, 1), ("PUSH", 0, 1), "MSTORE", ("PUSH", 32, 1), ("PUSH", 0, 1), "RETURN",
    ("LABEL", "decimals"), "JUMPDEST", ("PUSH", 18, 1), ("PUSH", 0, 1), "MSTORE", ("PUSH", 32, 1), ("PUSH", 0, 1),
    "RETURN",
    ("LABEL", "name"), "JUMPDEST", *_return_string("Test Token"),
    ("LABEL", "symbol"), "JUMPDEST", *_return_string("TT"),
])


def token_init(supply):
    """Creation code of TOKEN_RUNTIME that gives the deployer `supply` tokens."""
    def header(offset):
        return assemble([("PUSH", supply, 32), "CALLER", "SSTORE",
                         ("PUSH", len(TOKEN_RUNTIME), 2), "DUP1", ("PUSH", offset, 2), ("PUSH", 0, 1), "CODECOPY",
                         ("PUSH", 0, 1), "RETURN"])

    return header(len(header(0))) + TOKEN_RUNTIME


# Calldata: word 0 a flag, word 1 a target; the rest is forwarded to the target by CALL. The call's
# first 32 bytes of output are returned; a failed call, or a non-zero flag, reverts afterwards.
FORWARDER_RUNTIME = assemble([
    ("PUSH", 64, 1), "CALLDATASIZE", "SUB",
    "DUP1", ("PUSH", 64, 1), ("PUSH", 0, 1), "CALLDATACOPY",
    ("PUSH", 32, 1), ("PUSH", 0, 1), "DUP3", ("PUSH", 0, 1), ("PUSH", 0, 1), ("PUSH", 32, 1), "CALLDATALOAD",
    "GAS", "CALL",
    ("PUSH", 0, 1), "CALLDATALOAD", ("REF", "revert"), "JUMPI",
    ("REF", "ok"), "JUMPI",
    ("LABEL", "revert"), "JUMPDEST", ("PUSH", 0, 1), ("PUSH", 0, 1), "REVERT",
    ("LABEL", "ok"), "JUMPDEST", ("PUSH", 32, 1), ("PUSH", 0, 1), "RETURN",
])
FORWARDER_INIT = init_code(FORWARDER_RUNTIME)
# The same, with DELEGATECALL (no value argument).
DELEGATOR_RUNTIME = assemble([
    ("PUSH", 64, 1), "CALLDATASIZE", "SUB",
    "DUP1", ("PUSH", 64, 1), ("PUSH", 0, 1), "CALLDATACOPY",
    ("PUSH", 32, 1), ("PUSH", 0, 1), "DUP3", ("PUSH", 0, 1), ("PUSH", 32, 1), "CALLDATALOAD",
    "GAS", "DELEGATECALL",
    ("PUSH", 0, 1), "CALLDATALOAD", ("REF", "revert"), "JUMPI",
    ("REF", "ok"), "JUMPI",
    ("LABEL", "revert"), "JUMPDEST", ("PUSH", 0, 1), ("PUSH", 0, 1), "REVERT",
    ("LABEL", "ok"), "JUMPDEST", ("PUSH", 32, 1), ("PUSH", 0, 1), "RETURN",
])
DELEGATOR_INIT = init_code(DELEGATOR_RUNTIME)


VALUE = (1 << 255) | 0xBEEF       # beyond 2**53: toString(16) must give every digit


def word(n):
    return "0x" + n.to_bytes(32, "big").hex()


def store_read_revert(web3):
    """Deploys StoreContract and commits a store of VALUE, a read, and a reverted store of 0."""
    contract = send(web3, {"data": "0x" + INIT.hex(), "gas": 200000, "nonce": 0}).contractAddress
    stored = send(web3, {"to": contract, "data": word(VALUE), "gas": 100000, "nonce": 1})
    read = send(web3, {"to": contract, "data": "0x", "gas": 100000, "nonce": 2})
    reverted = send(web3, {"to": contract, "data": word(0), "gas": 100000, "nonce": 3})
    assert (stored.status, read.status, reverted.status) == (1, 1, 0)
    return stored, read, reverted
