"""Raw struct logs: gas, gasCost, depth, errors, storage, every config flag, limit and streaming.

Expected gas figures are hand-computed from the Prague schedule in the comments beside them.
"""

import orjson
import pytest

from chaind.tracing import struct_logger
from chaind.tracing.config import ConfigError
from chaind.tracing.struct_logger import LoggerConfig, StructLogger
from tests.tracing.conftest import Run
from tests.tracing.evm import asm, initcode

A = bytes.fromhex("aa" * 20)
B = bytes.fromhex("bb" * 20)
C = bytes.fromhex("cc" * 20)
W0 = "00" * 32
W1 = "00" * 31 + "01"


def word(n):
    return "%064x" % n


def brief(result):
    return [(e["depth"], e["pc"], e["op"], e["gas"], e["gasCost"], e["error"]) for e in result["structLogs"]]


def test_plain_transfer_has_no_entries():
    result, _ = Run().struct_logs(to=B, value=5)
    assert result == {"structLogs": [], "gas": 21000, "failed": False, "returnValue": ""}


def test_sstore_and_sload_costs():
    result, _ = Run({A: asm("PUSH1 01 PUSH1 00 SSTORE PUSH1 00 SLOAD STOP")}).struct_logs(to=A)
    # 1,000,000 - 21,000 intrinsic; PUSH1 3; SSTORE 0->1 on a cold slot 2,100 + 20,000; warm SLOAD 100;
    # STOP 0. Total 21,000 + 3 + 3 + 22,100 + 3 + 100 = 43,209.
    assert brief(result) == [
        (1, 0, "PUSH1", 979000, 3, None), (1, 2, "PUSH1", 978997, 3, None),
        (1, 4, "SSTORE", 978994, 22100, None), (1, 5, "PUSH1", 956894, 3, None),
        (1, 7, "SLOAD", 956891, 100, None), (1, 8, "STOP", 956791, 0, None)]
    assert result["gas"] == 43209 and result["failed"] is False and result["returnValue"] == ""
    entries = result["structLogs"]
    assert entries[2]["stack"] == [W1, W0]        # bottom first, 64 hex digits, no prefix
    assert entries[2]["storage"] == {W0: W1}
    assert entries[4]["storage"] == {W0: W1}
    assert "storage" not in entries[3]
    assert entries[5]["stack"] == [W1]


def test_nested_call_and_create():
    callee = asm("PUSH1 00 CALLDATALOAD PUSH1 01 SSTORE PUSH1 07 PUSH1 00 MSTORE PUSH1 42 PUSH1 20 PUSH1 00 LOG1 "
                 "PUSH1 20 PUSH1 00 RETURN")
    child = initcode(asm("STOP"))
    caller = asm(f"PUSH1 05 PUSH1 00 MSTORE PUSH1 20 PUSH1 20 PUSH1 20 PUSH1 00 PUSH1 03 PUSH20 {B.hex()} "
                 f"PUSH2 ffff CALL POP PUSH{len(child)} {child.hex()} PUSH1 00 MSTORE "
                 f"PUSH1 {len(child):02x} PUSH1 {32 - len(child):02x} PUSH1 00 CREATE STOP")
    result, _ = Run({A: caller, B: callee}, {A: 100}).struct_logs(to=A, data=bytes.fromhex("12345678"))
    entries = brief(result)
    # Intrinsic 21,000 + 4 non-zero calldata bytes x 16 = 21,064.
    assert entries[0] == (1, 0, "PUSH1", 978936, 3, None)
    # CALL: cold B 2,600 + value 9,000 + memory 32->64 bytes 3 + forwarded 0xffff = 77,138;
    # the callee starts with 0xffff + 2,300 stipend = 67,835.
    assert entries[10] == (1, 39, "CALL", 978903, 77138, None)
    assert entries[11] == (2, 0, "PUSH1", 67835, 3, None)
    # Callee: SSTORE 0->5 cold 22,100; LOG1 375 + 375 + 8 x 32 = 1,006; RETURN at 44,693 left.
    assert entries[14] == (2, 5, "SSTORE", 67826, 22100, None)
    assert entries[21] == (2, 17, "LOG1", 45705, 1006, None)
    assert entries[24] == (2, 22, "RETURN", 44693, 0, None)
    # Back in the caller: 978,903 - 77,138 + 44,693 returned.
    assert entries[25] == (1, 40, "POP", 946458, 2, None)
    # CREATE: 32,000 + one initcode word 2 (no memory growth); excludes the 63/64 given away:
    # the child gets (946,438 - 32,002) - floor(914,436 / 64) = 900,148.
    assert entries[32] == (1, 67, "CREATE", 946438, 32002, None)
    assert entries[33] == (2, 0, "PUSH2", 900148, 3, None)
    # Init code 24 gas + 1-byte code deposit 200 = 224 used; 914,436 - 224 left after CREATE.
    assert entries[-1] == (1, 68, "STOP", 914212, 0, None)
    assert result["gas"] == 1_000_000 - 914212
    assert [e[0] for e in entries].count(2) == 14 + 7


def test_revert_returns_its_data():
    result, _ = Run({A: asm("PUSH1 2a PUSH1 00 MSTORE PUSH1 20 PUSH1 00 REVERT")}).struct_logs(to=A)
    assert result["failed"] is True
    assert result["returnValue"] == word(0x2A)
    assert result["structLogs"][-1]["op"] == "REVERT" and result["structLogs"][-1]["error"] is None
    assert result["gas"] == 21000 + 3 + 3 + 6 + 3 + 3     # MSTORE 3 + memory word 3


def test_invalid_opcode_fails_while_running():
    result, _ = Run({A: asm("PUSH1 01 INVALID")}).struct_logs(to=A)
    # geth logs INVALID (cost 0, no error) then faults; all gas is gone.
    assert brief(result) == [(1, 0, "PUSH1", 979000, 3, None), (1, 2, "INVALID", 978997, 0, None)]
    assert result["failed"] is True and result["gas"] == 1_000_000 and result["returnValue"] == ""


def test_undefined_opcode_name():
    result, _ = Run({A: bytes([0x0C])}).struct_logs(to=A)
    assert result["structLogs"][0]["op"] == "opcode 0xc not defined"


def test_stack_underflow_is_a_pre_execution_error():
    result, _ = Run({A: asm("PUSH1 01 ADD")}).struct_logs(to=A)
    assert brief(result)[-1] == (1, 2, "ADD", 978997, 3, "stack underflow (1 <=> 2)")
    assert result["failed"] is True


def test_stack_overflow():
    code = asm("JUMPDEST PUSH1 01 PUSH1 00 JUMP")     # pushes forever
    result, _ = Run({A: code}).struct_logs(to=A)
    last = result["structLogs"][-1]
    assert (last["op"], last["error"]) == ("PUSH1", "stack limit reached 1024 (1023)")
    assert len(last["stack"]) == 1024


def test_out_of_gas_on_the_charge():
    # 106 gas after intrinsic: two PUSH1 leave 100 <= 2,300, SSTORE's EIP-2200 sentry fails.
    result, _ = Run({A: asm("PUSH1 01 PUSH1 00 SSTORE")}).struct_logs(to=A, gas=21106)
    assert brief(result)[-1] == (1, 4, "SSTORE", 100, 0, "out of gas: not enough gas for reentrancy sentry")
    assert "storage" not in result["structLogs"][-1]        # refused before it ran: geth shows no storage
    # MSTORE of a far word: 3 + memory for 33 words (3*33 + 33^2/512 = 101) = 104 > 103 left.
    result, _ = Run({A: asm("PUSH1 01 PUSH2 0400 MSTORE")}).struct_logs(to=A, gas=21109)
    assert brief(result)[-1] == (1, 5, "MSTORE", 103, 3 + 3 * 33 + 33 * 33 // 512, "out of gas")
    # Static cost alone: JUMPDEST (1) with 0 left.
    result, _ = Run({A: asm("PUSH1 01 JUMPDEST")}).struct_logs(to=A, gas=21003)
    assert brief(result)[-1] == (1, 2, "JUMPDEST", 0, 1, "out of gas")


def test_bad_jump_is_logged_without_error():
    result, _ = Run({A: asm("PUSH1 05 JUMP")}).struct_logs(to=A)
    assert brief(result)[-1] == (1, 2, "JUMP", 978997, 8, None)
    assert result["failed"] is True


def test_refund_counter():
    state_run = Run({A: asm("PUSH1 00 PUSH1 00 SSTORE STOP")})
    original = state_run.state

    def with_slot():
        state = original()
        state.set_storage(A, 0, 1)
        state.persist()
        return state

    state_run.state = with_slot
    result, _ = state_run.struct_logs(to=A)
    entries = result["structLogs"]
    # SSTORE 1->0, cold: 2,100 + 2,900 reset; refund 4,800 (EIP-3529), shown from the next entry on.
    assert entries[2]["gasCost"] == 5000 and "refund" not in entries[2]
    assert entries[3]["refund"] == 4800
    # Receipt gas: 21,000 + 3 + 3 + 5,000 = 26,006 minus the refund, capped at a fifth: 26,006 // 5.
    assert result["gas"] == 26006 - min(4800, 26006 // 5)


def test_storage_accumulates_per_contract_and_delegatecall_uses_caller():
    library = asm("PUSH1 09 PUSH1 02 SSTORE STOP")
    caller = asm(f"PUSH1 03 PUSH1 01 SSTORE PUSH1 00 PUSH1 00 PUSH1 00 PUSH1 00 PUSH20 {C.hex()} GAS DELEGATECALL "
                 "POP PUSH1 01 SLOAD STOP")
    result, _ = Run({A: caller, C: library}).struct_logs(to=A)
    stores = [e for e in result["structLogs"] if e["op"] in ("SLOAD", "SSTORE")]
    assert stores[0]["storage"] == {word(1): word(3)}
    assert stores[1]["depth"] == 2 and stores[1]["storage"] == {word(1): word(3), word(2): word(9)}
    assert stores[2]["storage"] == {word(1): word(3), word(2): word(9)}


def test_disable_stack_and_storage():
    code = asm("PUSH1 01 PUSH1 00 SSTORE STOP")
    result, _ = Run({A: code}).struct_logs({"disableStack": True, "disableStorage": True}, to=A)
    for entry in result["structLogs"]:
        assert "stack" not in entry and "storage" not in entry
    result, _ = Run({A: code}).struct_logs({"DISABLESTACK": True}, to=A)     # Go matches keys in any case
    assert "stack" not in result["structLogs"][0] and result["structLogs"][2]["storage"] == {W0: W1}


def test_enable_memory_and_return_data():
    callee = asm("PUSH1 2a PUSH1 00 MSTORE PUSH1 20 PUSH1 00 RETURN")
    caller = asm(f"PUSH1 20 PUSH1 00 PUSH1 00 PUSH1 00 PUSH20 {B.hex()} GAS STATICCALL STOP")
    result, _ = Run({A: caller, B: callee}).struct_logs({"enableMemory": True, "enableReturnData": True}, to=A)
    entries = result["structLogs"]
    assert entries[0]["memory"] == []
    mstore = [e for e in entries if e["op"] == "MSTORE"][0]
    assert mstore["memory"] == []                         # memory before the op
    assert [e for e in entries if e["op"] == "RETURN"][0]["memory"] == [word(0x2A)]
    assert entries[-1]["op"] == "STOP" and entries[-1]["memory"] == [word(0x2A)]
    assert entries[-1]["returnData"] == "0x" + word(0x2A)
    assert all("returnData" not in e for e in entries[:-1])
    plain, _ = Run({A: caller, B: callee}).struct_logs(to=A)
    assert all("memory" not in e and "returnData" not in e for e in plain["structLogs"])


def test_limit_counts_entries():
    code = asm("PUSH1 01 PUSH1 02 ADD POP STOP")
    result, _ = Run({A: code}).struct_logs({"limit": 2}, to=A)
    assert [e["op"] for e in result["structLogs"]] == ["PUSH1", "PUSH1"]
    assert result["gas"] == 21000 + 3 + 3 + 3 + 2


@pytest.mark.parametrize("config, message", [
    ({"limit": -1}, "output limit cannot be negative, got -1"),
    ({"disableStack": "yes"},
     "json: cannot unmarshal string into Go struct field TraceConfig.disableStack of type bool"),
    ({"limit": 1.5}, "json: cannot unmarshal number 1.5 into Go struct field TraceConfig.limit of type int"),
    ([], "json: cannot unmarshal array into Go value of type native.TraceConfig"),
])
def test_bad_logger_config(config, message):
    with pytest.raises(ConfigError) as raised:
        LoggerConfig.from_trace_config(config)
    assert str(raised.value) == message


def test_unknown_keys_are_ignored():
    assert LoggerConfig.from_trace_config({"disableMemory": True, "tracer": None}) == LoggerConfig()


def _loop(n):
    return asm("PUSH1 00 :loop JUMPDEST DUP1 PUSH1 07 AND DUP1 SLOAD DUP3 ADD DUP1 PUSH1 00 MSTORE "
               "PUSH1 20 PUSH1 00 KECCAK256 ADD SWAP1 SSTORE PUSH1 01 ADD DUP1 PUSH1 " + f"{n:02x}" +
               " GT @loop JUMPI STOP")


def test_streamed_chunks_equal_the_whole_and_stacks_match_a_plain_formatter():
    chunks = []
    logger = StructLogger(LoggerConfig(enable_memory=True), chunks.append, chunk_size=4096)
    Run({A: _loop(40)}).trace(logger, to=A)
    assert logger.result() is None and len(chunks) > 10
    assert all(len(chunk) < 4096 * 2 for chunk in chunks)
    streamed = orjson.loads(b"".join(chunks))
    whole, _ = Run({A: _loop(40)}).struct_logs({"enableMemory": True}, to=A)
    assert streamed == whole

    class Plain(StructLogger):
        """Formats every stack from scratch: the reference for the incremental formatter."""
        stacks = []

        def on_opcode(self, step, db):
            self.stacks.append(["%064x" % (v if isinstance(v, int) else int.from_bytes(v, "big")) for v in step.stack])

    plain = Plain(LoggerConfig())
    Run({A: _loop(40)}).trace(plain, to=A)
    assert [e["stack"] for e in whole["structLogs"]] == plain.stacks
    assert len(plain.stacks) == 1 + 40 * 24 + 1


def test_storage_map_lists_slots_in_order_whatever_the_order_they_are_touched():
    code = asm("PUSH1 05 PUSH1 09 SSTORE PUSH1 06 PUSH1 02 SSTORE PUSH1 02 SLOAD PUSH1 07 PUSH1 09 SSTORE "
               "PUSH1 00 SLOAD STOP")
    result, _ = Run({A: code}).struct_logs(to=A)
    maps = [e["storage"] for e in result["structLogs"] if "storage" in e]
    assert [list(m.items()) for m in maps] == [
        [(word(9), word(5))],
        [(word(2), word(6)), (word(9), word(5))],
        [(word(2), word(6)), (word(9), word(5))],
        [(word(2), word(6)), (word(9), word(7))],
        [(word(0), W0), (word(2), word(6)), (word(9), word(7))]]


def test_stack_words_stay_right_when_the_table_of_formatted_items_fills(monkeypatch):
    monkeypatch.setattr(struct_logger, "KNOWN_WORDS", 3)     # refilled many times over the loop
    logger = StructLogger(LoggerConfig())
    Run({A: _loop(40)}).trace(logger, to=A)
    stacks = [e["stack"] for e in orjson.loads(logger.result())["structLogs"]]

    class Plain(StructLogger):
        stacks = []

        def on_opcode(self, step, db):
            self.stacks.append(["%064x" % (v if isinstance(v, int) else int.from_bytes(v, "big")) for v in step.stack])

    Run({A: _loop(40)}).trace(Plain(LoggerConfig()), to=A)
    assert stacks == Plain.stacks and len(stacks) == 1 + 40 * 24 + 1


def test_memory_is_listed_in_words():
    code = asm("PUSH1 2a PUSH1 00 MSTORE PUSH1 07 PUSH1 5f MSTORE8 STOP")
    result, _ = Run({A: code}).struct_logs({"enableMemory": True}, to=A)
    assert result["structLogs"][-1]["memory"] == [word(0x2A), W0, "00" * 31 + "07"]
