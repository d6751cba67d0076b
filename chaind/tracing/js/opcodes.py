"""Opcode names as geth prints them (log.op.toString()), including its text for undefined opcodes.

py-evm's table with geth's spellings where they differ (KECCAK256, DIFFICULTY, INVALID).
"""

import eth.vm.opcode_values as _values

_GETH_SPELLING = {"SHA3": "KECCAK256", "PREVRANDAO": "DIFFICULTY"}


def _table():
    names = {}
    for name, value in vars(_values).items():
        if name.isupper() and isinstance(value, int):
            names[value] = _GETH_SPELLING.get(name, name)
    names[0xFE] = "INVALID"
    return [names.get(op, "opcode %#x not defined" % op) for op in range(256)]


OPCODE_NAMES = _table()
