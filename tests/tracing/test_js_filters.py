"""The filter scripts written for the node's console (geth/Evmos tracing docs), verbatim, on SLOAD/SSTORE steps."""

from chaind.tracing.js import JsTracer
from chaind.tracing.js.examples import ALL_OPS, STORAGE_OPS, STORAGE_VALUES
from js_driver import make_env, make_step

SLOT = 0x290DECD9548B62A8D60345A988386FC84BA6BC95484008F6362F93160EF3E563
VALUE = (1 << 255) | 0xBEEF

# PUSH1 0; SLOAD; PUSH32 v; PUSH1 0; SSTORE; a REVERT that faults
STEPS = [
    ("opcode", make_step(0x60, pc=0, stack=[])),
    ("opcode", make_step(0x54, pc=2, stack=[SLOT])),
    ("opcode", make_step(0x7F, pc=3, stack=[0])),
    ("opcode", make_step(0x60, pc=36, stack=[0, VALUE])),
    ("opcode", make_step(0x55, pc=38, stack=[0, VALUE, SLOT])),
    ("opcode", make_step(0xFD, pc=39, stack=[0, 0])),
    ("fault", make_step(0xFD, pc=39, stack=[0, 0], error="execution reverted")),
]

FAULT = 'FAULT: {"op":{},"stack":{},"memory":{},"contract":{}}'


def trace(code):
    tracer = JsTracer(code)
    tracer.on_tx_start(make_env(), None)
    for kind, step in STEPS:
        getattr(tracer, "on_" + kind)(step, None)
    tracer.on_tx_end(30_000, b"", None, True)
    return tracer.result()


def test_every_op():
    assert trace(ALL_OPS) == ["0:PUSH1", "2:SLOAD", "3:PUSH32", "36:PUSH1", "38:SSTORE", "39:REVERT", FAULT]


def test_storage_ops():
    assert trace(STORAGE_OPS) == ["2: SLOAD", "38: SSTORE", FAULT]


def test_storage_ops_with_stack_values():
    assert trace(STORAGE_VALUES) == ["2: SLOAD %x" % SLOT, "38: SSTORE %x <- %x" % (SLOT, VALUE), FAULT]
