"""CALL, CALLCODE, DELEGATECALL and STATICCALL as the fast loop runs them: py-evm 0.12.1b1's Prague opcodes (BaseCall's
__call__ with the EIP-150/161/2929/7702 classes' gas and code lookups) in one function, on the same state (issue 36).

Gas, errors and their texts, warm marks, state reads and writes, the child frame and the parent's return data are
py-evm's, in its order; tests/test_evm_fast_path.py holds them equal to py-evm's own opcodes.
"""

from eth._utils.state import code_is_delegation_designation
from eth.exceptions import OutOfGas, VMError, WriteProtection
from eth.vm.code_stream import CodeStream
from eth.vm.computation import BaseComputation
from eth.vm.forks.frontier.computation import FrontierComputation
from eth.vm.forks.istanbul.computation import IstanbulComputation
from eth.vm.forks.prague.computation import PragueComputation
from eth.vm.gas_meter import GasMeter, allow_negative_refund_strategy
from eth.vm.memory import Memory
from eth.vm.message import Message
from eth.vm.stack import Stack

from chaind.chain.modules.evm import bech32_precompile, fast_interpreter, p256
from chaind.chain.modules.evm.fast_interpreter import expand

CALL, CALLCODE, DELEGATECALL, STATICCALL = 0xf1, 0xf2, 0xf4, 0xfa
OPS = (CALL, CALLCODE, DELEGATECALL, STATICCALL)
_MNEMONICS = {CALL: "CALL", CALLCODE: "CALLCODE", DELEGATECALL: "DELEGATECALL", STATICCALL: "STATICCALL"}
_LOAD_REASONS = {op: f"{name} charges implicit account load for reading code" for op, name in _MNEMONICS.items()}
# Items each op pops: gas, address, (value,) in offset, in size, out offset, out size.
_ARITY = {CALL: 7, CALLCODE: 7, DELEGATECALL: 6, STATICCALL: 6}
_ADDRESS = 2**160 - 1
_COLD, _WARM = 2600, 100        # EIP-2929's account access costs
_CALL_VALUE, _NEW_ACCOUNT, _STIPEND = 9000, 25000, 2300
_DEPTH_LIMIT = 1024
_STOCK = PragueComputation.opcodes


_CHILD_STEPS = ("apply_child_computation", "generate_child_computation", "add_child_computation")


def runs_stock_calls(computation_class, prepare_child_message):
    """Whether `call` may run the class's CALL-family ops: its table holds py-evm's own, or ops that check on_call's
    deadline and then run py-evm's own (api/calls.py's guard), and it keeps the child steps `call` stands in for
    (py-evm's, and `prepare_child_message`)."""
    opcodes = computation_class.opcodes
    guarded = computation_class.on_call is not None
    for op in OPS:
        fn = opcodes.get(op)
        if fn is not _STOCK[op] and not (guarded and getattr(fn, "opcode_fn", None) is _STOCK[op]):
            return False
    return (computation_class.prepare_child_message is prepare_child_message
            and all(getattr(computation_class, name) is getattr(PragueComputation, name) for name in _CHILD_STEPS))


def child_message(gas, to, sender, value, data, code, depth, create_address=None, code_address=None,
                  should_transfer_value=True, is_static=False, is_delegation=False):
    """A Message as Message(...) makes it, without its checks of each field."""
    message = _new_message(Message)
    message.gas = gas
    message.to = to
    message.sender = sender
    message.value = value
    message.data = data
    message.depth = depth
    message.code = code
    message._storage_address = create_address
    message._code_address = code_address
    message.should_transfer_value = should_transfer_value
    message.is_static = is_static
    message._is_delegation = is_delegation
    message.refund = 0
    return message


_new_message = object.__new__


def _load(meter, state, address, op):
    """BaseCallEIP2929.consume_account_load_gas: mark `address` warm, then charge for it."""
    if state.is_address_warm(address):
        fee = _WARM
    else:
        state.mark_address_warm(address)
        fee = _COLD
    if fee > meter.gas_remaining:
        raise OutOfGas(f"Out of gas: Needed {fee} - Remaining {meter.gas_remaining} - Reason: {_LOAD_REASONS[op]}")
    meter.gas_remaining -= fee


def call(computation, op):  # noqa: C901 (one opcode, its four kinds)
    """Run the CALL-family `op` on `computation` (its gas meter and pc brought up to date, the pc past the op); a
    VMError propagates, as from py-evm's opcode."""
    stack = computation._stack.values
    if len(stack) < _ARITY[op]:
        # py-evm's own op pops what there is and words the underflow by where it ran short.
        return computation.opcodes[op](computation=computation)
    meter = computation._gas_meter
    msg = computation.msg
    state = computation.state
    pop = stack.pop
    # get_call_params
    gas = pop()
    to = (pop() & _ADDRESS).to_bytes(20, "big")
    sender = code_address = None
    is_static = msg.is_static
    should_transfer_value = True
    if op == CALL:
        value = pop()
    elif op == STATICCALL:
        value = 0
        is_static = True
        should_transfer_value = False
    else:
        code_address = to
        to = msg.storage_address
        if op == CALLCODE:
            value = pop()
            sender = to
        else:
            value = msg.value
            sender = msg.sender
            should_transfer_value = False
    in_start = pop()
    in_size = pop()
    out_start = pop()
    out_size = pop()
    if op == CALL and is_static and value:
        raise WriteProtection("Cannot modify state while inside of a STATICCALL context")

    memory = computation._memory
    # (expand charges nothing and grows nothing for a range inside memory's words)
    if in_size and in_start + in_size > len(memory._bytes):
        meter.gas_remaining = expand(computation, meter, meter.gas_remaining, in_start, in_size)
    if out_size and out_start + out_size > len(memory._bytes):
        meter.gas_remaining = expand(computation, meter, meter.gas_remaining, out_start, out_size)
    data = bytes(memory._bytes[in_start:in_start + in_size])

    # get_code_at_address (EIP-7702's): the code source's load, then a delegation's
    code_source = code_address or to
    _load(meter, state, code_source, op)
    code = state.get_code(code_source)
    delegation = None
    if code_is_delegation_designation(code):
        delegation = code[3:]
        _load(meter, state, delegation, op)
        code = state.get_code(delegation)

    # compute_msg_gas: the extra fees, then the 63/64 rule on what they leave
    if op == CALL:
        # CallEIP161's new-account fee. py-evm reads whether `to` is dead whatever the value; the reads change
        # nothing (an account cache, a witness note), so they are made only when value goes.
        extra = (_CALL_VALUE + (_NEW_ACCOUNT if not state.account_exists(to) or state.account_is_empty(to) else 0)
                 if value else 0)
    elif op == CALLCODE:
        extra = _CALL_VALUE if value else 0
    else:
        extra = 0
    remaining = meter.gas_remaining
    if remaining < extra:
        raise OutOfGas(f"Out of gas: Needed {extra} - Remaining {remaining} - Reason: {_MNEMONICS[op]}")
    left = remaining - extra
    if gas > left - left // 64:
        gas = left - left // 64
    meter.gas_remaining = remaining - gas - extra
    child_gas = gas + _STIPEND if value and op != DELEGATECALL else gas

    # the pre-call checks (py-evm reads the balance for every kind; only a transfer of value needs it)
    if ((value and should_transfer_value and state.get_balance(msg.storage_address) < value)
            or msg.depth >= _DEPTH_LIMIT):
        computation.return_data = b""
        meter.gas_remaining += child_gas
        stack.append(0)
        return None

    child = child_message(child_gas, to, msg.storage_address if sender is None else sender, value, data, code,
                          msg.depth + 1, code_address=delegation or code_address,
                          should_transfer_value=should_transfer_value, is_static=is_static,
                          is_delegation=delegation is not None)
    cls = type(computation)
    if cls._light_frames and not cls.logger.show_debug2:
        result = _frame(cls, state, child, computation.transaction_context, computation)
    else:
        result = computation.apply_message(state, child, computation.transaction_context, computation)
        release(result)

    # add_child_computation (of a call, never a create), then the op's own ending
    error = result._error
    burns = error is not None and error.burns_gas
    erases = error is not None and error.erases_return_data
    output = b"" if erases else result._output
    computation.return_data = b"" if burns else output
    computation.children.append(result)
    stack.append(0 if error is not None else 1)
    if not erases:
        size = min(out_size, len(output))
        if size:
            memory._bytes[out_start:out_start + size] = output[:size]
    if not burns:
        meter.gas_remaining += result._gas_meter.gas_remaining
    return None


# The frame steps _frame stands in for, each py-evm's own (or NativeComputation's, which `native` names).
_FRAME_STEPS = (("apply_message", FrontierComputation), ("__enter__", BaseComputation), ("__exit__", BaseComputation),
                ("_configure_gas_meter", IstanbulComputation), ("is_origin_computation", BaseComputation))


def runs_light_frames(computation_class, native):
    """Whether `call` may run a child frame by _frame: the class's frame steps are py-evm's and `native`'s (its
    construction and apply_computation), so _frame does what they would."""
    return (all(_step(computation_class, name) is _step(owner, name) for name, owner in _FRAME_STEPS)
            and all(_step(computation_class, name) is _step(native, name)
                    for name in ("__init__", "apply_computation")))


def _step(cls, name):
    """The function behind cls's attribute `name` (a classmethod's, which getattr binds anew each time)."""
    found = getattr(cls, name)
    return getattr(found, "__func__", found)


_new = object.__new__
_NO_PRECOMPILE = object()
# The precompiles that read nothing but their input and gas, and write nothing but their output: Prague's, P256VERIFY
# and bech32's (never the modules', which read and write the chain's state).
_PURE_PRECOMPILES = frozenset((*PragueComputation._precompiles.values(), p256.p256_verify, bech32_precompile.run))


def _frame(cls, state, message, transaction_context, parent):
    """A call's child frame: py-evm's Frontier apply_message and NativeComputation's apply_computation (its
    construction and py-evm's with-block around the run) in one function, for a message `call` has checked (its
    depth under the limit, its sender able to pay its value). The frame is built field by field, as __init__ builds
    it, and returned released (issue 36)."""
    computation = _new(cls)
    computation.state = state
    computation.msg = message
    computation.transaction_context = transaction_context
    meter = computation._gas_meter = _new(GasMeter)
    meter.refund_strategy = allow_negative_refund_strategy
    meter.start_gas = meter.gas_remaining = message.gas
    meter.gas_refunded = 0
    computation.data_floor_cost = 0
    # A child's is its parent's (apply_computation's reset for an origin frame is overwritten by it).
    computation.contracts_created = parent.contracts_created
    # (The lookups read the evm and erc20 params, which neither the value's move nor a touch writes.)
    precompile = computation.precompiles.get(message.code_address, _NO_PRECOMPILE)
    if precompile is _NO_PRECOMPILE:
        code = message.code
        stops = not code or code[0] == 0
    else:
        stops = precompile in _PURE_PRECOMPILES
    if stops:
        # Code that stops at once (an account without code, an empty contract), or a precompile that reads only its
        # input and gas: nothing it does needs undoing, so no snapshot (its commit would leave the journals as
        # they are without it), and the precompile runs before the value moves and the account is touched, which
        # then happen only if it succeeds, as a revert would leave them. Its lists stay empty: release's tuples. Such
        # a CALL's frame cost more than the rest of the CALL (issue 36).
        computation.children = computation.accounts_to_delete = computation.beneficiaries = ()
        computation._log_entries = ()
        if precompile is not _NO_PRECOMPILE and not message.is_delegation:
            try:
                precompile(computation)
            except VMError as error:
                _record(computation, meter, error)
                return computation
        _move_and_touch(state, message)
        return computation
    computation.children = []
    computation.accounts_to_delete = []
    computation.beneficiaries = []
    computation._log_entries = []
    snapshot = state.snapshot()
    _move_and_touch(state, message)
    try:
        if precompile is _NO_PRECOMPILE:
            # The parts only code runs with (a precompile's frame reads its message and gas, and release drops
            # them from a returned frame).
            stream = computation.code = _new(CodeStream)
            stream.program_counter = 0
            stream._raw_code_bytes = code
            stream._length_cache = len(code)
            stream.invalid_positions = set()
            stream.valid_positions = set()
            computation._stack = Stack()
            computation._memory = Memory()
            fast_interpreter.run(computation, cls.on_jump, call, cls.on_call)
        elif not message.is_delegation:
            precompile(computation)
    except VMError as error:
        _record(computation, meter, error)
        state.revert(snapshot)
    else:
        state.commit(snapshot)
    release(computation)
    return computation


def _record(computation, meter, error):
    """BaseComputation.__exit__'s record of a VMError."""
    computation._error = error
    if error.burns_gas:
        meter.gas_remaining = 0
    if error.erases_return_data:
        computation.return_data = b""


def _move_and_touch(state, message):
    """Frontier's apply_message before the code runs: the value moves, the account is touched."""
    value = message.value
    if value and message.should_transfer_value:
        state.delta_balance(message.sender, -value)
        state.delta_balance(message.storage_address, value)
    state.touch_account(message.storage_address)


# What a frame runs with and py-evm never reads once it has returned (it reads the message, gas meter, output, error,
# logs, refunds, deletions and children): the stack, memory and code, and the stack's methods cached by its ops.
_RUN_ONLY = frozenset(("_stack", "_memory", "code", "stack_pop_ints", "stack_pop_bytes", "stack_pop_any",
                       "stack_pop1_int", "stack_pop1_bytes", "stack_pop1_any", "stack_push_int", "stack_push_bytes"))
# The lists py-evm reads from a returned frame (its children, logs and deletions) and no longer adds to.
_KEPT_LISTS = ("children", "accounts_to_delete", "beneficiaries", "_log_entries")


def release(computation):
    """Drop a returned child frame's _RUN_ONLY parts, and put the empty tuple for its empty _KEPT_LISTS. Its parent
    keeps it to the end of the transaction; the parts would be a dozen objects per call that Python's cycle
    collector walks again and again, which cost more than the rest of a call (issue 36)."""
    attributes = computation.__dict__
    for name in _RUN_ONLY.intersection(attributes):
        del attributes[name]
    for name in _KEPT_LISTS:
        if not attributes[name]:
            attributes[name] = ()
