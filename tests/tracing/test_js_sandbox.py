"""A JS tracer's limits: no code from strings or host access, a deadline that stops runaway loops
(also next to Python callbacks), and a memory limit; the process stays healthy afterwards."""

import time

import pytest

from chaind.tracing.js import JsTracer, TracerError
from js_driver import make_env, make_step

TAIL = "fault: function() {}, result: function() { return 'done'; }"


def timed(fn):
    started = time.monotonic()
    fn()
    return time.monotonic() - started


def assert_healthy():
    tracer = JsTracer("{n: 0, step: function() { this.n++; }, fault: function() {}, "
                      "result: function() { return this.n; }}")
    tracer.on_opcode(make_step(0x01), None)
    assert tracer.result() == 1


@pytest.mark.parametrize("code", [
    "{step: function(log) { while (true) {} }, " + TAIL + "}",
    "{step: function(log, db) { for (;;) db.exists(log.contract.getAddress()); }, " + TAIL + "}",
    "{spin: function() { do {} while (1); }, step: function() { this.spin(); }, " + TAIL + "}",
    "{step: function() { var f = () => f(); for (var k in {a: 1}) while (1) try { f(); } catch (e) {} }, " + TAIL + "}",
    "{step: function() { [1, 2].forEach(function() { while (true) {} }); }, " + TAIL + "}",
    "{step: function() { try { while (true) {} } catch (e) {} while (true) {} }, " + TAIL + "}",
])
def test_runaway_step_is_stopped(code, db):
    tracer = JsTracer(code, timeout=0.3)
    assert timed(lambda: tracer.on_opcode(make_step(0x54), db)) < 2.0
    with pytest.raises(TracerError, match=r"^execution timeout at \S+ \(<eval>:1:\d+\)    "
                                          r"in server-side tracer function 'step'$"):
        tracer.result()
    assert_healthy()


def test_runaway_result_and_setup_are_stopped():
    tracer = JsTracer("{fault: function() {}, result: function() { for (;;) {} }}", timeout=0.3)
    assert timed(lambda: pytest.raises(TracerError, tracer.result)) < 2.0
    assert tracer.error.startswith("execution timeout at result (<eval>:1:")
    with pytest.raises(TracerError, match="^execution timeout at setup"):
        JsTracer("{setup: function() { while (1) {} }, " + TAIL + "}", timeout=0.3)
    assert_healthy()


def test_the_timeout_covers_the_whole_trace():
    tracer = JsTracer("{step: function() {}, " + TAIL + "}", timeout=0.2)
    tracer.on_opcode(make_step(0x01), None)
    time.sleep(0.25)
    for _ in range(300):
        tracer.on_opcode(make_step(0x01), None)
    assert tracer.error.startswith("execution timeout")


def test_a_tracer_cannot_disarm_the_deadline():
    code = "{step: function() { Date.now = function() { return 0; }; var n = Object.getOwnPropertyNames(globalThis)" \
           ".filter(function(k) { return k.indexOf('tick') >= 0; })[0]; try { globalThis[n] = function() {}; } " \
           "catch (e) {} while (true) {} }, " + TAIL + "}"
    tracer = JsTracer(code, timeout=0.3)
    tracer.on_opcode(make_step(0x01), None)
    assert tracer.error.startswith("execution timeout")


def test_with_statements_are_refused():
    with pytest.raises(TracerError, match="^SyntaxError: 'with' statements are not allowed in tracers"):
        JsTracer("{step: function() { with ({}) { while (true) {} } }, " + TAIL + "}")


def test_memory_bomb_is_stopped():
    code = "{a: [], step: function() { for (;;) this.a.push(new Array(1 << 20).fill(7)); }, " + TAIL + "}"
    tracer = JsTracer(code, memory_limit=32 << 20, timeout=30)
    assert timed(lambda: tracer.on_opcode(make_step(0x01), None)) < 10
    assert tracer.error.startswith("out of memory: JS tracer memory limit is 33554432 bytes")
    assert tracer.error.endswith("in server-side tracer function 'step'")
    with pytest.raises(TracerError):
        tracer.result()
    assert_healthy()


def test_string_bomb_is_stopped():
    tracer = JsTracer("{fault: function() {}, result: function() { return 'x'.repeat(1 << 25); }}",
                      memory_limit=16 << 20)
    with pytest.raises(TracerError, match="^out of memory: JS tracer memory limit"):
        tracer.result()


def test_deep_recursion_is_an_error():
    tracer = JsTracer("{fault: function() {}, result: function() { var f = function(n) { return f(n + 1) + 1; }; "
                      "return f(0); }}")
    with pytest.raises(TracerError, match="(stack overflow|call stack size exceeded)"):
        tracer.result()
    assert_healthy()


@pytest.mark.parametrize("expr,expected", [
    ("typeof eval", "undefined"),
    ("typeof Function", "undefined"),
    ("typeof (function() {}).constructor", "undefined"),
    ("typeof Object.getPrototypeOf(function*() {}).constructor", "undefined"),
    ("typeof Object.getPrototypeOf(async function() {}).constructor", "undefined"),
    ("typeof std + typeof os + typeof require + typeof process + typeof Atomics + typeof SharedArrayBuffer",
     "undefined" * 6),
    ("Object.keys(globalThis).filter(function(k) { return k.indexOf('__chaind_py') == 0 || "
     "k.indexOf('__chaind_h') == 0; }).length", 0),
])
def test_no_code_from_strings_and_no_host_access(expr, expected):
    assert JsTracer("{fault: function() {}, result: function() { return %s; }}" % expr).result() == expected


def test_constructing_functions_from_strings_fails():
    with pytest.raises(TracerError, match="^TypeError"):
        JsTracer("{fault: function() {}, "
                 "result: function() { return (function(){}).constructor('return 1')(); }}").result()


def test_module_loading_is_unavailable():
    # import() only queues a job; jobs never run, so nothing is ever loaded or read
    tracer = JsTracer("{fault: function() {}, result: function() { var p = import('/etc/passwd'); "
                      "return typeof p; }}")
    assert tracer.result() == "object"


def test_ctx_time_is_a_go_duration():
    tracer = JsTracer("{fault: function() {}, result: function(ctx) { return ctx.time; }}")
    tracer.on_tx_start(make_env(), None)
    tracer.on_tx_end(1, b"", None, False)
    assert tracer.result()[-2:] in ("µs", "ms", "ns")
