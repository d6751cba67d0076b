"""Tracers geth refuses or that fail while tracing: the error texts, and that later hooks are skipped."""

import pytest

from chaind.tracing.js import JsTracer, TracerError
from js_driver import make_env, make_step

OK_TAIL = "fault: function() {}, result: function() { return 1; }"


@pytest.mark.parametrize("code,message", [
    ("{step: function() {}", "SyntaxError: missing } at <eval>:1:22"),
    ("{step: function( {}, " + OK_TAIL + "}", "SyntaxError: "),
    ("fooTracer", "ReferenceError: fooTracer is not defined at <eval>:1:2"),
    ("{result: 1, fault: function() {}}", "trace object must expose a function result()"),
    ("{step: function() {}, result: function() {}}", "trace object must expose a function fault()"),
    ("{enter: function() {}, " + OK_TAIL + "}", "trace object must expose either both or none of enter() and exit()"),
    ("{exit: function() {}, " + OK_TAIL + "}", "trace object must expose either both or none of enter() and exit()"),
    ("1", "trace object must expose a function result()"),
    ("null", "trace object must expose a function result()"),
    ("BigInt(1)", "trace object must expose a function result()"),
    ("{setup: function(cfg) { throw new Error('bad config ' + cfg); }, " + OK_TAIL + "}",
     "Error: bad config {} at setup (<eval>:1:"),
    ("{let: 1, x: 1 +}", "SyntaxError: "),
])
def test_construction_errors(code, message):
    with pytest.raises(TracerError) as e:
        JsTracer(code)
    assert str(e.value).startswith(message)


def test_syntax_error_quickjs_finds_names_the_users_position():
    # valid to the parser that instruments, an early error only the engine reports
    with pytest.raises(TracerError) as e:
        JsTracer("{step: function() {\n  let a = 1; let a = 2; }, " + OK_TAIL + "}")
    assert str(e.value).startswith("SyntaxError: ")
    assert " at <eval>:2:" in str(e.value)


def test_throwing_step_stops_the_tracer_and_result_reports_it():
    code = "{n: 0, step: function(log) { this.n++; if (log.getPC() == 2) throw new Error('boom at ' + log.getPC()); " \
           "}," \
           " fault: function() { this.n += 100; }, result: function() { return this.n; }}"
    tracer = JsTracer(code)
    tracer.on_tx_start(make_env(), None)
    for pc in range(5):
        tracer.on_opcode(make_step(0x01, pc=pc), None)
    tracer.on_fault(make_step(0x01, pc=4, error="x"), None)
    tracer.on_tx_end(1, b"", None, False)
    assert tracer.error == "Error: boom at 2 at step (<eval>:1:95)    in server-side tracer function 'step'"
    with pytest.raises(TracerError) as e:
        tracer.result()
    assert str(e.value) == tracer.error


@pytest.mark.parametrize("hook,call", [
    ("fault", lambda t: t.on_fault(make_step(0xFD, error="execution reverted"), None)),
    ("enter", lambda t: t.on_enter(2, "CALL", b"\x01" * 20, b"\x02" * 20, b"", 100, 0, None)),
    ("exit", lambda t: t.on_exit(2, b"", 100, None, False)),
])
def test_errors_name_the_hook(hook, call):
    code = "{enter: function() { throw 'thrown'; }, exit: function() { throw 'thrown'; }, " \
           "fault: function() { throw 'thrown'; }, result: function() {}}"
    tracer = JsTracer(code)
    call(tracer)
    assert tracer.error == "thrown    in server-side tracer function '%s'" % hook


def test_result_throwing():
    with pytest.raises(TracerError) as e:
        JsTracer("{fault: function() {}, result: function(ctx) { return ctx.nope.x; }}").result()
    assert str(e.value) == "TypeError: cannot read property 'x' of undefined at result (<eval>:1:56)" \
                           "    in server-side tracer function 'result'"


def test_interrupts_cannot_be_caught_away():
    code = "{r: [], step: function(log) { try { log.stack.peek(5); } catch (e) { this.r.push('caught'); } }, " \
           "fault: function() {}, result: function() { return this.r; }}"
    tracer = JsTracer(code)
    tracer.on_opcode(make_step(0x01, stack=[1]), None)
    with pytest.raises(TracerError, match="^tracer accessed out of bound stack: size 1, index 5 at step"):
        tracer.result()


def test_a_python_side_failure_never_escapes_as_a_python_exception(db, state):
    def broken(address, slot):
        raise RuntimeError("database closed")

    state.get_storage = broken
    tracer = JsTracer("{step: function(log, db) { db.getState(log.contract.getAddress(), toWord('0x01')); }, "
                      + OK_TAIL + "}")
    tracer.on_opcode(make_step(0x54), db)
    assert tracer.error.startswith("state read failed: database closed at step")


def test_a_malformed_step_is_a_tracer_error_not_a_crash():
    tracer = JsTracer("{step: function(log) { log.stack.peek(0); }, " + OK_TAIL + "}")
    step = make_step(0x01, stack=["1"])               # neither an int nor bytes, as the protocol gives
    tracer.on_opcode(step, None)
    assert tracer.error is not None
    with pytest.raises(TracerError):
        tracer.result()
