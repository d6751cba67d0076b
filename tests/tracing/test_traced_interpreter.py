"""The traced execution: hook order, what `db` shows, synthesized frames, refunds, threads, stopping."""

import threading
import time

import orjson
import pytest

from chaind.tracing.struct_logger import LoggerConfig, StructLogger
from chaind.tracing.traced_interpreter import trace_transaction, traced_state_class, tx_env
from chaind.tracing.tracer import TraceAborted, TraceCancelled, Tracer, TraceTimeout
from tests.tracing.conftest import Run
from tests.tracing.evm import SENDER, asm, initcode, make_state, tx

A = bytes.fromhex("aa" * 20)
B = bytes.fromhex("bb" * 20)
D = bytes.fromhex("dd" * 20)


class Recorder(Tracer):
    """Records every hook as a tuple, reading `db` where geth's order matters."""

    def __init__(self, watch=None):
        self.events = []
        self.watch = watch

    def on_tx_start(self, env, db):
        self.events.append(("start", env.kind, env.to, db.balance(env.sender)))

    def on_enter(self, depth, kind, sender, to, input, gas, value, db):
        self.events.append(("enter", depth, kind, sender, to, bytes(input), gas, value))

    def on_opcode(self, step, db):
        seen = self.watch(step, db) if self.watch else None
        self.events.append(("op", step.depth, step.pc, step.op, step.cost, step.error, step.refund, seen))

    def on_log(self, address, topics, data, index):
        self.events.append(("log", address, topics, data, index))

    def on_fault(self, step, db):
        self.events.append(("fault", step.depth, step.pc, step.error))

    def on_exit(self, depth, output, gas_used, error, reverted):
        self.events.append(("exit", depth, bytes(output), gas_used, error, reverted))

    def on_tx_end(self, gas_used, output, error, reverted):
        self.events.append(("end", gas_used, bytes(output), error, reverted))

    def kinds(self):
        return [e[0] for e in self.events]


def test_order_of_hooks_for_a_call_that_reverts():
    callee = asm("PUSH1 01 PUSH1 00 SSTORE PUSH1 00 PUSH1 00 LOG0 PUSH1 00 PUSH1 00 REVERT")
    caller = asm(f"PUSH1 00 PUSH1 00 PUSH1 00 PUSH1 00 PUSH1 00 PUSH20 {B.hex()} PUSH2 ffff CALL STOP")
    recorder = Recorder()
    Run({A: caller, B: callee}).trace(recorder, to=A)
    kinds = recorder.kinds()
    assert kinds[0] == "start" and kinds[-1] == "end"
    call = kinds.index("enter")
    # The parent's CALL entry (with its full cost) precedes the child's frame and steps.
    assert recorder.events[call - 1][3] == 0xF1 and recorder.events[call - 1][4] == 2600 + 65535
    enter = recorder.events[call]
    assert enter == ("enter", 1, "CALL", A, B, b"", 65535, 0)
    child = recorder.events[call + 1:]
    assert [e[0] for e in child] == ["op"] * 6 + ["log"] + ["op"] * 3 + ["fault", "exit", "op", "end"]
    assert child[10] == ("fault", 2, 14, "execution reverted")
    assert child[11][:2] == ("exit", 1) and child[11][4:] == ("execution reverted", True)
    assert recorder.events[-1][3:] == (None, False)


def test_db_shows_the_state_before_the_op():
    callee = asm("PUSH1 07 PUSH1 00 SSTORE STOP")
    caller = asm(f"PUSH1 00 PUSH1 00 PUSH1 00 PUSH1 00 PUSH1 05 PUSH20 {B.hex()} GAS CALL STOP")

    def watch(step, db):
        return db.storage(B, 0), db.balance(B)

    recorder = Recorder(watch)
    Run({A: caller, B: callee}, {A: 10}).trace(recorder, to=A)
    ops = [e for e in recorder.events if e[0] == "op"]
    call = [e for e in ops if e[3] == 0xF1][0]
    assert call[7] == (0, 0)                      # before the value moved
    sstore = [e for e in ops if e[3] == 0x55][0]
    assert sstore[7] == (0, 5)                    # before the slot was written
    assert ops[-2][7] == (7, 5) and ops[-1][7] == (7, 5)
    assert recorder.events[0][3] == 10 ** 24      # on_tx_start: fees not yet bought


def test_refused_call_and_create_still_enter_and_exit():
    caller = asm(f"PUSH1 00 PUSH1 00 PUSH1 00 PUSH1 00 PUSH1 09 PUSH20 {B.hex()} PUSH2 1000 CALL POP "
                 "PUSH1 00 PUSH1 00 PUSH1 09 CREATE STOP")
    recorder = Recorder()
    Run({A: caller}).trace(recorder, to=A)
    frames = [e for e in recorder.events if e[0] in ("enter", "exit")]
    assert frames[0] == ("enter", 1, "CALL", A, B, b"", 0x1000 + 2300, 9)
    assert frames[1] == ("exit", 1, b"", 0, "insufficient balance for transfer", True)
    assert frames[2][:3] == ("enter", 1, "CREATE")
    from eth._utils.address import generate_contract_address
    assert frames[2][4] == generate_contract_address(A, 0) and frames[2][7] == 9
    assert frames[3] == ("exit", 1, b"", 0, "insufficient balance for transfer", True)


@pytest.mark.filterwarnings("ignore:SELFDESTRUCT opcode:DeprecationWarning")
def test_selfdestruct_is_a_frame():
    code = asm(f"PUSH20 {D.hex()} SELFDESTRUCT")
    recorder = Recorder()
    Run({A: code}, {A: 77}).trace(recorder, to=A)
    frames = [e for e in recorder.events if e[0] in ("enter", "exit")]
    assert frames == [("enter", 1, "SELFDESTRUCT", A, D, b"", 0, 77), ("exit", 1, b"", 0, None, False)]
    op = [e for e in recorder.events if e[0] == "op"][-1]
    # 5,000 + 25,000 for funding a new account (D does not exist) + 2,600 cold D.
    assert op[3] == 0xFF and op[4] == 5000 + 25000 + 2600


def test_refunds_of_a_failed_frame_are_dropped():
    # B clears its slot (refund 4,800) then reverts; A clears its own slot (4,800) after.
    callee = asm("PUSH1 00 PUSH1 00 SSTORE PUSH1 00 PUSH1 00 REVERT")
    caller = asm(f"PUSH1 00 PUSH1 00 PUSH1 00 PUSH1 00 PUSH1 00 PUSH20 {B.hex()} GAS CALL POP "
                 "PUSH1 00 PUSH1 00 SSTORE STOP")
    run = Run({A: caller, B: callee})
    make = run.state

    def with_slots():
        state = make()
        state.set_storage(A, 0, 1)
        state.set_storage(B, 0, 1)
        state.persist()
        return state

    run.state = with_slots
    recorder = Recorder()
    run.trace(recorder, to=A)
    ops = [e for e in recorder.events if e[0] == "op"]
    child = [e for e in ops if e[1] == 2]
    assert child[-1][6] == 4800                   # REVERT sees the child's own refund
    after = ops[ops.index(child[-1]) + 1]
    assert after[6] == 0                          # back in A: the reverted refund is gone
    assert ops[-1][6] == 4800                     # A's own clear


def test_logs_of_failed_frames_give_back_their_index():
    logger = asm("PUSH1 00 PUSH1 00 LOG0 PUSH1 00 PUSH1 00 REVERT")
    caller = asm(f"PUSH1 00 PUSH1 00 PUSH1 00 PUSH1 00 PUSH1 00 PUSH20 {B.hex()} GAS CALL POP "
                 "PUSH1 00 PUSH1 00 LOG0 STOP")
    state = make_state(accounts={A: caller, B: logger})
    transaction = tx(state, to=A)
    recorder = Recorder()
    trace_transaction(state, transaction, recorder, tx_env(state, transaction, log_index=4))
    logs = [e for e in recorder.events if e[0] == "log"]
    assert [(e[1], e[4]) for e in logs] == [(B, 4), (A, 4)]


def test_state_is_usable_untraced_before_and_after():
    code = asm("PUSH1 01 PUSH1 00 SSTORE STOP")
    state = make_state(accounts={A: code})
    first = state.apply_transaction(tx(state, to=A))
    assert not first.is_error
    second = tx(state, to=A)
    trace_transaction(state, second, Recorder(), tx_env(state, second))
    assert type(state).__name__ == "PragueState" and not hasattr(state, "_trace_run")
    assert not state.apply_transaction(tx(state, to=A)).is_error
    assert state.get_nonce(SENDER) == 3
    assert traced_state_class(type(state)) is traced_state_class(type(state))


def _loop_contract():
    return asm("PUSH1 00 :loop JUMPDEST DUP1 PUSH1 07 AND DUP1 SLOAD DUP3 ADD DUP1 PUSH1 00 MSTORE "
               "PUSH1 20 PUSH1 00 KECCAK256 ADD SWAP1 SSTORE PUSH1 01 ADD DUP1 PUSH2 0200 GT @loop JUMPI "
               f"PUSH1 00 PUSH1 00 PUSH1 00 PUSH1 00 PUSH1 00 PUSH20 {B.hex()} GAS CALL STOP")


def test_two_traces_in_two_threads_match_one_at_a_time():
    accounts = {A: _loop_contract(), B: asm("PUSH1 00 SLOAD POP STOP")}
    expected, _ = Run(accounts).struct_logs(to=A)
    results = [None, None]
    barrier = threading.Barrier(2)

    def work(i):
        logger = StructLogger(LoggerConfig(), chunk_size=1024)
        barrier.wait()
        Run(accounts).trace(logger, to=A)
        results[i] = orjson.loads(logger.result())

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results[0] == expected and results[1] == expected
    assert len(expected["structLogs"]) > 12_000


def test_deadline_stops_an_endless_loop():
    state = make_state(accounts={A: asm(":top JUMPDEST @top JUMP")})
    transaction = tx(state, to=A, gas=30_000_000)
    started = time.monotonic()
    with pytest.raises(TraceTimeout) as raised:
        trace_transaction(state, transaction, Recorder(), tx_env(state, transaction),
                          deadline=time.monotonic() + 0.2, check_every=100)
    assert str(raised.value) == "execution timeout"
    assert time.monotonic() - started < 2
    assert type(state).__name__ == "PragueState"


def test_cancel_flag_and_a_tracer_that_gives_up():
    cancel = threading.Event()

    class CancelAfter(Tracer):
        count = 0

        def on_opcode(self, step, db):
            self.count += 1
            if self.count == 50:
                cancel.set()

    state = make_state(accounts={A: asm(":top JUMPDEST @top JUMP")})
    transaction = tx(state, to=A, gas=30_000_000)
    tracer = CancelAfter()
    with pytest.raises(TraceCancelled):
        trace_transaction(state, transaction, tracer, tx_env(state, transaction), cancel=cancel, check_every=10)
    assert 50 <= tracer.count <= 60

    class Quit(Tracer):
        def on_opcode(self, step, db):
            raise TraceAborted("client went away")

    state = make_state(accounts={A: asm("PUSH1 01 STOP")})
    transaction = tx(state, to=A)
    with pytest.raises(TraceAborted, match="client went away"):
        trace_transaction(state, transaction, Quit(), tx_env(state, transaction))


def test_create_tx_env_and_initcode_gas():
    runtime = asm("STOP")
    code = initcode(runtime)
    state = make_state()
    transaction = tx(state, data=code)
    env = tx_env(state, transaction)
    from eth._utils.address import generate_contract_address
    assert env.kind == "CREATE" and env.to == generate_contract_address(SENDER, 0)
    # 53,000 + 16 per non-zero byte, 4 per zero byte + one initcode word (2).
    zeros = code.count(0)
    assert env.intrinsic_gas == 53000 + 16 * (len(code) - zeros) + 4 * zeros + 2
    logger = StructLogger(LoggerConfig())
    trace_transaction(state, transaction, logger, env)
    result = orjson.loads(logger.result())
    assert result["structLogs"][0]["gas"] == 1_000_000 - env.intrinsic_gas
    assert state.get_code(env.to) == runtime
