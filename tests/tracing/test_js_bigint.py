"""bigInt in tracers: BigInteger.js's interface (what geth hands tracers), and stack.peek's values."""

import pytest

from chaind.tracing.js import JsTracer
from js_driver import make_step

BIG = (1 << 256) - 1


def js(expr):
    return JsTracer("{fault: function() {}, result: function() { return %s; }}" % expr).result()


@pytest.mark.parametrize("expr,expected", [
    ("bigInt(5).add(7).toString()", "12"),
    ("bigInt('12345678901234567890').multiply(bigInt(10)).toString()", "123456789012345678900"),
    ("bigInt('ff', 16).toString(10)", "255"),
    ("bigInt('0x10').toString()", "16"),
    ("bigInt('1e3').toString()", "1000"),
    ("bigInt(-7).divide(2).toString()", "-3"),
    ("bigInt(-7).mod(2).toString()", "-1"),
    ("bigInt(2).pow(256).subtract(1).toString(16)", "f" * 64),
    ("bigInt(3).modPow(200, 1000007).toString()", str(pow(3, 200, 1000007))),
    ("[bigInt(3).compare(4), bigInt(4).compare(4), bigInt(5).compare(4)]", [-1, 0, 1]),
    ("[bigInt(3).lt(4), bigInt(3).eq(3), bigInt(3).geq(4), bigInt(0).isZero(), bigInt(-1).isNegative()]",
     [True, True, False, True, True]),
    ("[bigInt(6).and(3).toJSNumber(), bigInt(6).or(3).toJSNumber(), bigInt(6).xor(3).toJSNumber(), "
     "bigInt(1).shiftLeft(10).toJSNumber(), bigInt(1024).shiftRight(3).toJSNumber(), bigInt(0).not().toJSNumber()]",
     [2, 7, 5, 1024, 128, -1]),
    ("bigInt(255).bitLength().toJSNumber()", 8),
    ("bigInt.gcd(12, 18).toString() + ',' + bigInt.lcm(4, 6).toString()", "6,12"),
    ("[bigInt.isInstance(bigInt(1)), bigInt.isInstance(1), bigInt.zero.toString(), "
     "bigInt.one.add(bigInt.minusOne).isZero()]",
     [True, False, "0", True]),
    ("bigInt(10).divmod(3).remainder.toString()", "1"),
    ("bigInt(7) + 1", 8),
    ("'v=' + bigInt(7)", "v=7"),
    ("JSON.stringify({v: bigInt(2).pow(100)})", '{"v":"%d"}' % 2**100),
    ("bigInt(bigInt(9)).toString()", "9"),
])
def test_biginteger_interface(expr, expected):
    assert js(expr) == expected


def test_division_by_zero_is_an_error():
    tracer = JsTracer("{fault: function() {}, result: function() { return bigInt(1).divide(0); }}")
    with pytest.raises(Exception, match="Cannot divide by zero"):
        tracer.result()


def test_stack_values_round_trip_through_hex():
    code = "{r: [], step: function(log) { var v = log.stack.peek(0); this.r.push(v.toString(16), " \
           "v.add(1).toString(16), bigInt(v.toString(16), 16).eq(v)); }, fault: function() {}, " \
           "result: function() { return this.r; }}"
    tracer = JsTracer(code)
    tracer.on_opcode(make_step(0x01, stack=[BIG]), None)
    tracer.on_opcode(make_step(0x01, stack=[0]), None)
    assert tracer.result() == ["f" * 64, "1" + "0" * 64, True, "0", "1", True]
