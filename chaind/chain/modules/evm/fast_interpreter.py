"""The untraced interpreter loop of our py-evm computations: the cheap opcodes inlined with the stack, pc and gas in
locals, every other opcode run by py-evm's own implementation on the same computation (issue 36).

It gives what py-evm 0.12.1b1's BaseComputation.apply_computation loop gives, opcode for opcode (gas, stack, memory,
errors and their texts): tests/test_evm_fast_path.py holds the two equal. Traces keep their instrumented loop
(tracing/hooks.py).
"""

import struct
import threading

from eth._utils.numeric import ceil32
from eth.exceptions import (
    FullStack,
    Halt,
    InsufficientStack,
    InvalidInstruction,
    InvalidJumpDestination,
    OutOfGas,
    Revert,
    WriteProtection,
)
from eth.vm.computation import BaseComputation, memory_gas_cost
from eth.vm.forks.london.storage import GAS_SCHEDULE_EIP3529
from eth.vm.forks.prague.computation import PragueComputation
from eth.vm.logic.invalid import InvalidOpcode
from eth_hash.auto import keccak
from eth_utils import encode_hex

_MAX = 2**256 - 1
_SHA3_WORD = 6
_EMPTY_KECCAK = int.from_bytes(keccak(b""), "big")
_SLOAD_WARM, _SSTORE_SET, _SSTORE_RESET, _SSTORE_CLEARS = GAS_SCHEDULE_EIP3529
_PADDING = bytes(33)            # a PUSH32 at the code's last byte reads 32 bytes past it, as zeros
# Bytes of code whose analyses are kept (each costs about twenty times its code: two list entries per byte).
_CACHE_BYTES = 1 << 20
# MLOAD's and MSTORE's word: struct reads and writes a bytearray in place (a slice assignment of bytes copies
# them into a new bytearray first).
_WORD = struct.Struct("32s")
# _Analysis.ops' marks of a PUSH1..PUSH32 before an MLOAD or MSTORE (past any byte, so the loop's ranges skip them).
_PUSH_MLOAD, _PUSH_MSTORE = 0x151, 0x152

# (opcode, mnemonic, gas) of the opcodes the loop runs itself; their costs are checked against py-evm's table
# at import, so a py-evm whose costs differ fails loudly rather than charging other gas.
INLINED = {0x00: 0, 0x01: 3, 0x02: 5, 0x03: 3, 0x10: 3, 0x11: 3, 0x14: 3, 0x15: 3, 0x16: 3, 0x17: 3, 0x18: 3,
           0x19: 3, 0x1b: 3, 0x1c: 3, 0x20: 30, 0x30: 2, 0x33: 2, 0x34: 2, 0x35: 3, 0x36: 2, 0x50: 2, 0x51: 3, 0x52: 3,
           0x53: 3, 0x54: 0, 0x55: 0, 0x56: 8, 0x57: 10, 0x58: 2, 0x59: 2, 0x5a: 2, 0x5b: 1, 0x5f: 2,
           0xa0: 375, 0xa1: 375, 0xa2: 375, 0xa3: 375, 0xa4: 375, 0xf3: 0, 0xfd: 0,
           **{op: 3 for op in range(0x60, 0xa0)}}
_STOCK = PragueComputation.opcodes
for _op, _cost in INLINED.items():
    if _STOCK[_op].gas_cost != _cost:
        raise ImportError(f"py-evm charges {_STOCK[_op].gas_cost} for {_STOCK[_op].mnemonic}, the fast loop {_cost}")


class _Analysis:
    """A code's valid JUMPDEST positions; at each JUMPDEST, how many JUMPDESTs follow in a row (a run of them is
    charged at once); at each PUSH, the value it pushes; the ops the loop dispatches on: the code's bytes as a list
    (a list's item is read faster than a bytes'), with _PUSH_MLOAD or _PUSH_MSTORE at a PUSH1..PUSH32 right before
    an MLOAD or MSTORE."""

    __slots__ = ("code", "jumpdests", "runs", "immediates", "ops")

    def __init__(self, code):
        padded = self.code = code + _PADDING
        jumpdests = set()
        runs = {}
        immediates = [0] * len(padded)
        ops = self.ops = list(padded)
        position, length = 0, len(code)
        while position < length:
            op = code[position]
            if op == 0x5b:
                end = position + 1
                while end < length and code[end] == 0x5b:
                    end += 1
                for at in range(position, end):
                    jumpdests.add(at)
                    runs[at] = end - at
                position = end
            elif 0x60 <= op <= 0x7f:
                size = op - 0x5f
                immediates[position] = int.from_bytes(padded[position + 1:position + 1 + size], "big")
                after = padded[position + 1 + size]
                if after == 0x51 or after == 0x52:
                    ops[position] = _PUSH_MLOAD if after == 0x51 else _PUSH_MSTORE
                position += 1 + size
            else:
                position += 1
        self.jumpdests = frozenset(jumpdests)
        self.runs = runs
        self.immediates = immediates


_analyses = {}
_analyses_bytes = 0
_analyses_lock = threading.Lock()


def analysis(code):
    """The code's _Analysis, cached by the code (a contract's runs again and again)."""
    global _analyses_bytes
    found = _analyses.get(code)
    if found is None:
        found = _Analysis(code)
        with _analyses_lock:
            if _analyses_bytes + len(code) > _CACHE_BYTES:
                _analyses.clear()
                _analyses_bytes = 0
            _analyses[code] = found
            _analyses_bytes += len(code)
    return found


def _out_of_gas(meter, needed, remaining, reason):
    meter.gas_remaining = remaining
    return OutOfGas(f"Out of gas: Needed {needed} - Remaining {remaining} - Reason: {reason}")


def _underflow(stack, wanted):
    if wanted == 1:
        return InsufficientStack("Wanted 1 stack item, had none")
    return InsufficientStack(f"Wanted {wanted} stack items, only had {len(stack)}")


def _bad_jump(raw, length, dest):
    if dest < length and raw[dest] == 0x5b:
        return InvalidInstruction("Jump resulted in invalid instruction")
    return InvalidJumpDestination("Invalid Jump Destination")


def expand(computation, meter, gas, start, size):
    """Charge and make the memory growth of touching [start, start + size) (size > 0); the gas left."""
    memory = computation._memory
    before = ceil32(len(memory._bytes))
    after = ceil32(start + size)
    fee = memory_gas_cost(after) - memory_gas_cost(before)
    if fee > 0:
        if fee > gas:
            raise _out_of_gas(meter, fee, gas, f"Expanding memory {before} -> {after}")
        gas -= fee
    memory.extend(start, size)
    return gas


def run(computation, on_jump=None, call=None, on_call=None):  # noqa: C901 (the opcode loop, inlined for speed)
    """Execute computation's code until it halts; a VMError propagates, as from py-evm's loop.

    on_jump: called before every JUMP and JUMPI (the eth_call deadline); call: runs CALL, CALLCODE, DELEGATECALL
    and STATICCALL (fast_calls.call), None to leave them to the table; on_call: called before each `call`.

    The opcodes are tested by ranges first (0x5f.., 0x50..0x5e, ..0x1f), so the common ones sit behind few
    comparisons."""
    code_stream = computation.code
    found = analysis(code_stream._raw_code_bytes)
    raw = found.code
    ops = found.ops
    jumpdests = found.jumpdests
    runs = found.runs
    immediates = found.immediates
    length = len(code_stream)
    stack = computation._stack.values
    push = stack.append
    pop = stack.pop
    meter = computation._gas_meter
    memory = computation._memory
    # Memory.extend replaces its bytearray when a memoryview holds it: `mem` is read again after anything that may
    # extend memory (expand, a call, an opcode of py-evm's).
    mem = memory._bytes
    from_bytes = int.from_bytes
    read_word = _WORD.unpack_from
    write_word = _WORD.pack_into
    opcodes = computation.opcodes
    msg = computation.msg
    state = computation.state
    gas = meter.gas_remaining
    pc = code_stream.program_counter
    while True:
        op = ops[pc]
        if op >= 0x5f:
            if op < 0x80:                                       # PUSH0..PUSH32
                cost = 2 if op == 0x5f else 3
                if gas < cost:
                    raise _out_of_gas(meter, cost, gas, _STOCK[op].mnemonic)
                gas -= cost
                if len(stack) > 1023:
                    meter.gas_remaining = gas
                    raise FullStack("Stack limit reached")
                push(immediates[pc])
                pc += op - 0x5e
                continue
            if op > 0xff:                                       # PUSH1..PUSH32, then MLOAD or MSTORE
                # (compilers' every memory access): the pair at once when the second op needs no memory growth and
                # cannot fail, its offset never pushed; else the PUSH alone.
                if gas < 3:
                    raise _out_of_gas(meter, 3, gas, _STOCK[raw[pc]].mnemonic)
                gas -= 3
                if len(stack) > 1023:
                    meter.gas_remaining = gas
                    raise FullStack("Stack limit reached")
                start = immediates[pc]
                pc += raw[pc] - 0x5e
                if gas >= 3 and start + 32 <= len(mem):
                    if op == _PUSH_MLOAD:
                        gas -= 3
                        push(from_bytes(read_word(mem, start)[0]))
                        pc += 1
                        continue
                    if stack:
                        gas -= 3
                        write_word(mem, start, pop().to_bytes(32))
                        pc += 1
                        continue
                push(start)
                continue
            if op < 0x90:                                       # DUP1..DUP16
                if gas < 3:
                    raise _out_of_gas(meter, 3, gas, _STOCK[op].mnemonic)
                gas -= 3
                if len(stack) > 1023:
                    meter.gas_remaining = gas
                    raise FullStack("Stack limit reached")
                depth = op - 0x7f
                if len(stack) < depth:
                    meter.gas_remaining = gas
                    raise InsufficientStack(f"Insufficient stack items for DUP{depth}")
                push(stack[-depth])
                pc += 1
                continue
            if op < 0xa0:                                       # SWAP1..SWAP16
                if gas < 3:
                    raise _out_of_gas(meter, 3, gas, _STOCK[op].mnemonic)
                gas -= 3
                depth = op - 0x8e
                if len(stack) < depth:
                    meter.gas_remaining = gas
                    raise InsufficientStack(f"Insufficient stack items for SWAP{depth - 1}")
                stack[-1], stack[-depth] = stack[-depth], stack[-1]
                pc += 1
                continue
            if op <= 0xa4:                                      # LOG0..LOG4 (py-evm's log_XX)
                if gas < 375:
                    raise _out_of_gas(meter, 375, gas, _STOCK[op].mnemonic)
                gas -= 375
                if msg.is_static:
                    meter.gas_remaining = gas
                    raise WriteProtection("Cannot modify state while inside of a STATICCALL context")
                if len(stack) < 2:
                    meter.gas_remaining = gas
                    raise _underflow(stack, 2)
                start = pop()
                size = pop()
                count = op - 0xa0
                if count:
                    if len(stack) < count:
                        meter.gas_remaining = gas
                        raise _underflow(stack, count)
                    topics = tuple(stack[:-count - 1:-1])
                    del stack[-count:]
                else:
                    topics = ()
                cost = 8 * size + 375 * count
                if cost > gas:
                    raise _out_of_gas(meter, cost, gas, "Log topic and data gas cost")
                gas -= cost
                if size:
                    if start + size > len(mem):
                        gas = expand(computation, meter, gas, start, size)
                        mem = memory._bytes
                    data = bytes(mem[start:start + size])
                else:
                    data = b""
                computation._log_entries.append((computation.transaction_context.get_next_log_counter(),
                                                 msg.storage_address, topics, data))
                pc += 1
                continue
            if op == 0xf3 or op == 0xfd:                        # RETURN, REVERT
                if len(stack) < 2:
                    meter.gas_remaining = gas
                    raise _underflow(stack, 2)
                start = pop()
                size = pop()
                if size:
                    if start + size > len(mem):
                        gas = expand(computation, meter, gas, start, size)
                        mem = memory._bytes
                    data = bytes(mem[start:start + size])
                else:
                    data = b""
                meter.gas_remaining = gas
                code_stream.program_counter = pc + 1
                computation.output = data
                if op == 0xf3:
                    return
                raise Revert(data)
            if call is not None and op in _CALLS:
                meter.gas_remaining = gas
                code_stream.program_counter = pc + 1
                if on_call is not None:
                    on_call()
                call(computation, op)
                gas = meter.gas_remaining
                mem = memory._bytes
                pc += 1
                continue
        elif op >= 0x50:
            if op == 0x50:                                  # POP
                if gas < 2:
                    raise _out_of_gas(meter, 2, gas, "POP")
                gas -= 2
                if not stack:
                    meter.gas_remaining = gas
                    raise _underflow(stack, 1)
                pop()
                pc += 1
                continue
            if op < 0x54:
                # MLOAD, MSTORE, MSTORE8: py-evm pops the offset, then (MSTORE, MSTORE8) the value, one at a time
                if gas < 3:
                    raise _out_of_gas(meter, 3, gas, _STOCK[op].mnemonic)
                gas -= 3
                if not stack:
                    meter.gas_remaining = gas
                    raise _underflow(stack, 1)
                start = pop()
                if op == 0x51:
                    if start + 32 > len(mem):
                        gas = expand(computation, meter, gas, start, 32)
                        mem = memory._bytes
                    push(from_bytes(read_word(mem, start)[0]))
                else:
                    if not stack:
                        meter.gas_remaining = gas
                        raise _underflow(stack, 1)
                    value = pop()
                    if op == 0x52:
                        if start + 32 > len(mem):
                            gas = expand(computation, meter, gas, start, 32)
                            mem = memory._bytes
                        write_word(mem, start, value.to_bytes(32))
                    else:
                        if start >= len(mem):
                            gas = expand(computation, meter, gas, start, 1)
                            mem = memory._bytes
                        mem[start] = value & 0xff
                pc += 1
                continue
            if op == 0x5b:                                      # JUMPDEST, a run of them at once
                count = runs[pc]
                if gas < count:
                    raise _out_of_gas(meter, 1, 0, "JUMPDEST")
                gas -= count
                pc += count
                continue
            if op == 0x57 or op == 0x56:                        # JUMPI, JUMP
                cost = 10 if op == 0x57 else 8
                if gas < cost:
                    raise _out_of_gas(meter, cost, gas, _STOCK[op].mnemonic)
                gas -= cost
                if on_jump is not None:
                    meter.gas_remaining = gas
                    on_jump()
                if op == 0x57:
                    if len(stack) < 2:
                        meter.gas_remaining = gas
                        raise _underflow(stack, 2)
                    dest = pop()
                    if not pop():
                        pc += 1
                        continue
                else:
                    if not stack:
                        meter.gas_remaining = gas
                        raise _underflow(stack, 1)
                    dest = pop()
                if dest not in jumpdests:
                    meter.gas_remaining = gas
                    code_stream.program_counter = dest
                    raise _bad_jump(raw, length, dest)
                pc = dest
                continue
            if op == 0x54:                                      # SLOAD (EIP-2929's)
                if not stack:
                    meter.gas_remaining = gas
                    raise _underflow(stack, 1)
                slot = pop()
                address = msg.storage_address
                if state.is_storage_warm(address, slot):
                    cost = 100
                else:
                    state.mark_storage_warm(address, slot)
                    cost = 2100
                if gas < cost:
                    raise _out_of_gas(meter, cost, gas, "SLOAD")
                gas -= cost
                push(state.get_storage(address, slot))
                pc += 1
                continue
            if op == 0x55:                                      # SSTORE (EIPs 2200, 2929 and 3529's)
                if msg.is_static:
                    meter.gas_remaining = gas
                    raise WriteProtection("Cannot modify state while inside of a STATICCALL context")
                if gas <= 2300:
                    meter.gas_remaining = gas
                    raise OutOfGas("Net-metered SSTORE always fails below 2300 gas, per EIP-2200", gas)
                if len(stack) < 2:
                    meter.gas_remaining = gas
                    raise _underflow(stack, 2)
                slot = pop()
                value = pop()
                address = msg.storage_address
                current = state.get_storage(address, slot)
                original = state.get_storage(address, slot, from_journal=False)
                refund = 0
                if current == value:
                    cost = _SLOAD_WARM
                elif original == current:
                    if original == 0:
                        cost = _SSTORE_SET
                    else:
                        cost = _SSTORE_RESET
                        if value == 0:
                            refund = _SSTORE_CLEARS
                else:
                    cost = _SLOAD_WARM
                    if original != 0:
                        if current == 0:
                            refund -= _SSTORE_CLEARS
                        if value == 0:
                            refund += _SSTORE_CLEARS
                    if original == value:
                        refund += (_SSTORE_SET if original == 0 else _SSTORE_RESET) - _SLOAD_WARM
                if gas < cost:
                    raise _out_of_gas(meter, cost, gas, f"SSTORE: {encode_hex(address)}[{slot}] -> {value} (current: "
                                                        f"{current} / original: {original})")
                gas -= cost
                if refund:
                    meter.gas_refunded = meter.refund_strategy(meter.gas_refunded, refund)
                state.set_storage(address, slot, value)
                if not state.is_storage_warm(address, slot):
                    state.mark_storage_warm(address, slot)
                    if gas < 2100:
                        raise _out_of_gas(meter, 2100, gas, "Implicit SLOAD during SSTORE")
                    gas -= 2100
                pc += 1
                continue
            if op <= 0x5a:                                      # PC, MSIZE, GAS
                if gas < 2:
                    raise _out_of_gas(meter, 2, gas, _STOCK[op].mnemonic)
                gas -= 2
                if len(stack) > 1023:
                    meter.gas_remaining = gas
                    raise FullStack("Stack limit reached")
                push(gas if op == 0x5a else pc if op == 0x58 else len(mem))
                pc += 1
                continue
        elif op < 0x20:
            if op in _BINARY:                                   # arithmetic, comparison, bitwise
                cost = 5 if op == 0x02 else 3
                if gas < cost:
                    raise _out_of_gas(meter, cost, gas, _STOCK[op].mnemonic)
                gas -= cost
                if len(stack) < 2:
                    meter.gas_remaining = gas
                    raise _underflow(stack, 2)
                a = pop()
                b = stack[-1]
                if op < 0x10:
                    if op == 0x01:
                        stack[-1] = (a + b) & _MAX
                    elif op == 0x02:
                        stack[-1] = (a * b) & _MAX
                    else:
                        stack[-1] = (a - b) & _MAX
                elif op < 0x16:
                    if op == 0x10:
                        stack[-1] = 1 if a < b else 0
                    elif op == 0x11:
                        stack[-1] = 1 if a > b else 0
                    else:
                        stack[-1] = 1 if a == b else 0
                elif op == 0x16:
                    stack[-1] = a & b
                elif op == 0x17:
                    stack[-1] = a | b
                elif op == 0x18:
                    stack[-1] = a ^ b
                elif op == 0x1b:
                    stack[-1] = 0 if a >= 256 else (b << a) & _MAX
                else:                                           # SHR
                    stack[-1] = 0 if a >= 256 else b >> a
                pc += 1
                continue
            if op == 0x15 or op == 0x19:                        # ISZERO, NOT
                if gas < 3:
                    raise _out_of_gas(meter, 3, gas, _STOCK[op].mnemonic)
                gas -= 3
                if not stack:
                    meter.gas_remaining = gas
                    raise _underflow(stack, 1)
                a = stack[-1]
                stack[-1] = (0 if a else 1) if op == 0x15 else _MAX ^ a
                pc += 1
                continue
            if op == 0x00:                                      # STOP
                break
        elif op == 0x20:                                        # KECCAK256
            if gas < 30:
                raise _out_of_gas(meter, 30, gas, "SHA3")
            gas -= 30
            if len(stack) < 2:
                meter.gas_remaining = gas
                raise _underflow(stack, 2)
            start = pop()
            size = stack[-1]
            if size:
                end = start + size
                if end > len(mem):
                    gas = expand(computation, meter, gas, start, size)
                    mem = memory._bytes
                words = _SHA3_WORD * ((size + 31) // 32)
                if words > gas:
                    raise _out_of_gas(meter, words, gas, "SHA3: word gas cost")
                gas -= words
                stack[-1] = from_bytes(keccak(mem[start:end]))
            else:
                stack[-1] = _EMPTY_KECCAK
            pc += 1
            continue
        elif op == 0x35:                                        # CALLDATALOAD
            if gas < 3:
                raise _out_of_gas(meter, 3, gas, "CALLDATALOAD")
            gas -= 3
            if not stack:
                meter.gas_remaining = gas
                raise _underflow(stack, 1)
            start = stack[-1]
            word = msg.data[start:start + 32]
            stack[-1] = from_bytes(word) << (8 * (32 - len(word)))
            pc += 1
            continue
        elif op in _CONTEXT:                                    # ADDRESS, CALLER, CALLVALUE, CALLDATASIZE
            if gas < 2:
                raise _out_of_gas(meter, 2, gas, _STOCK[op].mnemonic)
            gas -= 2
            if len(stack) > 1023:
                meter.gas_remaining = gas
                raise FullStack("Stack limit reached")
            if op == 0x33:
                push(from_bytes(msg.sender))
            elif op == 0x30:
                push(from_bytes(msg.storage_address))
            elif op == 0x34:
                push(msg.value)
            else:
                push(len(msg.data))
            pc += 1
            continue
        # Every other opcode: py-evm's own, on the computation brought up to date.
        meter.gas_remaining = gas
        code_stream.program_counter = pc + 1
        try:
            opcode_fn = opcodes[op]
        except KeyError:
            opcode_fn = InvalidOpcode(op)
        try:
            opcode_fn(computation=computation)
        except Halt:
            return          # the halting op (RETURN, SELFDESTRUCT) has left gas and pc as they end
        gas = meter.gas_remaining
        mem = memory._bytes
        pc = code_stream.program_counter
        if pc > length:
            # py-evm's stream runs STOP past the code's end; a pc beyond the padding cannot index it.
            break
        if stack and type(stack[-1]) is bytes:
            stack[-1] = from_bytes(stack[-1])
    meter.gas_remaining = gas
    code_stream.program_counter = pc + 1


_CALLS = frozenset((0xf1, 0xf2, 0xf4, 0xfa))
_CONTEXT = frozenset((0x30, 0x33, 0x34, 0x36))
_BINARY = frozenset((0x01, 0x02, 0x03, 0x10, 0x11, 0x14, 0x16, 0x17, 0x18, 0x1b, 0x1c))


def uses_stock_inlined(computation_class):
    """Whether every opcode the loop inlines is py-evm's own in this class's table (a class that wraps one, to
    trace or guard it, must run it through its table), and the class keeps py-evm's add_log_entry (the loop appends
    LOG's entries itself)."""
    opcodes = computation_class.opcodes
    return (all(opcodes.get(op) is _STOCK[op] for op in INLINED)
            and computation_class.add_log_entry is BaseComputation.add_log_entry)
