"""The tracer protocol: the hooks a traced execution calls, with geth's order and meaning.

Struct logger, JavaScript tracers and native tracers all implement Tracer; the traced
execution (traced_interpreter.py) drives it. Objects handed to a hook are valid only during that call.
"""

from typing import Any

import attrs


class TraceAborted(Exception):
    """Stops a traced execution from inside (deadline, cancel, a tracer or writer giving up).

    Never a py-evm VMError, so the EVM does not swallow it: it leaves apply_transaction and
    the state it ran on must be thrown away.
    """


class TraceTimeout(TraceAborted):
    def __init__(self, message="execution timeout"):
        super().__init__(message)


class TraceCancelled(TraceAborted):
    def __init__(self, message="trace cancelled"):
        super().__init__(message)


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
    intrinsic_gas: int        # geth's: includes EIP-3860 initcode words of a CREATE tx
    block_number: int
    block_hash: bytes
    block_time: int           # seconds
    coinbase: bytes
    tx_index: int
    tx_hash: bytes            # the EVM hash
    log_index: int = 0        # block-wide index of the tx's first log (geth's log.Index)


class Step:
    """One opcode as geth shows it to a tracer: the state before the op ran, with its cost.

    Attributes (read-only for tracers):
      pc, op (int), gas (before the op), cost (geth's gasCost), depth (1 = top frame),
      refund (tx-wide refund counter before the op), error (None, or geth's error text),
      stack (list of int or bytes items, bottom first; None unless the tracer wants_stack),
      memory (bytes-like, before the op; None unless the tracer wants_memory),
      return_data (bytes of the last call's output),
      caller, address (storage context: the caller's under DELEGATECALL), value, input, code:
      the current frame's contract.
    Stack items are py-evm's: an int, or big-endian bytes of up to 32 bytes (PUSH0 pushes b"").
    One Step object is reused per frame: copy what must outlive the call.
    """

    __slots__ = ("pc", "op", "gas", "cost", "depth", "refund", "error", "stack", "memory", "return_data",
                 "caller", "address", "value", "input", "code")


class StateReader:
    """What `db` offers a tracer: the state as the execution sees it at this moment."""

    def __init__(self, state: Any) -> None:
        self._state = state

    def balance(self, address: bytes) -> int:
        return self._state.get_balance(address)

    def nonce(self, address: bytes) -> int:
        return self._state.get_nonce(address)

    def code(self, address: bytes) -> bytes:
        return self._state.get_code(address)

    def storage(self, address: bytes, slot: int) -> int:
        """slot: int; the value as an int."""
        return self._state.get_storage(address, slot)

    def exists(self, address: bytes) -> bool:
        return self._state.account_exists(address)


class Tracer:
    """Hooks, all optional to override; called in geth's order:

    on_tx_start (db before the tx: fees not bought, nonce not bumped), then per frame on_enter
    (depth >= 1 only; the top frame is the tx itself), on_opcode per op, on_log per LOG,
    on_fault when the op fails while running, on_exit (depth >= 1), and on_tx_end. Then result()
    gives the JSON-able answer.

    Errors found before an op runs (stack underflow/overflow, out of gas on its charge) arrive in
    on_opcode as step.error with no on_fault. Errors while it runs (REVERT's "execution reverted",
    invalid jump, invalid opcode, write protection, return data out of bounds) come as on_opcode
    without error, then on_fault with step.error set. A hook may raise TraceAborted to stop.

    `wants_memory` / `wants_stack` let the execution skip capturing what nobody reads.
    """

    wants_stack = True
    wants_memory = False

    def on_tx_start(self, env: TxEnv, db: StateReader) -> None:
        pass

    def on_enter(self, depth: int, kind: str, sender: bytes, to: bytes, input: bytes, gas: int, value: int | None,
                 db: StateReader) -> None:
        """depth: geth's OnEnter depth (1 for a call made by the top frame; its ops have step.depth 2).

        kind: CALL, CALLCODE, DELEGATECALL, STATICCALL, CREATE, CREATE2 or SELFDESTRUCT.
        sender/to as geth: DELEGATECALL/CALLCODE go from the calling contract to the code's
        address; value is None for STATICCALL (DELEGATECALL passes the inherited value).
        """

    def on_opcode(self, step: Step, db: StateReader) -> None:
        pass

    def on_log(self, address: bytes, topics: list[bytes], data: bytes, index: int) -> None:
        """topics: list of 32-byte bytes; index: the log's block-wide index (env.log_index + n)."""

    def on_fault(self, step: Step, db: StateReader) -> None:
        pass

    def on_exit(self, depth: int, output: bytes, gas_used: int, error: str | None, reverted: bool) -> None:
        """error: geth's text or None; reverted: the frame's changes were undone (any error)."""

    def on_tx_end(self, gas_used: int, output: bytes, error: str | None, reverted: bool) -> None:
        """gas_used: the receipt's. output: return data, or revert data when reverted by REVERT."""

    def result(self) -> Any:
        raise NotImplementedError
