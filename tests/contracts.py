"""Bytecode fixtures, assembled from the listings below so a reader can check them by eye.

StoreContract: empty calldata returns slot 0; a non-zero word stores it in slot 0 and emits
LOG1(STORED, word); a zero word reverts with the 32-byte word 42.
"""

OPS = {"STOP": 0x00, "MSTORE": 0x52, "SLOAD": 0x54, "SSTORE": 0x55, "JUMP": 0x56, "JUMPI": 0x57, "JUMPDEST": 0x5B,
       "CALLDATALOAD": 0x35, "CALLDATASIZE": 0x36, "CODECOPY": 0x39, "DUP1": 0x80, "LOG1": 0xA1,
       "RETURN": 0xF3, "REVERT": 0xFD}

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
