"""The tracer protocol: the hooks a traced execution calls, with geth's order and meaning.

Struct logger, JavaScript tracers and native tracers all implement Tracer; the traced
execution (hooks.py) drives it. Objects handed to a hook are valid only during that call.
"""

import attrs


@attrs.define
class TxEnv:
    """The transaction being traced and its block (geth's ctx for JS tracers, callTracer's top frame)."""

    kind: str                 # "CALL" or "CREATE"
    sender: bytes
    to: bytes                 # the created address for a CREATE
    input: bytes
    gas: int                  # the tx gas limit
    gas_price: int            # effective gas price
    value: int
    intrinsic_gas: int
    block_number: int
    block_hash: bytes
    block_time: int           # seconds
    coinbase: bytes
    tx_index: int
    tx_hash: bytes            # the EVM hash


class Step:
    """One opcode as geth shows it to a tracer: the state before the op ran, with its cost.

    Attributes (read-only for tracers): pc, op (int), gas (before the op), cost, depth (1 = top
    frame), refund (tx-wide refund counter), error (None, or the error text), stack (list of ints,
    bottom first), memory (bytes-like, before the op), return_data (bytes of the last call),
    caller, address, value, input (the current frame's contract), code (bytes).
    """

    __slots__ = ("pc", "op", "gas", "cost", "depth", "refund", "error", "stack", "memory", "return_data",
                 "caller", "address", "value", "input", "code")


class StateReader:
    """What `db` offers a tracer: the state as the execution sees it at this moment."""

    def __init__(self, state):
        self._state = state

    def balance(self, address):
        return self._state.get_balance(address)

    def nonce(self, address):
        return self._state.get_nonce(address)

    def code(self, address):
        return self._state.get_code(address)

    def storage(self, address, slot):
        return self._state.get_storage(address, slot)

    def exists(self, address):
        return self._state.account_exists(address)


class Tracer:
    """Hooks, all optional to override; called in geth's order:

    on_tx_start, then per frame on_enter (depth >= 1 only; the top frame is the tx itself),
    on_opcode per op (an error found before the op runs, such as out of gas or a stack
    underflow, arrives here as step.error), on_fault when the op fails while running (revert,
    bad jump...), on_exit (depth >= 1), and on_tx_end. Then result() gives the JSON-able answer.

    `wants_memory` / `wants_stack` / `wants_storage` let the execution skip capturing what
    nobody reads.
    """

    wants_stack = True
    wants_memory = False
    wants_storage = False

    def on_tx_start(self, env, db):
        pass

    def on_enter(self, depth, kind, sender, to, input, gas, value, db):
        """kind: CALL, CALLCODE, DELEGATECALL, STATICCALL, CREATE, CREATE2 or SELFDESTRUCT."""

    def on_opcode(self, step, db):
        pass

    def on_fault(self, step, db):
        pass

    def on_exit(self, depth, output, gas_used, error, reverted):
        pass

    def on_tx_end(self, gas_used, output, error, reverted):
        pass

    def result(self):
        raise NotImplementedError
