"""The access list tracer behind eth_createAccessList (geth's logger.AccessListTracer).

It records the storage slots a call touches and the addresses it reaches, but for those every tx gets
warm anyway (the sender, the recipient, the precompiles), in the order first touched.
"""

from chaind.tracing import opcodes as ops
from chaind.tracing.tracer import Tracer

_ADDRESS_AT_TOP = frozenset((ops.BALANCE, ops.EXTCODESIZE, ops.EXTCODECOPY, ops.EXTCODEHASH, ops.SELFDESTRUCT))


def _int(item):
    return item if isinstance(item, int) else int.from_bytes(item, "big")


def _address(item):
    return (_int(item) & ((1 << 160) - 1)).to_bytes(20, "big")


class AccessListTracer(Tracer):
    wants_stack = True

    def __init__(self, excluded, seed=()):
        """seed: [(address, [slot int])] to start from, as geth seeds each round with the last list."""
        self.excluded = excluded
        self.entries = {}           # address -> {slot: None} (dicts keep first-touch order)
        for address, slots in seed:
            entry = self.entries.setdefault(address, {})
            for slot in slots:
                entry[slot] = None

    def _touch(self, address):
        if address not in self.excluded and address not in self.entries:
            self.entries[address] = {}

    def on_opcode(self, step, db):
        op, stack = step.op, step.stack
        if not stack:
            return
        if op == ops.SLOAD or op == ops.SSTORE:
            # A slot is listed whoever holds it (the recipient's too), as geth's tracer lists it.
            self.entries.setdefault(step.address, {})[_int(stack[-1])] = None
        elif op in _ADDRESS_AT_TOP:
            self._touch(_address(stack[-1]))
        elif op in ops.CALL_OPS and len(stack) >= 2:
            self._touch(_address(stack[-2]))

    def access_list(self):
        """[(address, [slot int])] in first-touch order."""
        return [(address, list(slots)) for address, slots in self.entries.items()]

    def result(self):
        return [{"address": "0x" + address.hex(), "storageKeys": ["0x%064x" % slot for slot in slots]}
                for address, slots in self.access_list()]
