"""The fast interpreter loop (evm/fast_interpreter.py) against py-evm's own loop on the same NativeState: random and
adversarial bytecode gives the same error (type and text), gas left and refunded, output, logs and state root."""

import random

import pytest
from eth.db.account import AccountDB
from eth.db.atomic import AtomicDB
from eth.vm.computation import BaseComputation
from eth.vm.execution_context import ExecutionContext
from eth.vm.forks.prague import PragueVM
from eth.vm.forks.prague.computation import PragueComputation
from eth.vm.forks.prague.state import PragueState, PragueTransactionExecutor
from eth.vm.message import Message
from eth.vm.spoof import SpoofTransaction
from eth.vm.transaction_context import BaseTransactionContext

from chaind.chain.modules.evm import fast_interpreter
from chaind.chain.modules.evm.state import NativeComputation, NativeState, NativeTransactionExecutor
from chaind.store.evm_accounts import FastAccountDB

BLANK_ROOT = bytes.fromhex("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")
SENDER = b"\x10" * 20
TARGET = b"\x20" * 20
REVERTER = b"\x30" * 20          # reverts with 4 bytes of data
RETURNER = b"\x31" * 20          # returns 64 bytes and logs
LOOPER = b"\x32" * 20            # burns all its gas in a JUMPDEST loop
PUSHES = {n: 0x5f + n for n in range(33)}


class StockComputation(NativeComputation):
    """py-evm's own loop (as NativeComputation.apply_computation falls back to it), py-evm's own call frames and its
    walks of a tx's frames."""
    _fast_loop = False
    __init__ = PragueComputation.__init__
    prepare_child_message = PragueComputation.prepare_child_message
    get_gas_refund = BaseComputation.get_gas_refund
    get_accounts_for_deletion = BaseComputation.get_accounts_for_deletion
    get_self_destruct_beneficiaries = BaseComputation.get_self_destruct_beneficiaries
    get_raw_log_entries = BaseComputation.get_raw_log_entries


class StockAccountDB(FastAccountDB):
    get_code = AccountDB.get_code
    touch_account = AccountDB.touch_account
    commit = AccountDB.commit
    state_root = AccountDB.state_root


class StockState(NativeState):
    """py-evm's own snapshots (NativeState's add the native store's, absent here) over py-evm's own journal steps."""
    computation_class = StockComputation
    account_db_class = StockAccountDB
    transaction_executor_class = PragueTransactionExecutor
    snapshot = PragueState.snapshot
    revert = PragueState.revert
    commit = PragueState.commit


def push(value, width=None):
    width = max(1, (value.bit_length() + 7) // 8) if width is None else width
    return bytes([PUSHES[width]]) + value.to_bytes(width, "big")


def call(address, gas=None, in_size=0, out_size=0, op=0xf1):
    """A CALL (or `op`) to `address` with the given sizes at memory 0; value 0 where the op takes one."""
    value = push(0) if op in (0xf1, 0xf2) else b""
    return (push(out_size) + push(0) + push(in_size) + push(0) + value + push(int.from_bytes(address, "big"), 20)
            + (b"\x5a" if gas is None else push(gas)) + bytes([op]))


NESTER = b"\x35" * 20            # counts its calls in storage, logs, calls RETURNER plainly and statically, then
#                                  by its calldata's word: 1 reverts, 2 runs INVALID, 3 calls LOOPER with all its gas
RECURSER = b"\x36" * 20          # calls itself with all its gas, its depth as calldata; stores the call's success there
SELF_DESTRUCTER = b"\x37" * 20   # SELFDESTRUCTs to BENEFICIARY (a contract from before the tx: EIP-6780 moves funds)
BENEFICIARY = b"\x99" * 20
NEW_ACCOUNT = b"\x77" * 20
CONTEXT_READER = b"\x38" * 20    # returns CALLER, ADDRESS, CALLVALUE, CALLDATASIZE and CALLDATALOAD at 0, 4 and 2**255
LOGGER = b"\x39" * 20            # LOG4s 40 bytes of memory and LOG0s none, then reverts if its calldata's word is 1


def word_at(word, at=0):
    return push(word, 32) + push(at) + b"\x52"


def call_with(address, word, op=0xf1, value=0, gas=None):
    """`op` to `address` with `word` as its 32 bytes of calldata (at memory 0) and `value`, 32 bytes back at 0."""
    value_part = push(value) if op in (0xf1, 0xf2) else b""
    return (word_at(word) + push(32) + push(0) + push(32) + push(0) + value_part
            + push(int.from_bytes(address, "big"), 20) + (b"\x5a" if gas is None else push(gas, 32)) + bytes([op]))


def mstore_bytes(data, at=0):
    padded = data + bytes(-len(data) % 32)
    return b"".join(word_at(int.from_bytes(padded[i:i + 32], "big"), at + i) for i in range(0, len(padded), 32))


def _nester():
    def head(revert_at, invalid_at, loop_at):
        return (push(0) + b"\x54" + push(1) + b"\x01" + push(0) + b"\x55" + push(32) + push(0) + b"\xa0"
                + call(RETURNER, out_size=32) + b"\x50" + call(RETURNER, gas=20_000, op=0xfa) + b"\x50"
                + push(0) + b"\x35" + b"\x80" + push(1) + b"\x14" + push(revert_at, 2) + b"\x57"
                + b"\x80" + push(2) + b"\x14" + push(invalid_at, 2) + b"\x57"
                + push(3) + b"\x14" + push(loop_at, 2) + b"\x57" + push(32) + push(0) + b"\xf3")
    revert = b"\x5b" + push(4) + push(0) + b"\xfd"
    invalid = b"\x5b\xfe"
    at = len(head(0, 0, 0))
    return (head(at, at + len(revert), at + len(revert) + len(invalid)) + revert + invalid
            + b"\x5b" + call(LOOPER) + b"\x50" + push(32) + push(0) + b"\xf3")


CALLEES = {
    REVERTER: push(0xdeadbeef) + push(0) + b"\x52" + push(4) + push(28) + b"\xfd",
    RETURNER: push(7) + push(0) + b"\x52" + push(0x1234) + push(32) + push(0) + b"\xa1" + push(64) + push(0) + b"\xf3",
    LOOPER: b"\x5b" + push(0) + b"\x56",
    NESTER: _nester(),
    RECURSER: (push(0) + b"\x35" + push(1) + b"\x01" + push(0) + b"\x52" + push(0) + push(0) + push(32) + push(0)
               + push(0) + b"\x30\x5a\xf1" + push(0) + b"\x35" + b"\x55\x00"),
    SELF_DESTRUCTER: push(int.from_bytes(BENEFICIARY, "big"), 20) + b"\xff",
    CONTEXT_READER: (b"\x33" + push(0) + b"\x52" + b"\x30" + push(32) + b"\x52" + b"\x34" + push(64) + b"\x52"
                     + b"\x36" + push(96) + b"\x52" + push(0) + b"\x35" + push(128) + b"\x52"
                     + push(4) + b"\x35" + push(160) + b"\x52" + push(2**255, 32) + b"\x35" + push(192) + b"\x52"
                     + push(224) + push(0) + b"\xf3"),
}


def _logger():
    head = (word_at(0xabc) + push(0x44) + push(0x33) + push(0x22) + push(0x11) + push(40) + push(0) + b"\xa4"
            + push(0) + push(0) + b"\xa0" + push(0) + b"\x35")
    at = len(head) + 3 + 1 + 5
    return head + push(at, 2) + b"\x57" + push(32) + push(0) + b"\xf3" + b"\x5b" + push(4) + push(0) + b"\xfd"


CALLEES[LOGGER] = _logger()
STOPPER = b"\x3a" * 20           # an empty contract: one STOP
IDENTITY = b"\0" * 19 + b"\x04"
NOBODY = b"\x7b" * 20            # accounts nobody made
NOBODY_ELSE = b"\x7c" * 20
# EIP-7702 delegations (0xef0100 and the address whose code runs): to STOPPER, to the identity precompile (whose
# code, none, runs: a delegation never runs a precompile), to RETURNER
DELEGATES = {b"\x3c" * 20: STOPPER, b"\x3d" * 20: IDENTITY, b"\x3e" * 20: RETURNER}
MIDDLE = b"\x3b" * 20            # calls what stops at once and pure precompiles, with value; reverts if its word is 1


def _middle():
    head = (call_with(STOPPER, 0, value=1) + b"\x50" + call_with(NOBODY, 0, value=1) + b"\x50"
            + call_with(NOBODY_ELSE, 0) + b"\x50" + call_with(IDENTITY, 0x1234, value=1) + b"\x50"
            + call_with(IDENTITY, 0x1234, value=1, gas=10) + b"\x50"          # out of gas in the precompile
            + call_with(b"\0" * 19 + b"\x06", 1, value=1) + b"\x50"        # ecAdd of a point off the curve
            + push(0) + b"\x35")
    at = len(head) + 3 + 1 + 1
    return head + push(at, 2) + b"\x57" + b"\x00" + b"\x5b" + push(0) + push(0) + b"\xfd"


CALLEES.update({STOPPER: b"\x00", MIDDLE: _middle(),
                **{address: b"\xef\x01\x00" + to for address, to in DELEGATES.items()}})
INITCODE = push(0x6001600055) + push(0) + b"\x52" + push(5) + push(27) + b"\xf3"   # returns code setting slot 0


def context():
    return ExecutionContext(coinbase=b"\0" * 20, timestamp=1, block_number=1, difficulty=0, mix_hash=b"\0" * 32,
                            gas_limit=30_000_000, prev_hashes=(), chain_id=9000, base_fee_per_gas=0,
                            excess_blob_gas=0)


def funded_state(state_class):
    """A state with SENDER and TARGET funded and the callees deployed (TARGET's code is the caller's to set)."""
    state = state_class(AtomicDB(), context(), BLANK_ROOT)
    state.set_balance(SENDER, 10**20)
    state.set_balance(TARGET, 10**18)
    for address, callee in CALLEES.items():
        state.set_code(address, callee)
    state.set_balance(SELF_DESTRUCTER, 10**9)
    state.set_code(BENEFICIARY, b"\x00")
    return state


def execute(state_class, code, gas, data=b"", static=False):
    state = funded_state(state_class)
    state.set_code(TARGET, code)
    state.set_storage(TARGET, 1, 5)
    state.lock_changes()
    message = Message(gas=gas, to=TARGET, sender=SENDER, value=0, data=data, code=code, is_static=static)
    computation = state_class.computation_class.apply_message(state, message, BaseTransactionContext(0, SENDER))
    error = (type(computation.error).__name__, str(computation.error)) if computation.is_error else None
    return {"error": error, "gas": computation.get_gas_remaining(), "refund": computation.get_gas_refund(),
            "output": computation.output, "return_data": computation.return_data,
            "logs": computation.get_log_entries(), "root": state.make_state_root()}


def assert_same(code, gas=200_000, **kwargs):
    fast = execute(NativeState, code, gas, **kwargs)
    stock = execute(StockState, code, gas, **kwargs)
    assert fast == stock, code.hex()
    return fast


def test_the_fast_loop_is_what_native_state_runs():
    assert NativeComputation.__dict__.get("_fast_loop", True)
    assert fast_interpreter.uses_stock_inlined(NativeComputation)
    assert not StockComputation._fast_loop


def test_logs_return_and_revert_are_inlined_and_a_class_hooking_logs_keeps_py_evms_loop():
    assert {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xf3, 0xfd} <= set(fast_interpreter.INLINED)

    class HookedLogs(NativeComputation):
        def add_log_entry(self, account, topics, data):
            super().add_log_entry(account, topics, data)

    assert not fast_interpreter.uses_stock_inlined(HookedLogs)


# -- adversarial ---------------------------------------------------------------------------------------------

UNARY = [0x15, 0x19, 0x50, 0x51, 0x56]
BINARY = [0x01, 0x02, 0x03, 0x10, 0x11, 0x14, 0x16, 0x17, 0x18, 0x1b, 0x1c, 0x20, 0x52, 0x53, 0x57]


@pytest.mark.parametrize("op", UNARY + BINARY + list(range(0x80, 0xa0)))
def test_stack_underflow(op):
    for items in range(0, 18):
        result = assert_same(push(1) * items + bytes([op]))
        if items == 0:
            assert result["error"][0] == "InsufficientStack"


@pytest.mark.parametrize("op", [0x5f, 0x60, 0x7f, 0x80, 0x8f, 0x58, 0x59, 0x5a, 0x30])
def test_stack_overflow(op):
    code = b"\x5f" * 1023 + bytes([op]) + b"\x00" * 32
    assert_same(code, gas=10_000)
    result = assert_same(b"\x5f" + code, gas=10_000)
    assert result["error"][0] in ("FullStack", "InsufficientStack")


@pytest.mark.parametrize("code", [
    push(3) + b"\x56" + b"\x5b",                          # a JUMPDEST past the jump: valid
    push(4) + b"\x56" + b"\x00\x5b",
    push(2) + b"\x56\x00",                                 # onto a STOP
    push(1) + b"\x56" + b"\x5b",                           # into its own PUSH data
    push(0x5b) + push(1) + b"\x56",                        # onto a 0x5b that is PUSH data
    push(0x5b5b5b, 3) + push(2) + b"\x56",
    push(100) + b"\x56",                                   # past the code's end
    push(2**256 - 1, 32) + b"\x56",
    push(2**64) + b"\x56",
    push(1) + push(1) + b"\x57",                           # JUMPI into PUSH data
    push(0) + push(1) + b"\x57" + b"\x5b\x00",             # JUMPI not taken to an invalid dest
    push(1) + push(7) + b"\x57" + b"\x00\x00\x5b" + push(42) + b"\x00",
    b"\x60",                                               # a PUSH cut short by the code's end
    b"\x7f\x01\x02",
    push(5) + b"\x7f",
    b"\x5b" * 100 + push(0) + b"\x56",                     # a JUMPDEST sled looping to its start: out of gas
    b"\x5b\x5b\x5b" + push(1) + b"\x56",                   # into the middle of a run of JUMPDESTs
    b"\x58\x5a\x58\x5a\x00",
    b"\xfe",                                               # INVALID
    b"\x0c",                                               # undefined
    b"\x5b" * 40 + b"\xef",
])
def test_jumps_and_code_edges(code):
    for gas in (0, 1, 5, 50, 200_000):
        assert_same(code, gas=gas)


@pytest.mark.parametrize("offset", [0, 1, 31, 32, 33, 64, 1000, 2**16, 2**20, 2**32, 2**64, 2**255, 2**256 - 1,
                                    2**256 - 32])
@pytest.mark.parametrize("op", [0x51, 0x52, 0x53])
def test_memory_expansion_edges(offset, op):
    code = (push(0xabcd) if op != 0x51 else b"") + push(offset, 32) + bytes([op]) + b"\x59" + push(0) + b"\x52" \
        + push(64) + push(0) + b"\xf3"
    for gas in (10, 20, 30, 100, 3_000, 200_000, 5_000_000):
        assert_same(code, gas=gas)


@pytest.mark.parametrize("offset, size", [(0, 0), (2**256 - 1, 0), (0, 1), (0, 32), (31, 2), (5, 33), (64, 1000),
                                          (0, 2**20), (2**64, 1), (1, 2**256 - 1), (2**256 - 1, 1)])
def test_keccak_sizes_and_memory(offset, size):
    code = push(0x1234) + push(8) + b"\x52" + push(size, 32) + push(offset, 32) + b"\x20" + b"\x59" + push(0) \
        + b"\x52" + push(0) + b"\x52" + push(64) + push(0) + b"\xf3"
    for gas in (30, 40, 45, 50, 60, 300, 3_000, 200_000, 5_000_000):
        assert_same(code, gas=gas)


def test_memory_grows_once_and_is_read_back():
    code = (push(0x1122) + push(40) + b"\x52" + push(8) + b"\x51" + push(100) + b"\x52" + push(3) + push(200)
            + b"\x53" + push(132) + b"\x51" + push(0) + b"\x52" + b"\x59" + push(0) + b"\xf3")
    result = assert_same(code)
    assert result["error"] is None and len(result["output"]) == 224



def test_mstore8_msize_and_mload_read_back_with_out_of_gas_at_every_step():
    """MSTORE8 keeps a value's low byte (values wider than a byte, at word edges), MSIZE follows each growth, MLOAD
    reads the bytes back; every gas up to what it needs."""
    stores = [(0x1ff, 0), (2**256 - 1, 31), (0xab, 32), (0x1234, 63), (0, 64), (7, 95), (2**255 + 0x42, 200)]
    code = b"".join(push(value, 32) + push(at) + b"\x53" + b"\x59" for value, at in stores)
    code += (b"".join(push(at) + b"\x51" for at in (0, 1, 32, 180)) + push(0) + b"\x52" + push(64) + b"\x52"
             + push(96) + b"\x52" + push(128) + b"\x52" + b"\x59" + push(0) + b"\xf3")
    result = assert_same(code)
    output = result["output"]
    assert result["error"] is None and len(output) == 224       # MSIZE: the store at 200 grew memory to 7 words
    assert output[20] == 0x42 and output[64] == 0xab and output[95] == 0x34     # MLOAD at 180 and 32, stored
    used = 200_000 - result["gas"]
    for gas in range(0, used + 2):
        assert_same(code, gas=gas)


@pytest.mark.parametrize("width", [1, 2, 32])
def test_a_push_before_mload_or_mstore_runs_with_it_and_fails_as_the_two_ops(width):
    """PUSHn then MLOAD or MSTORE (the loop runs such a pair at once): inside memory, at its edge, growing it, at an
    offset past any gas, with nothing to store, after PUSH0 (not paired), at the code's end; every gas up to what it
    needs, on an empty and a full stack."""
    pairs = b"".join(push(at, width) + bytes([op]) for at, op in (
        (0, 0x51), (0, 0x52), (32, 0x52), (1, 0x51), (33, 0x51), (64, 0x51), (40, 0x52), (96, 0x52), (100, 0x51)))
    code = push(0xabcdef) + b"\x5f\x51\x50" + pairs + b"\x59" + push(0, width) + b"\x52" + push(160) + push(0) + b"\xf3"
    result = assert_same(code)
    assert result["error"] is None and len(result["output"]) == 160
    used = 200_000 - result["gas"]
    for gas in range(0, used + 2):
        assert_same(code, gas=gas)
    for tail in (push(0, width) + b"\x52", push(0, width) + b"\x51", push(2**256 - 1, 32) + b"\x51",
                 push(5) + push(2**256 - 32, 32) + b"\x52", bytes([0x5f + width]) + b"\x51"):
        for items in (0, 1, 1022, 1023, 1024):
            assert_same(b"\x5f\x51\x50" + b"\x5f" * items + tail, gas=100_000)        # memory grown first

def _program():
    """A program that reads and writes memory and storage, calls every kind of callee, creates and logs."""
    return (push(0xff) + push(2**255, 32) + b"\x01" + push(3) + b"\x02" + push(1) + b"\x1b" + push(4) + b"\x1c"
            + b"\x19\x15\x50" + push(0x42) + push(0) + b"\x52" + push(1) + b"\x54" + push(1) + b"\x01" + push(2)
            + b"\x55" + call(REVERTER, out_size=32) + b"\x50\x3d" + push(0) + push(0) + b"\x3e"
            + call(RETURNER, in_size=4) + b"\x50" + push(32) + push(32) + push(0) + b"\x3e"
            + call(b"\0" * 19 + b"\x04", in_size=32, out_size=32) + b"\x50"
            + call(b"\0" * 19 + b"\x02", in_size=10, out_size=32, op=0xfa) + b"\x50"
            + call(b"\0" * 19 + b"\x01", in_size=128, out_size=32) + b"\x50"
            + call(LOOPER, gas=5000) + b"\x50"
            + push(int.from_bytes(INITCODE.ljust(32, b"\0"), "big"), 32)
            + push(64) + b"\x52" + push(len(INITCODE)) + push(64) + push(0) + b"\xf0"
            + push(0) + push(0) + push(0) + push(0) + push(0) + b"\x85\x5a\xf1\x50"
            + push(7) + push(len(INITCODE)) + push(64) + push(0) + b"\xf5\x50"
            + push(9) + push(32) + push(0) + b"\xa1" + b"\x58\x5a\x59" + push(96) + push(0) + b"\xf3")


def test_nested_calls_creates_precompiles_and_returndata():
    result = assert_same(_program(), gas=2_000_000)
    assert result["error"] is None and result["logs"]


def test_out_of_gas_at_every_step():
    code = _program()
    used = 2_000_000 - execute(StockState, code, 2_000_000)["gas"]
    # Every gas from 0 to what the program needs, in steps that hit each op's boundary somewhere.
    for gas in sorted({*range(0, 400), *range(400, used + 2, 97), used - 1, used, used + 1}):
        assert_same(code, gas=gas)


def test_reverts_and_static_calls():
    assert_same(push(0x99) + push(0) + b"\x52" + push(32) + push(0) + b"\xfd")
    assert_same(push(1) + push(1) + b"\x55", static=True)
    assert_same(push(0x99) + push(0) + b"\xa0" + b"\x00", static=True)
    assert_same(push(1) + push(0) + b"\x35" + push(0x20) + b"\x35" + b"\x01" + push(0) + b"\x52" + push(32) + push(0)
                + b"\xf3", data=bytes(range(64)))


_MEMORY_EDGES = [(0, 0), (2**256 - 1, 0), (0, 1), (0, 32), (31, 33), (64, 1000), (0, 2**20), (2**64, 1),
                 (1, 2**256 - 1), (2**256 - 1, 1), (2**255, 2**255)]


@pytest.mark.parametrize("offset, size", _MEMORY_EDGES)
@pytest.mark.parametrize("topics", range(5))
def test_log_topics_memory_and_gas_edges(topics, offset, size):
    code = (push(0x1234) + push(0) + b"\x52" + b"".join(push(0x100 + n) for n in range(topics))
            + push(size, 32) + push(offset, 32) + bytes([0xa0 + topics]) + b"\x59" + push(0) + b"\x52"
            + push(32) + push(0) + b"\xf3")
    for gas in (30, 400, 375 * (topics + 1) + 40, 375 * (topics + 1) + 60, 3_000, 200_000, 5_000_000):
        assert_same(code, gas=gas)
        assert_same(code, gas=gas, static=True)
    if (offset, size) == (0, 32):
        result = assert_same(code)
        assert list(result["logs"]) == [(TARGET, tuple(0x100 + n for n in reversed(range(topics))),
                                   (0x1234).to_bytes(32, "big"))]


@pytest.mark.parametrize("op", [0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xf3, 0xfd])
def test_log_return_and_revert_stack_underflow(op):
    for items in range(0, 7):
        result = assert_same(push(1) * items + bytes([op]))
        if items < 2:
            assert result["error"][0] == "InsufficientStack"


@pytest.mark.parametrize("offset, size", _MEMORY_EDGES)
@pytest.mark.parametrize("op", [0xf3, 0xfd])
def test_return_and_revert_memory_edges(op, offset, size):
    code = push(0x5678) + push(40) + b"\x52" + push(size, 32) + push(offset, 32) + bytes([op])
    for gas in (0, 8, 9, 12, 20, 100, 3_000, 200_000, 5_000_000):
        assert_same(code, gas=gas)


@pytest.mark.parametrize("op", [0xf1, 0xf2, 0xf4, 0xfa])
@pytest.mark.parametrize("word", [0, 1])
def test_logs_in_static_delegated_and_reverted_child_frames(op, word):
    """TARGET calls LOGGER (LOG4 then LOG0, then it returns or reverts) by each call kind, then logs itself: a
    static frame's LOG fails, a reverted frame's logs go, a delegated frame logs as TARGET."""
    code = (call_with(LOGGER, word, op=op, gas=100_000) + push(0) + b"\x55" + push(0x77) + push(32) + push(0)
            + b"\xa1" + b"\x00")
    result = assert_same(code, gas=300_000)
    assert result["error"] is None
    returned = 0xabc if op != 0xfa and word == 0 else word      # what the call left at memory 0
    mine = (TARGET, (0x77,), returned.to_bytes(32, "big"))
    if op == 0xfa or word == 1:
        assert list(result["logs"]) == [mine]
    else:
        emitter = TARGET if op in (0xf2, 0xf4) else LOGGER
        assert list(result["logs"]) == [(emitter, (0x11, 0x22, 0x33, 0x44), (0xabc).to_bytes(32, "big") + bytes(8)),
                                  (emitter, (), b""), mine]
    _sweep(code, top=300_000)


def _log4_program():
    return (mstore_bytes(bytes(range(100))) + b"".join(
        push(0xaa + n) + push(2**256 - 1 - n, 32) + push(0xcc) + push(0xdd) + push(size) + push(offset) + b"\xa4"
        for n, (offset, size) in enumerate([(0, 100), (90, 60), (0, 0), (200, 1), (5, 3)]))
        + push(64) + push(60) + b"\xfd")


@pytest.mark.parametrize("step", [7, pytest.param(1, marks=pytest.mark.slow)])
def test_log4_program_out_of_gas_at_every_step(step):
    """Five LOG4s (memory grown, huge and empty data) then a REVERT, at every `step`-th gas up to what it needs."""
    code = _log4_program()
    used = 200_000 - execute(StockState, code, 200_000)["gas"]
    for gas in sorted({*range(0, used + 2, step), used - 1, used, used + 1}):
        assert_same(code, gas=gas)


# -- random --------------------------------------------------------------------------------------------------

_OPS = ([0x01, 0x02, 0x03, 0x04, 0x06, 0x0a, 0x10, 0x11, 0x12, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b,
         0x1c, 0x1d, 0x20, 0x30, 0x33, 0x34, 0x35, 0x36, 0x3d, 0x3e, 0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56,
         0x57, 0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4]
        + list(range(0x80, 0xa0)) + [0x00, 0xf3, 0xfd, 0xfe])


def random_program(rng):
    out = bytearray()
    size = rng.choice([8, 30, 120, 400])
    while len(out) < size:
        roll = rng.random()
        if roll < 0.3:
            width = rng.choice([1, 1, 1, 2, 32, rng.randrange(1, 33), 0])
            value = rng.choice([0, 1, 2, 31, 32, rng.randrange(size + 4), rng.getrandbits(8 * max(width, 1)),
                                2**256 - 1])
            value &= (1 << 8 * width) - 1
            out += bytes([0x5f + width]) + value.to_bytes(width, "big")
        elif roll < 0.33:
            out += call(rng.choice([REVERTER, RETURNER, LOOPER, b"\0" * 19 + bytes([rng.randrange(1, 11)]),
                                    rng.randbytes(20)]), gas=rng.choice([None, 0, 3000]),
                        in_size=rng.choice([0, 32]), out_size=rng.choice([0, 32, 64]),
                        op=rng.choice([0xf1, 0xf2, 0xf4, 0xfa]))
        elif roll < 0.34:
            out += rng.randbytes(rng.randrange(1, 8))
        else:
            out.append(rng.choice(_OPS))
    return bytes(out)


def _random_runs(seed, count):
    rng = random.Random(seed)
    for _ in range(count):
        code = random_program(rng)
        assert_same(code, gas=rng.choice([0, 30, 300, 3_000, 100_000, 1_000_000]),
                    data=rng.randbytes(rng.choice([0, 4, 68])), static=rng.random() < 0.1)


def test_random_programs():
    _random_runs(36, 300)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(20))
def test_random_corpus(seed):
    _random_runs(1000 + seed, 1000)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10))
def test_random_programs_out_of_gas_at_every_step(seed):
    rng = random.Random(seed)
    for _ in range(5):
        code = random_program(rng)
        used = 100_000 - execute(StockState, code, 100_000)["gas"]
        for gas in range(0, min(used, 3000) + 2):
            assert_same(code, gas=gas)


# -- call frames (issue 36: the CALL path's own costs cut, results held to py-evm's) ------------------------

def _sweep(code, top=2_000_000, points=24, **kwargs):
    """assert_same at the gas the program needs, one either side, and `points` gas values spread below it (a frame
    given all the gas left burns it on a failure, so what a program needs can be most of `top`)."""
    used = top - execute(StockState, code, top, **kwargs)["gas"]
    rng = random.Random(used)
    for gas in sorted({*(rng.randrange(used + 1) for _ in range(points)), used - 1, used, used + 1, top}):
        assert_same(code, gas=gas, **kwargs)


@pytest.mark.parametrize("op", [0xf1, 0xf2, 0xf4, 0xfa])
@pytest.mark.parametrize("word", [0, 1, 2, 3])
def test_nested_call_kinds_with_reverts_and_out_of_gas_at_depth(op, word):
    """TARGET calls NESTER (which writes, logs, calls RETURNER plainly and statically, then returns, reverts, hits
    INVALID or burns a LOOPER's gas at depth 2) by each call kind, then reads the return data."""
    code = (call_with(NESTER, word, op=op, value=3 if op in (0xf1, 0xf2) else 0, gas=150_000) + push(0) + b"\x55"
            + b"\x3d" + push(1) + b"\x55" + push(0) + b"\x51" + push(2) + b"\x55" + push(0) + b"\x54" + b"\x00")
    result = assert_same(code, gas=400_000)
    assert result["error"] is None
    _sweep(code, top=400_000)


def test_create2_whose_constructor_calls_and_is_called():
    runtime = call_with(NESTER, 0) + b"\x50" + push(32) + push(0) + b"\xf3"
    init = (call_with(RETURNER, 0) + b"\x50" + mstore_bytes(runtime) + push(len(runtime)) + push(0) + b"\xf3")
    code = (mstore_bytes(init) + push(0x5a17) + push(len(init)) + push(0) + push(5) + b"\xf5"     # CREATE2, value 5
            + b"\x80" + push(0) + b"\x55"
            + push(32) + push(0) + push(0) + push(0) + push(0) + b"\x85\x5a\xf1" + push(1) + b"\x55"
            + mstore_bytes(init) + push(0x5a17) + push(len(init)) + push(0) + push(0) + b"\xf5"   # the same salt again
            + push(2) + b"\x55" + b"\x00")
    result = assert_same(code, gas=600_000)
    assert result["error"] is None
    _sweep(code, top=600_000)


@pytest.mark.parametrize("address", [*range(1, 0x12), 0x100, 0x400])
def test_precompile_calls(address):
    """Each of Prague's precompiles, P256VERIFY and bech32's, called with data of several sizes by CALL and
    STATICCALL, with value, and with too little gas."""
    target = address.to_bytes(20, "big")
    rng = random.Random(address)
    for size in (0, 1, 32, 64, 128, 192, 213, 256, 384):
        data = rng.randbytes(size)
        code = mstore_bytes(data, 0) if data else b""
        for op, value, gas in ((0xf1, 0, None), (0xfa, 0, None), (0xf1, 1, None), (0xf1, 0, 50), (0xf4, 0, 3000)):
            value_part = push(value) if op == 0xf1 else b""
            program = (code + push(64) + push(size + 32) + push(size) + push(0) + value_part
                       + push(address, 20) + (b"\x5a" if gas is None else push(gas)) + bytes([op])
                       + push(0) + b"\x55" + b"\x3d" + push(1) + b"\x55" + push(size + 32) + b"\x51" + push(2)
                       + b"\x55" + b"\x00")
            assert_same(program, gas=1_000_000)
    assert target


def test_value_transfers_to_new_and_existing_accounts():
    code = (call_with(NEW_ACCOUNT, 0, value=1) + b"\x50"                  # a new account: 25,000 more
            + call_with(b"\x78" * 20, 0, value=0) + b"\x50"              # touched, no value: stays empty
            + call_with(RETURNER, 0, value=7) + b"\x50"
            + call_with(RETURNER, 0, op=0xf2, value=9) + b"\x50"          # CALLCODE: the value stays with TARGET
            + call_with(NEW_ACCOUNT, 0, value=10**30) + push(0) + b"\x55"  # more than TARGET has: fails, gas back
            + push(int.from_bytes(NEW_ACCOUNT, "big"), 20) + b"\x31" + push(1) + b"\x55" + b"\x00")
    result = assert_same(code, gas=500_000)
    assert result["error"] is None
    _sweep(code, top=500_000)



@pytest.mark.parametrize("op", [0xf1, 0xf2, 0xf4, 0xfa])
@pytest.mark.parametrize("word", [0, 1])
def test_frames_that_stop_at_once_or_run_a_pure_precompile_inside_a_frame_that_reverts(op, word):
    """TARGET calls MIDDLE by each kind, which calls an empty contract, an account nobody made (with value and
    without), the identity precompile (succeeding, then out of gas) and ecAdd (failing) with value, then returns or
    reverts: a failed precompile moves no value and touches nothing, and MIDDLE's revert undoes what its calls did."""
    code = (call_with(MIDDLE, word, op=op, value=10 if op in (0xf1, 0xf2) else 0, gas=150_000) + push(0) + b"\x55"
            + b"".join(push(int.from_bytes(address, "big"), 20) + b"\x31" + push(at + 1) + b"\x55"
                       for at, address in enumerate((STOPPER, NOBODY, IDENTITY, MIDDLE, TARGET)))
            + b"\x00")
    result = assert_same(code, gas=400_000)
    assert result["error"] is None
    _sweep(code, top=400_000)


@pytest.mark.parametrize("address", [*range(1, 0x12), 0x100, 0x400])
def test_pure_precompiles_move_value_and_touch_only_when_they_succeed(address):
    """A CALL with value (and without) to each fixed precompile, given too little gas, some, and all, with input that
    fails where the precompile checks it; the precompile's account is new, so a touch shows in the state root."""
    target = address.to_bytes(20, "big")
    word = random.Random(address).getrandbits(256)
    for value in (0, 1):
        for gas in (0, 10, 100, 3450, 6000, None):
            code = (call_with(target, word, value=value, gas=gas) + push(0) + b"\x55"
                    + push(address, 20) + b"\x31" + push(1) + b"\x55" + b"\x3d" + push(2) + b"\x55" + b"\x00")
            assert_same(code, gas=1_000_000)


@pytest.mark.parametrize("op", [0xf1, 0xf2, 0xf4, 0xfa])
def test_calls_into_accounts_with_no_code_an_empty_contract_and_delegations(op):
    """Each kind into STOPPER, into accounts nobody made and into EIP-7702 delegations (to STOPPER, to a precompile,
    to RETURNER), with value where the kind takes it, then the return data read; out of gas across them."""
    value = 2 if op in (0xf1, 0xf2) else 0
    code = b"".join(call_with(address, 5, op=op, value=value, gas=50_000) + b"\x50" + b"\x3d" + push(0) + b"\x51"
                    + b"\x01" + push(n + 1) + b"\x55"
                    for n, address in enumerate((STOPPER, NOBODY, NOBODY_ELSE, *DELEGATES)))
    result = assert_same(code + b"\x00", gas=400_000)
    assert result["error"] is None
    _sweep(code + b"\x00", top=400_000)
    assert_same(code + b"\x00", gas=400_000, static=True)

def test_selfdestruct_eip6780():
    """A contract from before the tx moves its balance only; one created in the tx is deleted."""
    runtime = push(int.from_bytes(BENEFICIARY, "big"), 20) + b"\xff"
    init = mstore_bytes(runtime) + push(len(runtime)) + push(0) + b"\xf3"
    code = (call_with(SELF_DESTRUCTER, 0) + b"\x50"
            + mstore_bytes(init) + push(len(init)) + push(0) + push(11) + b"\xf0" + b"\x80"     # CREATE, value 11
            + push(0) + push(0) + push(0) + push(0) + push(0) + b"\x85\x5a\xf1\x50"              # call it: it goes
            + b"\x3b" + push(1) + b"\x55"                                                       # its EXTCODESIZE
            + push(int.from_bytes(BENEFICIARY, "big"), 20) + b"\x31" + push(0) + b"\x55" + b"\x00")
    result = assert_same(code, gas=300_000)
    assert result["error"] is None
    _sweep(code, top=300_000)
    # In a constructor: created and destroyed at once.
    assert_same(mstore_bytes(runtime) + push(len(runtime)) + push(0) + push(0) + b"\xf0" + b"\x00", gas=200_000)



# -- the tx's end: refunds, deletions and EIP-161's clearing of touched accounts, walked over every frame --------

RIPEMD160 = b"\0" * 19 + b"\x03"
EMPTY = b"\x7d" * 20                # an account that exists and is empty (EIP-161 clears it once touched)
TO_RIPEMD160 = b"\x3f" * 20         # SELFDESTRUCTs to RIPEMD160's address
UNDONE = b"\x40" * 20               # touches RIPEMD160 (a failing call, a self-destruct to it) and EMPTY, then reverts


def _destroyer(beneficiary):
    """Initcode that SELFDESTRUCTs to `beneficiary` (created and destroyed in one tx: EIP-6780 deletes it)."""
    return push(int.from_bytes(beneficiary, "big"), 20) + b"\xff"


def execute_tx(state_class, code, gas, gas_price):
    """TARGET's code run as a tx from SENDER with `gas`; the tx's end as py-evm's executor has it."""
    state = funded_state(state_class)
    for address in (EMPTY, RIPEMD160):
        state.touch_account(address)
    state.set_code(TO_RIPEMD160, _destroyer(RIPEMD160))
    state.set_code(UNDONE, call(RIPEMD160, gas=10) + call(TO_RIPEMD160) + call(EMPTY) + push(0) + push(0) + b"\xfd")
    state.set_code(TARGET, code)
    state.set_storage(TARGET, 1, 5)
    state.lock_changes()
    unsigned = PragueVM.get_transaction_builder().create_unsigned_transaction(
        nonce=0, gas_price=gas_price, gas=gas, to=TARGET, value=0, data=b"")
    computation = state.apply_transaction(SpoofTransaction(unsigned, from_=SENDER))
    error = (type(computation.error).__name__, str(computation.error)) if computation.is_error else None
    return {"error": error, "gas": computation.get_gas_remaining(), "refund": computation.get_gas_refund(),
            "logs": computation.get_log_entries(), "deleted": sorted(computation.get_accounts_for_deletion()),
            "beneficiaries": sorted(computation.get_self_destruct_beneficiaries()), "root": state.make_state_root(),
            "empty_left": [state.account_exists(a) for a in (EMPTY, RIPEMD160, NOBODY, NOBODY_ELSE)]}


def test_block_execution_ends_a_tx_with_its_own_executor():
    assert NativeState.transaction_executor_class is NativeTransactionExecutor


def _many_frames():
    destroyers = b"".join(mstore_bytes(_destroyer(to)) + push(len(_destroyer(to))) + push(0) + push(0) + b"\xf0\x50"
                          for to in (EMPTY, RIPEMD160, NOBODY_ELSE))
    return (call_with(NOBODY, 0) + b"\x50" + call_with(EMPTY, 0, op=0xfa) + b"\x50" + call_with(SELF_DESTRUCTER, 0)
            + b"\x50" + destroyers + push(0) + push(1) + b"\x55" + call(UNDONE) + b"\x50" + call(RETURNER) + b"\x50"
            + call(STOPPER) * 40 + b"\x00")


@pytest.mark.parametrize("gas_price", [0, 7])
@pytest.mark.parametrize("code", [_many_frames(), call(RIPEMD160, gas=10) + b"\x50\x00"], ids=["many", "ripemd160"])
def test_the_end_of_a_tx_of_many_frames_deletes_refunds_and_clears_as_py_evm(code, gas_price):
    """A tx that touches accounts nobody made and an empty one, calls a self-destructer, creates contracts that
    destroy themselves (to an empty account, to RIPEMD160), refunds storage, and calls UNDONE, whose failed call and
    self-destruct to RIPEMD160 touch it under a revert (the quirk EIP-161's clearing keeps), then many CALLs into an
    empty contract; and a tx whose one failed call to RIPEMD160 touches it. The same gas, refund, logs, deletions and
    state root as py-evm's executor, at every gas."""
    fast = execute_tx(NativeState, code, 2_000_000, gas_price)
    assert fast == execute_tx(StockState, code, 2_000_000, gas_price)
    assert fast["error"] is None and fast["empty_left"][1] is False         # RIPEMD160's empty account cleared
    used = 2_000_000 - fast["gas"]
    rng = random.Random(gas_price)
    for gas in sorted({*(rng.randrange(21_000, used + 1) for _ in range(24)), used - 1, used, used + 1}):
        assert execute_tx(NativeState, code, gas, gas_price) == execute_tx(StockState, code, gas, gas_price)

@pytest.mark.parametrize("gas", [10**12, 30_000_000, 1_000_000, 100_000])
def test_call_depth_limit_and_the_63_64_rule(gas):
    """RECURSER calls itself with all its gas: with 10**12 gas the call at depth 1025 fails (the 1024 limit), with
    less the 63/64 rule ends it sooner; each frame stores whether its call succeeded, at its depth."""
    result = assert_same(call_with(RECURSER, 0) + push(0) + b"\x55" + b"\x00", gas=gas)
    assert (result["error"] is None) == (gas > 100_000)       # 100,000: the frames leave too little for the SSTORE


def test_call_gas_requests_above_and_at_what_is_left():
    """A CALL asking for 2**256-1 gets all but a 64th; asking for exactly what is left, or a stipend's worth."""
    code = b"".join(call_with(target, 0, gas=want) + b"\x50"
                    for target in (LOOPER, RETURNER, NEW_ACCOUNT)
                    for want in (2**256 - 1, 2**64, 30_000, 2300, 0)) + b"\x5a" + push(0) + b"\x55\x00"
    _sweep(code, top=400_000, points=8)


class _CountingAccountDB(FastAccountDB):
    """Counts witness lookups (py-evm's bookkeeping for a block witness)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.witness_reads = 0

    def _get_accessed_node_hashes(self):
        self.witness_reads += 1
        return super()._get_accessed_node_hashes()


class _CountingState(NativeState):
    account_db_class = _CountingAccountDB

    def mark_address_warm(self, address):
        if address == self.coinbase:
            self.coinbase_marks += 1
        super().mark_address_warm(address)


def test_a_call_frame_skips_what_changes_nothing():
    """A call into code reads no witness (py-evm's get_code copied every key read so far), and marks the coinbase
    warm once per message, not per frame. (Skipping py-evm's touch of a loaded account was tried and changed state
    roots against py-evm's AccountDB: test_account_trie's blocks; touch stays py-evm's.)"""
    state = _CountingState(AtomicDB(), context(), BLANK_ROOT)
    state.coinbase_marks = 0
    state.set_code(RETURNER, CALLEES[RETURNER])
    code = call(RETURNER) * 20 + b"\x00"
    state.set_code(TARGET, code)
    state.lock_changes()
    accounts = state._account_db
    message = Message(gas=1_000_000, to=TARGET, sender=SENDER, value=0, data=b"", code=code)
    computation = NativeComputation.apply_message(state, message, BaseTransactionContext(0, SENDER))
    assert computation.is_success
    assert accounts.witness_reads == 0 and state.coinbase_marks == 1


# -- the opcodes the loop reads state and message with (SLOAD, CALLDATALOAD, CALLER, ...), in frames of each kind --

def test_sload_cold_and_warm_and_out_of_gas_at_every_step():
    """Slot 1 (5) cold then warm, an unset slot, a slot written first, and the same reads in a child frame."""
    reads = (push(1) + b"\x54" + push(1) + b"\x54" + b"\x01" + push(9) + b"\x54" + b"\x01"
             + push(7) + push(3) + b"\x55" + push(3) + b"\x54" + b"\x01" + push(4) + b"\x55")
    code = reads + call_with(NESTER, 0) + b"\x50" + push(0) + b"\x54" + push(5) + b"\x55\x00"
    assert assert_same(code, gas=300_000)["error"] is None
    used = 300_000 - execute(StockState, code, 300_000)["gas"]
    for gas in (*range(0, 6000, 7), *range(used - 3000, used + 2, 7), used - 1, used):
        assert_same(code, gas=gas)
    assert_same(b"\x54", gas=100)                      # an empty stack
    assert_same(push(1) + b"\x54", gas=2103)           # the cold read's own gas only


@pytest.mark.parametrize("op", [0xf1, 0xf2, 0xf4, 0xfa])
def test_calldata_and_message_reads_in_each_call_kind(op):
    """CONTEXT_READER called by each kind, with value where the kind takes it and 36 bytes of calldata: what it reads
    of its message comes back and is stored; out of gas at every step of it."""
    value = push(3) if op in (0xf1, 0xf2) else b""
    code = (word_at(0xa9059cbb << 224) + word_at(0x1234, 4) + push(224) + push(0) + push(36) + push(0) + value
            + push(int.from_bytes(CONTEXT_READER, "big"), 20) + b"\x5a" + bytes([op]) + push(0) + b"\x55"
            + b"".join(push(at) + b"\x51" + push(at + 1) + b"\x55" for at in range(0, 224, 32)) + b"\x00")
    result = assert_same(code, gas=400_000, data=bytes(range(70)))
    assert result["error"] is None
    _sweep(code, top=400_000, points=48, data=bytes(range(70)))
    # The top frame's own reads: calldata shorter than a word, past its end, at 2**256-1.
    direct = CALLEES[CONTEXT_READER]
    for data in (b"", b"\x01", bytes(range(33)), bytes(range(68))):
        assert_same(direct, gas=100_000, data=data)
    assert_same(push(2**256 - 1, 32) + b"\x35" + push(0) + b"\x55\x00", gas=100_000, data=b"\xff" * 40)
    for read in (b"\x30", b"\x33", b"\x34", b"\x35", b"\x36"):
        assert_same(read, gas=1)                                             # out of gas at the read
        assert_same(push(0) * 1024 + read, gas=100_000)                      # a full stack


@pytest.mark.parametrize("original", [0, 5])
def test_sstore_every_case_of_its_gas_and_refunds(original):
    """Slot 1 holds 5 before the tx (slot 2 holds nothing): each of EIP-2200's cases (no-op, set, reset, clear, dirty
    writes back to the original, to zero and from zero) in sequence, cold and warm; out of gas at every step."""
    slot = 1 if original else 2
    writes = [original, 7, 7, 0, 9, 0, original, 3, original]
    code = b"".join(push(value) + push(slot) + b"\x55" for value in writes) + b"\x00"
    result = assert_same(code, gas=200_000)
    assert result["error"] is None
    used = 200_000 - result["gas"]
    for gas in (*range(0, used + 2, 97), *range(used - 300, used + 2)):
        assert_same(code, gas=gas)
    # In a static frame, with the stack short, at 2300 gas and just above.
    assert_same(push(1) + push(slot) + b"\x55", gas=100_000, static=True)
    assert_same(push(slot) + b"\x55", gas=100_000)
    for gas in (2303, 2304, 2305, 5000):
        assert_same(push(1) + push(slot) + b"\x55", gas=gas)
