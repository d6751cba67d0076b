"""JsTracer: every member of geth's log/db/ctx/frame/frameResult and the helpers, driven by synthetic steps."""

import eth_utils
import pytest
import rlp

from chaind.tracing.js import JsTracer, TracerError
from js_driver import CONTRACT, OTHER, SENDER, make_env, make_step

HEX20 = "0x" + "22" * 20


def run(code, steps=(), db=None, env=None, end=(50_000, b"\x01\x02", None, False)):
    tracer = JsTracer(code)
    tracer.on_tx_start(env or make_env(), db)
    for kind, step in steps:
        getattr(tracer, "on_" + kind)(step, db)
    tracer.on_tx_end(*end)
    return tracer.result()


def one_step(body, step, db=None):
    code = "{out: null, step: function(log, db) { this.out = (%s); }, fault: function() {}, " \
           "result: function() { return this.out; }}" % body
    return run(code, [("opcode", step)], db)


def test_log_scalars():
    step = make_step(0x55, pc=17, gas=90_000, cost=20_000, depth=2, refund=4800)
    got = one_step("[log.getPC(), log.getGas(), log.getCost(), log.getDepth(), log.getRefund(), "
                   "typeof log.getError()]", step)
    assert got == [17, 90_000, 20_000, 2, 4800, "undefined"]
    assert one_step("log.getError()", make_step(0x01, error="stack underflow (0 <=> 2)")) == \
        "stack underflow (0 <=> 2)"


@pytest.mark.parametrize("op,name,push", [(0x54, "SLOAD", False), (0x60, "PUSH1", True), (0x7F, "PUSH32", True),
                                          (0x5F, "PUSH0", True), (0x20, "KECCAK256", False),
                                          (0xFE, "INVALID", False), (0x0C, "opcode 0xc not defined", False)])
def test_log_op(op, name, push):
    assert one_step("[log.op.toNumber(), log.op.toString(), log.op.isPush(), '' + log.op]", make_step(op)) == \
        [op, name, push, name]


def test_stack_peek_is_a_big_integer():
    word = (1 << 255) + 0xABC
    step = make_step(0x55, stack=[5, 0x1234, word])
    got = one_step("[log.stack.length(), log.stack.peek(0).toString(16), log.stack.peek(1).toString(), "
                   "log.stack.peek(2) + 1, typeof (log.stack.peek(1) * 1), log.stack.peek(1) > 0x1000, "
                   "JSON.stringify([log.stack.peek(2)])]", step)
    assert got == [3, "%x" % word, str(0x1234), 6, "number", True, '["5"]']
    # Converted to a JS number by default: a 256-bit value loses precision, as with BigInteger.js
    assert one_step("log.stack.peek(0) + ''", step) == str(float(word)).replace("e+", "e+")


@pytest.mark.parametrize("index,size", [(-1, 0), (1, 1), (3, 2)])
def test_stack_out_of_bound(index, size):
    with pytest.raises(TracerError) as e:
        one_step("log.stack.peek(%d)" % index, make_step(0x50, stack=[9] * size))
    assert str(e.value) == ("tracer accessed out of bound stack: size %d, index %d at step (<eval>:1:61)    "
                            "in server-side tracer function 'step'" % (size, index))


def test_memory():
    memory = bytes(range(64))
    step = make_step(0x51, memory=memory)
    got = one_step("[log.memory.length(), toHex(log.memory.slice(2, 5)), log.memory.slice(7, 7).length, "
                   "log.memory.getUint(32).toString(16), toHex(log.memory.slice(62, 66))]", step)
    assert got == [64, "0x020304", 0, memory[32:].hex(), "0x3e3f0000"]


@pytest.mark.parametrize("expr,message", [
    ("log.memory.slice(-1, -2)", "tracer accessed out of bound memory: offset -1, end -2"),
    ("log.memory.slice(5, 2)", "tracer accessed out of bound memory: offset 5, end 2"),
    ("log.memory.getUint(-64)", "tracer accessed out of bound memory: available 32, offset -64, size 32"),
    ("log.memory.getUint(1)", "tracer accessed out of bound memory: available 32, offset 1, size 32"),
    ("log.memory.slice(0, 2000000)", "reached limit for padding memory slice: 1999968"),
])
def test_memory_out_of_bound(expr, message):
    with pytest.raises(TracerError) as e:
        one_step(expr, make_step(0x51, memory=bytes(32)))
    assert str(e.value).startswith(message + " at step (<eval>:1:")
    assert str(e.value).endswith("    in server-side tracer function 'step'")


def test_contract():
    step = make_step(0xF1, caller=SENDER, address=CONTRACT, value=10**18, input=b"\xa9\x05\x9c\xbb")
    got = one_step("[toHex(log.contract.getCaller()), toHex(log.contract.getAddress()), "
                   "log.contract.getValue().toString(16), toHex(log.contract.getInput()), "
                   "log.contract.getAddress() instanceof Uint8Array]", step)
    assert got == ["0x" + SENDER.hex(), HEX20, "%x" % 10**18, "0xa9059cbb", True]


def test_db(db):
    slot = "toWord('0x01')"
    got = one_step("[db.getBalance(toAddress('%s')).toString(), db.getNonce(log.contract.getAddress()), "
                   "toHex(db.getCode(log.contract.getAddress())), toHex(db.getState(log.contract.getAddress(), %s)), "
                   "db.exists(log.contract.getAddress()), db.exists(toAddress('0x33')), "
                   "toHex(db.getState(toAddress('0x33'), %s))]" % (HEX20, slot, slot), make_step(0x54), db)
    assert got == [str(10**21), 4, "0x6000", "0x" + "00" * 30 + "beef", True, False, "0x" + "00" * 32]


def test_db_rejects_hex_strings(db):
    with pytest.raises(TracerError) as e:
        one_step("db.getBalance('%s')" % HEX20, make_step(0x54), db)
    assert str(e.value).startswith("invalid buffer type at step (<eval>:1:")


def test_db_read_failure_is_a_tracer_error(db, state):
    def broken(address):
        raise KeyError("missing trie node")

    state.get_balance = broken
    with pytest.raises(TracerError) as e:
        one_step("db.getBalance(log.contract.getAddress())", make_step(0x31), db)
    assert str(e.value).startswith("state read failed: 'missing trie node' at step (<eval>:1:")


def test_ctx(db):
    code = """{step: function() {}, fault: function() {}, result: function(ctx, db) { return {
        type: ctx.type, from: toHex(ctx.from), to: toHex(ctx.to), input: toHex(ctx.input), gas: ctx.gas,
        gasUsed: ctx.gasUsed, gasPrice: ctx.gasPrice.toString(), value: ctx.value.toString(16), block: ctx.block,
        output: toHex(ctx.output), time: typeof ctx.time, intrinsicGas: ctx.intrinsicGas, error: ctx.error,
        blockHash: toHex(ctx.blockHash), txIndex: ctx.txIndex, txHash: toHex(ctx.txHash),
        coinbase: toHex(ctx.coinbase), balance: db.getBalance(ctx.to)}; }}"""
    got = run(code, db=db)
    assert got == {"type": "CALL", "from": "0x" + SENDER.hex(), "to": HEX20, "input": "0xdead", "gas": 100_000,
                   "gasUsed": 50_000, "gasPrice": "7", "value": "5", "block": 12, "output": "0x0102",
                   "time": "string", "intrinsicGas": 21_064, "blockHash": "0x" + "bb" * 32, "txIndex": 3,
                   "txHash": "0x" + "aa" * 32, "coinbase": "0x" + "cc" * 20, "balance": str(10**21)}


def test_ctx_error_and_traced_call():
    code = "{fault: function() {}, result: function(ctx) { return [ctx.error, ctx.txHash === undefined]; }}"
    assert run(code, env=make_env(tx_hash=b""), end=(30_000, b"", None, True)) == ["execution reverted", True]
    assert run(code, end=(100_000, b"", "out of gas", False)) == ["out of gas", False]


def test_enter_exit():
    code = """{calls: [], fault: function() {}, result: function() { return this.calls; },
        enter: function(f) { this.calls.push([f.getType(), toHex(f.getFrom()), toHex(f.getTo()), toHex(f.getInput()),
                                              f.getGas(),
                                              f.getValue() === undefined ? null : f.getValue().toString()]); },
        exit: function(r) { this.calls.push([r.getGasUsed(), toHex(r.getOutput()), r.getError() || null]); }}"""
    tracer = JsTracer(code)
    tracer.on_tx_start(make_env(), None)
    tracer.on_enter(2, "CALL", CONTRACT, OTHER, b"\x01", 5000, 9, None)
    tracer.on_exit(2, b"\x02", 1200, None, False)
    tracer.on_enter(2, "STATICCALL", CONTRACT, OTHER, b"", 4000, None, None)
    tracer.on_exit(2, b"", 4000, None, True)
    tracer.on_tx_end(60_000, b"", None, False)
    assert tracer.result() == [
        ["CALL", HEX20, "0x" + OTHER.hex(), "0x01", 5000, "9"], [1200, "0x02", None],
        ["STATICCALL", HEX20, "0x" + OTHER.hex(), "0x", 4000, None], [4000, "0x", "execution reverted"]]


def test_fault_sees_the_failing_op_and_one_argument_forms():
    code = "{r: [], step: function(log) { this.r.push(log.op.toString()); }, " \
           "fault: function(log) { this.r.push('FAULT ' + log.getError() + ' at ' + log.getPC()); }, " \
           "result: function() { return this.r; }}"
    steps = [("opcode", make_step(0x60, pc=0)), ("opcode", make_step(0x56, pc=2)),
             ("fault", make_step(0x56, pc=2, error="invalid jump destination"))]
    assert run(code, steps) == ["PUSH1", "JUMP", "FAULT invalid jump destination at 2"]


def test_step_is_optional_and_setup_gets_the_config_as_a_string():
    code = "{cfg: null, setup: function(c) { this.cfg = [typeof c, JSON.parse(c)]; }, fault: function() {}, " \
           "result: function() { return this.cfg; }}"
    tracer = JsTracer(code, '{"onlyTopCall": true}')
    tracer.on_opcode(make_step(0x00), None)
    assert tracer.result() == ["string", {"onlyTopCall": True}]
    assert JsTracer(code).result() == ["string", {}]
    assert JsTracer(code, {"a": 1}).result() == ["string", {"a": 1}]


def test_helpers():
    sender = bytes.fromhex("6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0")
    expected_create = eth_utils.keccak(rlp.encode([sender, 1]))[12:]
    salt = "0x" + "00" * 31 + "2a"
    expected_create2 = eth_utils.keccak(b"\xff" + sender + bytes.fromhex(salt[2:]) + eth_utils.keccak(b"\x60\x00"))[12:]
    code = """{fault: function() {}, result: function() { return [
        toHex(toWord('0xffaa')), toHex(toAddress('0x01')), toHex(toWord([1, 2])), toHex(new Uint8Array([0, 255])),
        toHex(toContract('0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0', 1)),
        toHex(toContract2('0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0', '%s', '0x6000')),
        isPrecompiled(toAddress('0x01')), isPrecompiled('0x0a'), isPrecompiled(toAddress('0x12')),
        toHex(slice(toWord('0x0102'), 30, 32)), slice(toWord('0x01'), 3, 3).length,
        toWord('0xffaa')[31], Object.keys(toAddress('0x01')).length]; }}""" % salt
    assert JsTracer(code).result() == [
        "0x" + "00" * 30 + "ffaa", "0x" + "00" * 19 + "01", "0x" + "00" * 30 + "0102", "0x00ff",
        "0x" + expected_create.hex(), "0x" + expected_create2.hex(), True, True, False, "0x0102", 0, 170, 20]


@pytest.mark.parametrize("expr,message", [
    ("slice(toWord('0x01'), 30, 40)", "Tracer accessed out of bound memory: available 32, offset 30, size 10"),
    ("toHex('0x01')", "invalid buffer type"),
    ("toHex(5)", "invalid buffer type"),
])
def test_helper_errors(expr, message):
    with pytest.raises(TracerError) as e:
        JsTracer("{fault: function() {}, result: function() { return %s; }}" % expr).result()
    assert str(e.value).startswith(message + " at result (<eval>:1:")
    assert str(e.value).endswith("    in server-side tracer function 'result'")


def test_buffers_marshal_as_objects_with_index_keys():
    assert JsTracer("{fault: function() {}, result: function() { return toAddress('0x01'); }}").result() == \
        {str(i): (1 if i == 19 else 0) for i in range(20)}


@pytest.mark.parametrize("value,expected", [("null", {}), ("undefined", {}), ("'text'", "text"), ("[1, 'a']", [1, "a"]),
                                            ("function() {}", None), ("bigInt(10).pow(30)", str(10**30))])
def test_result_values(value, expected):
    assert JsTracer("{fault: function() {}, result: function() { return %s; }}" % value).result() == expected


def test_result_nan_is_an_error():
    with pytest.raises(TracerError, match="^json: unsupported value: NaN"):
        JsTracer("{fault: function() {}, result: function() { return 0 / 0; }}").result()


def test_the_log_object_is_reused_so_values_must_be_copied():
    code = "{logs: [], pcs: [], step: function(log) { this.logs.push(log); this.pcs.push(log.getPC()); }, " \
           "fault: function() {}, result: function() { return [this.logs[0] === this.logs[1], this.pcs]; }}"
    assert run(code, [("opcode", make_step(1, pc=0)), ("opcode", make_step(1, pc=1))]) == [True, [0, 1]]


@pytest.mark.parametrize("body,wants", [("this.r.push(log.op.toNumber())", False), ("log.memory.length()", True),
                                        ("log[this.k]", True), ("this.r[0] = 1", False)])
def test_memory_is_captured_only_for_tracers_that_can_read_it(body, wants):
    assert JsTracer("{r: [], k: 'a', step: function(log) { %s; }, fault: function() {}, "
                    "result: function() {}}" % body).wants_memory is wants


def test_stack_peek_reads_pushed_bytes_and_computed_ints():
    # py-evm keeps PUSHed words as bytes and computed ones as ints; both read the same.
    from chaind.tracing.js.tracer import JsTracer
    from js_driver import make_step

    tracer = JsTracer("{r: [], step: function(log) { this.r.push(log.stack.peek(0).toString(16), "
                      "log.stack.peek(1).toString(16)); }, fault: function() {}, "
                      "result: function() { return this.r; }}")
    tracer.on_opcode(make_step(0x01, stack=[0xABC, b"\x00\x0f"]), None)
    assert tracer.result() == ["f", "abc"]
