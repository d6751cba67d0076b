"""EVM opcode facts tracers need: geth's names, stack requirements and which ops have dynamic gas.

Tables are 256-entry lists indexed by opcode byte, for the per-op hot path.
"""

STOP, SHA3, SLOAD, SSTORE = 0x00, 0x20, 0x54, 0x55
BALANCE, EXTCODESIZE, EXTCODECOPY, EXTCODEHASH = 0x31, 0x3B, 0x3C, 0x3F
CREATE, CALL, CALLCODE, RETURN, DELEGATECALL = 0xF0, 0xF1, 0xF2, 0xF3, 0xF4
CREATE2, STATICCALL, REVERT, INVALID, SELFDESTRUCT = 0xF5, 0xFA, 0xFD, 0xFE, 0xFF
LOG0 = 0xA0

CALL_OPS = frozenset((CALL, CALLCODE, DELEGATECALL, STATICCALL))
CREATE_OPS = frozenset((CREATE, CREATE2))

# (name, items the op needs, items it removes or rewrites, items it pushes). "Rewrites" counts
# from the top: SWAPn rewrites n+1 items, DUPn rewrites none.
_DEFS = {
    0x00: ("STOP", 0, 0, 0), 0x01: ("ADD", 2, 2, 1), 0x02: ("MUL", 2, 2, 1), 0x03: ("SUB", 2, 2, 1),
    0x04: ("DIV", 2, 2, 1), 0x05: ("SDIV", 2, 2, 1), 0x06: ("MOD", 2, 2, 1), 0x07: ("SMOD", 2, 2, 1),
    0x08: ("ADDMOD", 3, 3, 1), 0x09: ("MULMOD", 3, 3, 1), 0x0A: ("EXP", 2, 2, 1),
    0x0B: ("SIGNEXTEND", 2, 2, 1),
    0x10: ("LT", 2, 2, 1), 0x11: ("GT", 2, 2, 1), 0x12: ("SLT", 2, 2, 1), 0x13: ("SGT", 2, 2, 1),
    0x14: ("EQ", 2, 2, 1), 0x15: ("ISZERO", 1, 1, 1), 0x16: ("AND", 2, 2, 1), 0x17: ("OR", 2, 2, 1),
    0x18: ("XOR", 2, 2, 1), 0x19: ("NOT", 1, 1, 1), 0x1A: ("BYTE", 2, 2, 1), 0x1B: ("SHL", 2, 2, 1),
    0x1C: ("SHR", 2, 2, 1), 0x1D: ("SAR", 2, 2, 1),
    0x20: ("KECCAK256", 2, 2, 1),
    0x30: ("ADDRESS", 0, 0, 1), 0x31: ("BALANCE", 1, 1, 1), 0x32: ("ORIGIN", 0, 0, 1),
    0x33: ("CALLER", 0, 0, 1), 0x34: ("CALLVALUE", 0, 0, 1), 0x35: ("CALLDATALOAD", 1, 1, 1),
    0x36: ("CALLDATASIZE", 0, 0, 1), 0x37: ("CALLDATACOPY", 3, 3, 0), 0x38: ("CODESIZE", 0, 0, 1),
    0x39: ("CODECOPY", 3, 3, 0), 0x3A: ("GASPRICE", 0, 0, 1), 0x3B: ("EXTCODESIZE", 1, 1, 1),
    0x3C: ("EXTCODECOPY", 4, 4, 0), 0x3D: ("RETURNDATASIZE", 0, 0, 1), 0x3E: ("RETURNDATACOPY", 3, 3, 0),
    0x3F: ("EXTCODEHASH", 1, 1, 1),
    0x40: ("BLOCKHASH", 1, 1, 1), 0x41: ("COINBASE", 0, 0, 1), 0x42: ("TIMESTAMP", 0, 0, 1),
    0x43: ("NUMBER", 0, 0, 1), 0x44: ("DIFFICULTY", 0, 0, 1), 0x45: ("GASLIMIT", 0, 0, 1),
    0x46: ("CHAINID", 0, 0, 1), 0x47: ("SELFBALANCE", 0, 0, 1), 0x48: ("BASEFEE", 0, 0, 1),
    0x49: ("BLOBHASH", 1, 1, 1), 0x4A: ("BLOBBASEFEE", 0, 0, 1),
    0x50: ("POP", 1, 1, 0), 0x51: ("MLOAD", 1, 1, 1), 0x52: ("MSTORE", 2, 2, 0), 0x53: ("MSTORE8", 2, 2, 0),
    0x54: ("SLOAD", 1, 1, 1), 0x55: ("SSTORE", 2, 2, 0), 0x56: ("JUMP", 1, 1, 0), 0x57: ("JUMPI", 2, 2, 0),
    0x58: ("PC", 0, 0, 1), 0x59: ("MSIZE", 0, 0, 1), 0x5A: ("GAS", 0, 0, 1), 0x5B: ("JUMPDEST", 0, 0, 0),
    0x5C: ("TLOAD", 1, 1, 1), 0x5D: ("TSTORE", 2, 2, 0), 0x5E: ("MCOPY", 3, 3, 0), 0x5F: ("PUSH0", 0, 0, 1),
    0xF0: ("CREATE", 3, 3, 1), 0xF1: ("CALL", 7, 7, 1), 0xF2: ("CALLCODE", 7, 7, 1), 0xF3: ("RETURN", 2, 2, 0),
    0xF4: ("DELEGATECALL", 6, 6, 1), 0xF5: ("CREATE2", 4, 4, 1), 0xFA: ("STATICCALL", 6, 6, 1),
    0xFD: ("REVERT", 2, 2, 0), 0xFE: ("INVALID", 0, 0, 0), 0xFF: ("SELFDESTRUCT", 1, 1, 0),
}
for _n in range(1, 33):
    _DEFS[0x5F + _n] = (f"PUSH{_n}", 0, 0, 1)
for _n in range(1, 17):
    _DEFS[0x7F + _n] = (f"DUP{_n}", _n, 0, 1)
    _DEFS[0x8F + _n] = (f"SWAP{_n}", _n + 1, _n + 1, _n + 1)
for _n in range(5):
    _DEFS[LOG0 + _n] = (f"LOG{_n}", _n + 2, _n + 2, 0)

STACK_LIMIT = 1024

# geth's OpCode.String(): undefined bytes print as "opcode 0xc not defined".
NAMES = [_DEFS[i][0] if i in _DEFS else f"opcode {i:#x} not defined" for i in range(256)]
NEEDS = [_DEFS[i][1] if i in _DEFS else 0 for i in range(256)]
TAKES = [_DEFS[i][2] if i in _DEFS else 0 for i in range(256)]
PUSHES = [_DEFS[i][3] if i in _DEFS else 0 for i in range(256)]
# geth's maxStack: the most items the stack may hold before the op without overflowing.
MAX_BEFORE = [STACK_LIMIT + TAKES[i] - PUSHES[i] for i in range(256)]

# Ops whose gas is not the fixed cost alone (geth's dynamicGas), or that change state, call or
# create: their entry is emitted once their cost is known, with state captured before they ran.
DYNAMIC = frozenset((
    0x0A, 0x20, 0x31, 0x37, 0x39, 0x3B, 0x3C, 0x3E, 0x3F, 0x51, 0x52, 0x53, 0x54, 0x55, 0x5E,
    0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xF0, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xFA, 0xFD, 0xFF,
))
IS_DYNAMIC = [i in DYNAMIC for i in range(256)]
