"""py-evm's interpreter, instrumented: a state subclass whose computation runs one tx and drives a Tracer.

The hooks interface is tracer.py's Tracer; this is what calls it. The dispatch loop is a copy of py-evm
0.12.1b1's BaseComputation.apply_computation with geth's tracing hooks around each op, and the CALL and
CREATE opcodes get subclasses of py-evm's (tests/test_pyevm_internals.py fingerprints what this relies on);
the active trace hangs off the state instance, so traces in several threads never share anything.
"""

import copy
import re
import threading
import time

from eth._utils.address import generate_contract_address, generate_safe_contract_address
from eth._utils.numeric import ceil32
from eth.exceptions import FullStack, Halt, InsufficientStack, OutOfGas, VMError
from eth.vm.forks.prague import PragueVM
from eth.vm.logic.call import BaseCall
from eth.vm.logic.invalid import InvalidOpcode
from eth.vm.logic.system import Create

from chaind.tracing import opcodes as ops
from chaind.tracing.tracer import StateReader, Step, TraceCancelled, TraceTimeout, TxEnv

CHECK_EVERY = 1000            # ops between two deadline/cancel checks
_INITCODE_WORD_COST = 2       # EIP-3860; geth counts it in a CREATE tx's intrinsic gas
# Berlin+ geth charges these a constant 100 (warm access) before their dynamic part; py-evm
# charges it all inside the op. Only visible in the cost of a failed pre-execution check.
_GETH_CONSTANT = {ops.BALANCE: 100, ops.EXTCODESIZE: 100, ops.EXTCODECOPY: 100, ops.EXTCODEHASH: 100,
                  ops.CALL: 100, ops.CALLCODE: 100, ops.DELEGATECALL: 100, ops.STATICCALL: 100}
_NEEDED = re.compile(r"Needed (\d+)")
_INVALID = re.compile(r"Invalid opcode 0x([0-9a-f]+)")


def error_text(error):
    """geth's text for a py-evm VMError (core/vm/errors.go)."""
    name = type(error).__name__
    message = str(error.args[0]) if error.args else ""
    if name == "Revert":
        return "execution reverted"
    if name == "OutOfGas":
        if "EIP170" in message:
            return "max code size exceeded"
        if "EIP-3860" in message:
            return "max initcode size exceeded"
        if "Write contract code" in message:
            return "contract creation code storage out of gas"
        if message.startswith("Net-metered SSTORE"):
            return "out of gas: not enough gas for reentrancy sentry"
        return "out of gas"
    if name == "InvalidInstruction":
        found = _INVALID.search(message)
        return "invalid opcode: " + (ops.NAMES[int(found.group(1), 16)] if found else "INVALID")
    if name in ("InsufficientStack", "FullStack"):
        # Ours carry geth's text; py-evm's own cannot occur after the pre-op check.
        return message if message.startswith("stack") else (
            "stack underflow" if name == "InsufficientStack" else "stack limit reached 1024")
    return _ERRORS.get(name) or message or name


_ERRORS = {
    "InvalidJumpDestination": "invalid jump destination",
    "WriteProtection": "write protection",
    "OutOfBoundsRead": "return data out of bounds",
    "StackDepthLimit": "max call depth exceeded",
    "InsufficientFunds": "insufficient balance for transfer",
    "ContractCreationCollision": "contract address collision",
    "ReservedBytesInCode": "invalid code: must not begin with 0xef",
}


class Deadline:
    """When a trace must stop, a time.monotonic() value. Time it spends handing output to a client
    that reads slowly is added back (extend): the timeout bounds the tracing, as in geth, whose
    trace is sent after it is made."""

    __slots__ = ("at",)

    def __init__(self, at):
        self.at = at

    def extend(self, seconds):
        self.at += seconds


class _Frame:
    """One running interpreter (a computation with code) of the trace."""

    __slots__ = ("comp", "step", "refund_base", "refund_outer", "op", "gas_before", "cost", "child_gas",
                 "child_entered", "args", "deferred", "balance")


class TraceRun:
    """The state of one trace: tracer, frames, pending entry, refund and log counters, deadline."""

    def __init__(self, tracer, state, env, deadline=None, cancel=None, check_every=CHECK_EVERY):
        self.tracer = tracer
        self.db = StateReader(state)
        self.env = env
        self.deadline = deadline if deadline is None or isinstance(deadline, Deadline) else Deadline(deadline)
        self.cancel = cancel
        self.check_every = check_every
        self.wants_stack = tracer.wants_stack
        self.wants_memory = tracer.wants_memory
        self.frames = []
        self.pending = None       # the frame whose dynamic op waits for its cost to be known
        self.log_count = 0
        self.log_marks = []

    def check(self):
        if self.cancel is not None and self.cancel.is_set():
            raise TraceCancelled()
        if self.deadline is not None and time.monotonic() > self.deadline.at:
            raise TraceTimeout()

    def flush(self):
        """Emit the pending op: its state is still the pre-op one, its cost is now known."""
        frame = self.pending
        if frame is None:
            return
        self.pending = None
        step = frame.step
        step.cost = frame.cost if frame.cost is not None else frame.gas_before - frame.comp._gas_meter.gas_remaining
        self.tracer.on_opcode(step, self.db)

    # -- frames -- #

    def push(self, comp, parent):
        frame = _Frame()
        frame.comp = comp
        msg = comp.msg
        if parent is None:
            refund = getattr(msg, "refund", 0)
        else:
            up = self.frames[-1]
            refund = up.refund_outer + up.comp._gas_meter.gas_refunded
        frame.refund_base = frame.refund_outer = refund
        frame.deferred = None
        step = frame.step = Step()
        step.depth = msg.depth + 1
        step.caller = msg.sender
        step.address = msg.storage_address
        step.value = msg.value
        step.input = msg.data_as_bytes
        step.code = msg.code
        step.error = None
        self.frames.append(frame)
        return frame

    def pop(self, frame, comp):
        self.frames.pop()
        if self.pending is frame:     # a VMError left the op's entry unsent (cannot happen: safety)
            self.pending = None
        if not comp.is_error and self.frames:
            up = self.frames[-1]
            up.refund_outer += frame.refund_outer + comp._gas_meter.gas_refunded - frame.refund_base

    def enter(self, message):
        """A child frame starts (py-evm's apply_message/apply_create_message of a child)."""
        self.flush()
        up = self.frames[-1]
        up.child_entered = True
        kind = up.op
        if kind in ops.CREATE_OPS:
            sender, to, data, value = message.sender, message.storage_address, message.code, message.value
        else:
            to = _address(up.args[1])
            data = message.data_as_bytes
            if kind in (ops.CALL, ops.STATICCALL):
                sender = message.sender
            else:
                sender = up.comp.msg.storage_address
            value = None if kind == ops.STATICCALL else message.value
        self.log_marks.append(self.log_count)
        self.tracer.on_enter(message.depth, ops.NAMES[kind], sender, to, data, message.gas, value, self.db)

    def exit(self, comp):
        error = error_text(comp.error) if comp.is_error else None
        mark = self.log_marks.pop()
        if error is not None:
            self.log_count = mark   # geth's journal takes the frame's logs back, and their indexes
        self.tracer.on_exit(comp.msg.depth, comp.output, comp.get_gas_used(), error, error is not None)

    def log(self, address, topics, data):
        self.flush()
        index = self.env.log_index + self.log_count
        self.log_count += 1
        self.tracer.on_log(address, [t.to_bytes(32, "big") for t in topics], data, index)

    # -- the interpreter loop -- #

    def execute(self, comp, frame, table, constant):  # noqa: C901 (the opcode loop, inlined for speed)
        """py-evm's opcode loop with geth's OnOpcode/OnFault around every op."""
        tracer = self.tracer
        on_opcode = tracer.on_opcode
        db = self.db
        code = comp.code
        raw = code._raw_code_bytes
        size = len(raw)
        values = comp._stack.values
        meter = comp._gas_meter
        memory = comp._memory
        step = frame.step
        wants_stack = self.wants_stack
        wants_memory = self.wants_memory
        needs, max_before, is_dynamic = ops.NEEDS, ops.MAX_BEFORE, ops.IS_DYNAMIC
        check_every = self.check_every
        countdown = check_every
        # Stack, memory, refund and return data change only in dynamic ops: set here and after each.
        step.stack = values if wants_stack else None
        step.memory = memory._bytes if wants_memory else None
        step.refund = frame.refund_outer + meter.gas_refunded
        step.return_data = comp.return_data
        while True:
            pc = code.program_counter
            if pc < size:
                op = raw[pc]
                code.program_counter = pc + 1
            else:
                op = 0   # the implicit STOP after the code, at pc = len(code) as in geth
            countdown -= 1
            if not countdown:
                countdown = check_every
                self.check()
            gas = meter.gas_remaining
            step.pc = pc
            step.op = op
            step.gas = gas
            depth_len = len(values)
            if depth_len < needs[op] or depth_len > max_before[op] or gas < constant[op]:
                self._pre_error(comp, step, op, depth_len, constant[op])
            if not is_dynamic[op]:
                step.cost = constant[op]
                on_opcode(step, db)
                try:
                    table[op](comp)    # positional: a keyword call to an Opcode object costs more
                except Halt:
                    break
                except VMError as e:
                    step.error = error_text(e)
                    tracer.on_fault(step, db)
                    raise
                continue
            # Dynamic op: capture now, emit at the earliest of first state change, child entry
            # or completion, when its cost is known.
            step.stack = values[:] if wants_stack else None
            step.memory = bytes(memory._bytes) if wants_memory else None
            frame.op = op
            frame.gas_before = gas
            frame.cost = None
            frame.child_gas = None
            frame.child_entered = False
            if op >= ops.CREATE:
                frame.args = values[-needs[op]:][::-1] if needs[op] else ()
                if op == ops.SELFDESTRUCT:
                    frame.balance = comp.state.get_balance(comp.msg.storage_address)
            self.pending = frame
            try:
                table[op](comp)
            except Halt:
                self.flush()
                if op == ops.SELFDESTRUCT:
                    self._selfdestructed(comp, frame)
                break
            except OutOfGas as e:
                if self.pending is not frame:
                    raise
                # Out of gas on the op's own charge: geth's pre-execution error, whole cost.
                self.pending = None
                found = _NEEDED.search(str(e.args[0]) if e.args else "")
                spent = gas - meter.gas_remaining
                step.cost = 0 if op == ops.SSTORE and not found else spent + (int(found.group(1)) if found else 0)
                step.error = error_text(e)
                on_opcode(step, db)
                step.error = None
                raise
            except VMError as e:
                self.flush()
                step.error = error_text(e)
                tracer.on_fault(step, db)
                raise
            if self.pending is frame:
                self.flush()
            if frame.deferred is not None:
                address, slot, value = frame.deferred
                frame.deferred = None
                comp.state.apply_deferred_storage(address, slot, value)
            if op >= ops.CREATE and not frame.child_entered and op != ops.RETURN and op != ops.REVERT:
                self._failed_child(comp, frame, op)
            step.stack = values if wants_stack else None
            step.memory = memory._bytes if wants_memory else None
            step.refund = frame.refund_outer + meter.gas_refunded
            step.return_data = comp.return_data

    def _pre_error(self, comp, step, op, depth_len, constant):
        """geth's checks before an op runs: stack bounds, then its constant gas."""
        if depth_len < ops.NEEDS[op]:
            error = InsufficientStack(f"stack underflow ({depth_len} <=> {ops.NEEDS[op]})")
        elif depth_len > ops.MAX_BEFORE[op]:
            error = FullStack(f"stack limit reached {depth_len} ({ops.MAX_BEFORE[op]})")
        else:
            error = OutOfGas("out of gas")
        step.cost = constant
        step.stack = comp._stack.values if self.wants_stack else None
        step.memory = comp._memory._bytes if self.wants_memory else None
        step.error = error_text(error)
        try:
            self.tracer.on_opcode(step, self.db)
        finally:
            step.error = None
        raise error

    def _selfdestructed(self, comp, frame):
        """geth reports SELFDESTRUCT as a frame: enter and exit right after the op."""
        depth = comp.msg.depth + 1
        self.tracer.on_enter(depth, "SELFDESTRUCT", comp.msg.storage_address, _address(frame.args[0]), b"", 0,
                             frame.balance, self.db)
        self.tracer.on_exit(depth, b"", 0, None, False)

    def _failed_child(self, comp, frame, op):
        """A CALL or CREATE that py-evm refused before making a frame; geth still enters and exits."""
        msg = comp.msg
        depth = msg.depth + 1
        args = frame.args
        memory = comp._memory._bytes
        too_deep = depth > 1024
        if op in ops.CREATE_OPS:
            value, offset, length = _int(args[0]), _int(args[1]), _int(args[2])
            initcode = bytes(memory[offset:offset + length]) if length else b""
            creator = msg.storage_address
            if op == ops.CREATE:
                to = generate_contract_address(creator, comp.state.get_nonce(creator))
            else:
                to = generate_safe_contract_address(creator, _int(args[3]), initcode)
            if frame.child_gas is not None:    # address collision: the gas went with it
                gas, used, error = frame.child_gas, frame.child_gas, "contract address collision"
            else:
                remaining = comp._gas_meter.gas_remaining
                gas, used = remaining - remaining // 64, 0
                error = "max call depth exceeded" if too_deep else (
                    "insufficient balance for transfer" if comp.state.get_balance(creator) < value
                    else "nonce uint64 overflow")
            data, sender, kind_value = initcode, creator, value
        else:
            if frame.child_gas is None:      # the op failed before its pre-call checks
                return
            to = _address(args[1])
            if op in (ops.CALL, ops.CALLCODE):
                kind_value, offset, length = _int(args[2]), _int(args[3]), _int(args[4])
            else:
                kind_value = None if op == ops.STATICCALL else msg.value
                offset, length = _int(args[2]), _int(args[3])
            data = bytes(memory[offset:offset + length]) if length else b""
            sender = msg.storage_address
            gas, used = frame.child_gas, 0
            error = "max call depth exceeded" if too_deep else "insufficient balance for transfer"
        self.tracer.on_enter(depth, ops.NAMES[op], sender, to, data, gas, kind_value, self.db)
        self.tracer.on_exit(depth, b"", used, error, True)


def _address(item):
    """A stack item as a 20-byte address (its low 20 bytes)."""
    if isinstance(item, int):
        return (item & ((1 << 160) - 1)).to_bytes(20, "big")
    return bytes(item[-20:]).rjust(20, b"\0")


def _int(item):
    return item if isinstance(item, int) else int.from_bytes(item, "big")


# -- classes -- #

def _unwrap(fn):
    """py-evm wraps some opcodes (deprecation warnings, our call guard); find the Opcode inside."""
    while not isinstance(fn, (BaseCall, Create)) and not hasattr(fn, "gas_cost"):
        inner = getattr(fn, "__wrapped__", None) or getattr(fn, "opcode_fn", None)
        if inner is None:
            return fn
        fn = inner
    return fn


def _gas_cost(fn):
    return _unwrap(fn).gas_cost


def _traced_call(fn):
    """The CALL-family opcode, reporting geth's cost (forwarded gas included) before the call."""
    base = type(fn)

    def compute_msg_gas(self, computation, gas, to, value):
        child_gas, fee = base.compute_msg_gas(self, computation, gas, to, value)
        run = computation.state._trace_run
        if run is not None:
            frame = run.frames[-1]
            frame.cost = frame.gas_before - computation._gas_meter.gas_remaining + fee
            frame.child_gas = child_gas
        return child_gas, fee

    traced = copy.copy(fn)
    traced.__class__ = type("Traced" + base.__name__, (base,), {"compute_msg_gas": compute_msg_gas})
    return traced


def _traced_create(fn):
    """CREATE/CREATE2, emitting the entry before the 63/64 goes to the child (geth excludes it)."""
    base = type(fn)

    def max_child_gas_modifier(self, gas):
        child_gas = base.max_child_gas_modifier(self, gas)
        # `gas` is the creator's remaining gas right now; only the creator's own run calls this.
        run = _creating_run.run
        if run is not None:
            frame = run.frames[-1]
            frame.cost = frame.gas_before - gas
            frame.child_gas = child_gas
            run.flush()
        return child_gas

    def __call__(self, computation):
        previous = _creating_run.run
        _creating_run.run = computation.state._trace_run
        try:
            return base.__call__(self, computation)
        finally:
            _creating_run.run = previous

    traced = copy.copy(fn)
    traced.__class__ = type("Traced" + base.__name__, (base,),
                            {"max_child_gas_modifier": max_child_gas_modifier, "__call__": __call__})
    return traced


class _LocalDefault(threading.local):
    run = None


_creating_run = _LocalDefault()


def _traced_computation_class(base):  # noqa: C901 (one class, its methods closing over the tables)
    opcodes = dict(base.opcodes)
    for value in ops.CALL_OPS:
        if value in opcodes:
            opcodes[value] = _traced_call(_unwrap(opcodes[value]))
    for value in ops.CREATE_OPS:
        if value in opcodes:
            opcodes[value] = _traced_create(_unwrap(opcodes[value]))
    table = [opcodes[i] if i in opcodes else InvalidOpcode(i) for i in range(256)]
    constant = [_gas_cost(fn) for fn in table]
    geth_constant = [_GETH_CONSTANT.get(i, constant[i]) for i in range(256)]

    class Traced(base):
        @classmethod
        def apply_message(cls, state, message, transaction_context, parent_computation=None):
            run = state._trace_run
            if run is None or parent_computation is None or message.is_create:
                return super().apply_message(state, message, transaction_context, parent_computation)
            run.enter(message)
            computation = super().apply_message(state, message, transaction_context, parent_computation)
            run.exit(computation)
            return computation

        @classmethod
        def apply_create_message(cls, state, message, transaction_context, parent_computation=None):
            run = state._trace_run
            if run is None or parent_computation is None:
                return super().apply_create_message(state, message, transaction_context, parent_computation)
            run.enter(message)
            computation = super().apply_create_message(state, message, transaction_context, parent_computation)
            run.exit(computation)
            return computation

        @classmethod
        def apply_computation(cls, state, message, transaction_context, parent_computation=None):
            run = state._trace_run
            if run is None:
                return super().apply_computation(state, message, transaction_context, parent_computation)
            frame = None
            # From py-evm 0.12.1b1 BaseComputation.apply_computation, with the loop traced.
            with cls(state, message, transaction_context) as computation:
                if computation.is_origin_computation:
                    computation.contracts_created = []
                    if message.is_create:
                        cls.consume_initcode_gas_cost(computation)
                if parent_computation is not None:
                    computation.contracts_created = parent_computation.contracts_created
                if message.is_create:
                    computation.contracts_created.append(message.storage_address)
                precompile = computation.precompiles.get(message.code_address)
                if precompile is not None:
                    if not message.is_delegation:
                        precompile(computation)
                    return computation
                if not message.code:      # geth runs no interpreter for code-less accounts: no steps
                    return computation
                frame = run.push(computation, parent_computation)
                run.execute(computation, frame, table, geth_constant)
            if frame is not None:
                run.pop(frame, computation)
            return computation

        def add_log_entry(self, account, topics, data):
            super().add_log_entry(account, topics, data)
            run = self.state._trace_run
            if run is not None:
                run.log(account, topics, data)

    Traced.opcodes = opcodes
    Traced.__name__ = "Traced" + base.__name__
    return Traced


_classes = {}
_classes_lock = threading.Lock()


def traced_state_class(state_class):
    """A subclass of `state_class` (a py-evm State) whose executions can be traced.

    With no trace attached (`_trace_run` None) it runs py-evm's own loop, so earlier txs of a
    block replay at full speed on the same state object.
    """
    if getattr(state_class, "_is_traced", False):
        return state_class
    with _classes_lock:
        found = _classes.get(state_class)
        if found is not None:
            return found
        computation_class = _traced_computation_class(state_class.computation_class)

        class TracedState(state_class):
            _is_traced = True
            _trace_run = None

            def set_storage(self, address, slot, value):
                run = self._trace_run
                if run is not None and run.pending is not None:
                    frame = run.pending
                    if frame.op == ops.SSTORE:
                        # py-evm writes before charging the cold-slot cost: hold the write until
                        # the op's entry is out, so its tracer sees the old value (geth's order).
                        frame.deferred = (address, slot, value)
                        return
                    run.flush()
                state_class.set_storage(self, address, slot, value)

            def apply_deferred_storage(self, address, slot, value):
                state_class.set_storage(self, address, slot, value)

        for name in ("delta_balance", "set_balance", "set_code", "set_nonce", "increment_nonce",
                     "delete_account", "delete_storage", "delete_code", "touch_account"):
            setattr(TracedState, name, _flushing_method(state_class, name))
        TracedState.computation_class = computation_class
        TracedState.__name__ = "Traced" + state_class.__name__
        _classes[state_class] = TracedState
        return TracedState


def _flushing_method(state_class, name):
    """A state write that first emits the pending op, so its tracer still sees the old state."""
    original = getattr(state_class, name)

    def write(self, *args, **kwargs):
        run = self._trace_run
        if run is not None and run.pending is not None:
            run.flush()
        return original(self, *args, **kwargs)

    write.__name__ = name
    return write


def tx_env(state, tx, *, block_hash=b"", tx_index=0, tx_hash=b"", log_index=0):
    """The TxEnv of `tx` about to run on `state` (call before executing it)."""
    sender = tx.sender
    is_create = not tx.to
    intrinsic = tx.intrinsic_gas
    if is_create:
        intrinsic += _INITCODE_WORD_COST * (ceil32(len(tx.data)) // 32)
        to = generate_contract_address(sender, state.get_nonce(sender))
    else:
        to = tx.to
    return TxEnv(
        kind="CREATE" if is_create else "CALL", sender=sender, to=to, input=tx.data, gas=tx.gas,
        gas_price=state.get_gas_price(tx), value=tx.value, intrinsic_gas=intrinsic,
        block_number=state.block_number, block_hash=block_hash, block_time=state.timestamp,
        coinbase=state.coinbase, tx_index=tx_index, tx_hash=tx_hash, log_index=log_index)


def trace_transaction(state, tx, tracer, env, *, deadline=None, cancel=None, finalize=None, vm_class=PragueVM,
                      check_every=CHECK_EVERY):
    """Apply `tx` to `state` with `tracer` attached; returns the computation.

    deadline: a time.monotonic() value or a Deadline; cancel: a threading.Event. Either stops the run with
    TraceTimeout/TraceCancelled (checked every `check_every` ops and between hooks), after which
    `state` is unusable. finalize(computation), if given, runs after py-evm's own finalization
    and before on_tx_end (the chain's extra fee booking, so prestate's post state matches).
    py-evm's ValidationError (nonce, balance) propagates: geth's "tracing failed".
    """
    original_class = type(state)
    traced_class = traced_state_class(original_class)
    run = TraceRun(tracer, state, env, deadline=deadline, cancel=cancel, check_every=check_every)
    state.__class__ = traced_class
    state._trace_run = run
    try:
        tracer.on_tx_start(env, run.db)
        computation = state.apply_transaction(tx)
        if finalize is not None:
            finalize(computation)
        gas_used = vm_class.finalize_gas_used(tx, computation)
        error = error_text(computation.error) if computation.is_error else None
        run.check()
        tracer.on_tx_end(gas_used, computation.output, error, error is not None)
        return computation
    finally:
        del state._trace_run
        state.__class__ = original_class

