// The JS side of a tracer context, evaluated before the user's tracer: see prelude.py, which loads it.
(function __chaind_prelude(NAMES, OPS, PRECOMPILES, TICK, SANDBOX) {
"use strict";
var G = globalThis;
NAMES = JSON.parse(NAMES);
OPS = JSON.parse(OPS);
PRECOMPILES = JSON.parse(PRECOMPILES);
var py = {};
for (var __i = 0; __i < NAMES.length; __i++) {
    var __n = NAMES[__i];
    py[__n] = G["__chaind_py_" + __n];
    delete G["__chaind_py_" + __n];
}
var pyPeek = py.peek, pyStackLength = py.stackLength, pyMemLength = py.memLength, pyMemSlice = py.memSlice,
    pyMemGetUint = py.memGetUint, pyRefund = py.refund, pyCaller = py.caller, pyAddress = py.address,
    pyValue = py.value, pyInput = py.input, pyBalance = py.balance, pyNonce = py.nonce, pyCode = py.code,
    pyStorage = py.storage, pyExists = py.exists, pyCreateAddress = py.createAddress,
    pyCreate2Address = py.create2Address, pyLastError = py.lastError;

// Captured before user code runs, so a tracer that replaces them cannot blind the deadline check
// or our conversions.
var now = Date.now, U8 = Uint8Array, NBig = BigInt, ErrorCtor = Error, stringify = JSON.stringify,
    parse = JSON.parse, isArray = Array.isArray, isInteger = Number.isInteger, trunc = Math.trunc,
    bind = Function.prototype.bind, apply = Reflect.apply, defineProperty = Object.defineProperty,
    getPrototypeOf = Object.getPrototypeOf, StringCtor = String, NumberCtor = Number, parseIntG = parseInt;

// ---- sandbox (tracers; not the console): no code from strings, no blocking or shared-memory primitives
if (SANDBOX) {
    delete G.eval;
    delete G.Function;
    delete G.Atomics;
    delete G.SharedArrayBuffer;
    delete G.queueMicrotask;
    [function () {}, function* () {}, async function () {}, async function* () {}].forEach(function __chaind_seal(f) {
        defineProperty(getPrototypeOf(f), "constructor", {value: undefined, writable: false, configurable: false});
    });
}

// ---- interrupts (geth's vm.Interrupt: JS cannot catch them away) and the deadline
var interrupted = null, interruptedStack = null, deadline = Infinity, ticks = 0;
var TICK_EVERY = 256;

function __chaind_interrupt(msg) {
    if (interrupted === null) {
        interrupted = msg;
        interruptedStack = new ErrorCtor().stack;
    }
    ticks = 0;
    throw new ErrorCtor(msg);
}

function __chaind_tick() {
    if (--ticks < 0) {
        if (interrupted !== null) throw new ErrorCtor(interrupted);
        if (now() > deadline) __chaind_interrupt("execution timeout");
        ticks = TICK_EVERY;
    }
}
defineProperty(G, TICK, {value: __chaind_tick, writable: false, configurable: false, enumerable: false});

function __chaind_report(x) {
    // The failure of a hook as JSON [message, stack or null], for Python to word as geth does.
    try {
        if (interrupted !== null) return stringify([interrupted, interruptedStack]);
        var m, s = null;
        if (x instanceof ErrorCtor) {
            m = StringCtor(x.name) + ": " + StringCtor(x.message);
            if (typeof x.stack === "string") s = x.stack;
        } else {
            m = StringCtor(x);
        }
        return stringify([m, s]);
    } catch (again) {
        return stringify([interrupted !== null ? interrupted : "exception while reporting an exception", null]);
    }
}

// ---- hex <-> bytes
var HEX = [], NIB = {};
for (var __b = 0; __b < 256; __b++) HEX.push((__b < 16 ? "0" : "") + __b.toString(16));
for (var __c = 0; __c < 16; __c++) {
    NIB[__c.toString(16)] = __c;
    NIB[__c.toString(16).toUpperCase()] = __c;
}

function __chaind_hexToBuf(h) {
    var n = h.length >> 1, b = new U8(n);
    for (var i = 0, j = 0; i < n; i++, j += 2) b[i] = NIB[h[j]] * 16 + NIB[h[j + 1]];
    return b;
}

function __chaind_bufToHex(b) {
    var s = "";
    for (var i = 0; i < b.length; i++) s += HEX[b[i]];
    return s;
}

function __chaind_fromHexString(s) {
    // go-ethereum common.FromHex: optional 0x, odd length gets a leading 0, stops at a bad digit
    if (s.length >= 2 && s[0] === "0" && (s[1] === "x" || s[1] === "X")) s = s.substring(2);
    if (s.length % 2 === 1) s = "0" + s;
    var out = [];
    for (var i = 0; i < s.length; i += 2) {
        var hi = NIB[s[i]], lo = NIB[s[i + 1]];
        if (hi === undefined || lo === undefined) break;
        out.push(hi * 16 + lo);
    }
    return U8.from(out);
}

function __chaind_bufOf(v, allowString) {
    if (typeof v === "string" || v instanceof StringCtor) {
        if (allowString) return __chaind_fromHexString(StringCtor(v));
    } else if (v instanceof U8) {
        return v;
    } else if (isArray(v)) {
        var b = new U8(v.length);
        for (var i = 0; i < v.length; i++) b[i] = v[i];
        return b;
    }
    __chaind_interrupt("invalid buffer type");
}

function __chaind_padTo(b, n) {
    // go-ethereum BytesToAddress / BytesToHash: keep the last n bytes, left-pad with zeros
    var out = new U8(n);
    if (b.length >= n) out.set(b.subarray(b.length - n));
    else out.set(b, n - b.length);
    return out;
}

function __chaind_num(x) {
    var n = +x;
    return n !== n ? 0 : trunc(n);
}

function __chaind_check(r) {
    if (r === null) __chaind_interrupt(pyLastError());
    return r;
}

// ---- bigInt: BigInteger.js's interface over native BigInt (geth hands tracers BigInteger.js values)
function BigInteger(v) {
    this.value = v;
}
var BP = BigInteger.prototype;

function __chaind_parse(s, base) {
    var text = s.trim(), neg = false;
    if (text[0] === "-" || text[0] === "+") {
        neg = text[0] === "-";
        text = text.substring(1);
    }
    var v;
    if (base === 10) {
        var e = text.search(/[eE]/);
        if (e >= 0) {
            var exp = +text.substring(e + 1), digits = text.substring(0, e), dot = digits.indexOf(".");
            if (dot >= 0) {
                exp -= digits.length - dot - 1;
                digits = digits.substring(0, dot) + digits.substring(dot + 1);
            }
            if (!/^[0-9]+$/.test(digits) || !isInteger(exp) || exp < 0) throw new ErrorCtor("Invalid integer: " + s);
            v = NBig(digits) * (NBig(10) ** NBig(exp));
        } else if (/^[0-9]+$/.test(text) || /^0[xX][0-9a-fA-F]+$/.test(text)) {
            v = NBig(text);
        }
    } else if (base === 16 && /^(0[xX])?[0-9a-fA-F]+$/.test(text)) {
        v = NBig(text[1] === "x" || text[1] === "X" ? text : "0x" + text);
    } else if (base >= 2 && base <= 36) {
        var B = NBig(base);
        v = NBig(0);
        for (var i = 0; i < text.length; i++) {
            var d = parseIntG(text[i], base);
            if (d !== d) { v = undefined; break; }
            v = v * B + NBig(d);
        }
        if (text.length === 0) v = undefined;
    }
    if (v === undefined) throw new ErrorCtor("Invalid integer: " + s);
    return neg ? -v : v;
}

function __chaind_native(x) {
    if (x instanceof BigInteger) return x.value;
    var t = typeof x;
    if (t === "bigint") return x;
    if (t === "number") {
        if (!isInteger(x)) throw new ErrorCtor("Invalid integer: " + x);
        return NBig(x);
    }
    if (t === "undefined") return NBig(0);
    return __chaind_parse(StringCtor(x), 10);
}

function __chaind_big(v) {
    return new BigInteger(v);
}

function __chaind_bigHex(h) {
    return new BigInteger(NBig("0x" + h));
}

function __chaind_bigInt(x, base) {
    if (base !== undefined && +base !== 10) return new BigInteger(__chaind_parse(StringCtor(x), +base));
    if (x instanceof BigInteger) return x;
    return new BigInteger(__chaind_native(x));
}
__chaind_bigInt.zero = new BigInteger(NBig(0));
__chaind_bigInt.one = new BigInteger(NBig(1));
__chaind_bigInt.minusOne = new BigInteger(NBig(-1));
__chaind_bigInt.isInstance = function __chaind_isInstance(x) { return x instanceof BigInteger; };
__chaind_bigInt.max = function __chaind_max(a, b) {
    a = __chaind_bigInt(a); b = __chaind_bigInt(b); return a.value >= b.value ? a : b;
};
__chaind_bigInt.min = function __chaind_min(a, b) {
    a = __chaind_bigInt(a); b = __chaind_bigInt(b); return a.value <= b.value ? a : b;
};
function __chaind_gcd(a, b) {
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b !== NBig(0)) { var t = a % b; a = b; b = t; }
    return a;
}
__chaind_bigInt.gcd = function __chaind_gcdBig(a, b) {
    return __chaind_big(__chaind_gcd(__chaind_native(a), __chaind_native(b)));
};
__chaind_bigInt.lcm = function __chaind_lcm(a, b) {
    var x = __chaind_native(a), y = __chaind_native(b), g = __chaind_gcd(x, y);
    var l = g === NBig(0) ? g : x * y / g;
    return __chaind_big(l < 0 ? -l : l);
};

function __chaind_divisor(o) {
    var d = __chaind_native(o);
    if (d === NBig(0)) throw new ErrorCtor("Cannot divide by zero");
    return d;
}

BP.add = BP.plus = function __chaind_add(o) { return __chaind_big(this.value + __chaind_native(o)); };
BP.subtract = BP.minus = function __chaind_sub(o) { return __chaind_big(this.value - __chaind_native(o)); };
BP.multiply = BP.times = function __chaind_mul(o) { return __chaind_big(this.value * __chaind_native(o)); };
BP.divide = BP.over = function __chaind_div(o) { return __chaind_big(this.value / __chaind_divisor(o)); };
BP.mod = BP.remainder = function __chaind_mod(o) { return __chaind_big(this.value % __chaind_divisor(o)); };
BP.divmod = function __chaind_divmod(o) {
    var d = __chaind_divisor(o);
    return {quotient: __chaind_big(this.value / d), remainder: __chaind_big(this.value % d)};
};
BP.pow = function __chaind_pow(o) {
    var e = __chaind_native(o), v = this.value;
    if (e < 0)
        return __chaind_big(v === NBig(1) ? v : v === NBig(-1) ? (e % NBig(2) === NBig(0) ? NBig(1) : v) : NBig(0));
    return __chaind_big(v ** e);
};
BP.modPow = function __chaind_modPow(e, m) {
    var exp = __chaind_native(e), mod = __chaind_divisor(m), base = this.value % mod, r = NBig(1);
    if (exp < 0) throw new ErrorCtor("Cannot raise to a negative power in modPow");
    while (exp > 0) {
        if (exp & NBig(1)) r = r * base % mod;
        base = base * base % mod;
        exp >>= NBig(1);
    }
    return __chaind_big(r);
};
BP.square = function __chaind_square() { return __chaind_big(this.value * this.value); };
BP.abs = function __chaind_abs() { return __chaind_big(this.value < 0 ? -this.value : this.value); };
BP.negate = function __chaind_negate() { return __chaind_big(-this.value); };
BP.next = function __chaind_next() { return __chaind_big(this.value + NBig(1)); };
BP.prev = function __chaind_prev() { return __chaind_big(this.value - NBig(1)); };
BP.and = function __chaind_and(o) { return __chaind_big(this.value & __chaind_native(o)); };
BP.or = function __chaind_or(o) { return __chaind_big(this.value | __chaind_native(o)); };
BP.xor = function __chaind_xor(o) { return __chaind_big(this.value ^ __chaind_native(o)); };
BP.not = function __chaind_not() { return __chaind_big(~this.value); };
BP.shiftLeft = function __chaind_shl(n) { return __chaind_big(this.value << NBig(__chaind_num(n))); };
BP.shiftRight = function __chaind_shr(n) { return __chaind_big(this.value >> NBig(__chaind_num(n))); };
BP.bitLength = function __chaind_bitLength() {
    var v = this.value < 0 ? -this.value - NBig(1) : this.value;
    return __chaind_big(NBig(v === NBig(0) ? 0 : v.toString(2).length));
};
BP.compare = BP.compareTo = function __chaind_compare(o) {
    var w = __chaind_native(o);
    return this.value === w ? 0 : this.value > w ? 1 : -1;
};
BP.compareAbs = function __chaind_compareAbs(o) {
    var a = this.value < 0 ? -this.value : this.value, w = __chaind_native(o);
    if (w < 0) w = -w;
    return a === w ? 0 : a > w ? 1 : -1;
};
BP.equals = BP.eq = function __chaind_eq(o) { return this.value === __chaind_native(o); };
BP.notEquals = BP.neq = function __chaind_neq(o) { return this.value !== __chaind_native(o); };
BP.greater = BP.gt = function __chaind_gt(o) { return this.value > __chaind_native(o); };
BP.greaterOrEquals = BP.geq = function __chaind_geq(o) { return this.value >= __chaind_native(o); };
BP.lesser = BP.lt = function __chaind_lt(o) { return this.value < __chaind_native(o); };
BP.lesserOrEquals = BP.leq = function __chaind_leq(o) { return this.value <= __chaind_native(o); };
BP.isZero = function __chaind_isZero() { return this.value === NBig(0); };
BP.isPositive = function __chaind_isPositive() { return this.value > 0; };
BP.isNegative = function __chaind_isNegative() { return this.value < 0; };
BP.isEven = function __chaind_isEven() { return (this.value & NBig(1)) === NBig(0); };
BP.isOdd = function __chaind_isOdd() { return (this.value & NBig(1)) === NBig(1); };
BP.isUnit = function __chaind_isUnit() { return this.value === NBig(1) || this.value === NBig(-1); };
BP.isDivisibleBy = function __chaind_isDivisibleBy(o) {
    var d = __chaind_native(o);
    return d === NBig(0) ? false : this.value % d === NBig(0);
};
// BigInteger.js converts to a JS number by default (so `"x" + v` is decimal, large values lose
// precision) and serializes to a decimal string.
BP.valueOf = BP.toJSNumber = function __chaind_valueOf() { return NumberCtor(this.value); };
BP.toString = function __chaind_toString(radix) { return this.value.toString(radix === undefined ? 10 : radix); };
BP.toJSON = function __chaind_toJSON() { return this.value.toString(10); };
G.bigInt = __chaind_bigInt;

// ---- the per-step log (one object, refilled per step like geth's)
var pc = 0, op = 0, gas = 0, cost = 0, depth = 0, err = null;

function __chaind_isPush() { return op >= 0x5f && op <= 0x7f; }
function __chaind_opString() { return OPS[op]; }
function __chaind_opNumber() { return op; }

function __chaind_peek(i) {
    var n = __chaind_num(i), h = n >= 0 && n <= 1024 ? pyPeek(n | 0) : null;
    if (h === null) __chaind_interrupt("tracer accessed out of bound stack: size " + pyStackLength() + ", index " + n);
    return __chaind_bigHex(h);
}
function __chaind_stackLength() { return pyStackLength(); }
function __chaind_memSlice(a, b) {
    return __chaind_hexToBuf(__chaind_check(pyMemSlice(__chaind_num(a), __chaind_num(b))));
}
function __chaind_memGetUint(a) { return __chaind_bigHex(__chaind_check(pyMemGetUint(__chaind_num(a)))); }
function __chaind_memLength() { return pyMemLength(); }
function __chaind_getCaller() { return __chaind_hexToBuf(pyCaller()); }
function __chaind_getAddress() { return __chaind_hexToBuf(pyAddress()); }
function __chaind_getValue() { return __chaind_bigHex(pyValue()); }
function __chaind_getInput() { return __chaind_hexToBuf(pyInput()); }
function __chaind_getPC() { return pc; }
function __chaind_getGas() { return gas; }
function __chaind_getCost() { return cost; }
function __chaind_getDepth() { return depth; }
function __chaind_getRefund() { return pyRefund(); }
function __chaind_getError() { return err === null ? undefined : err; }

var log = {
    op: {isPush: __chaind_isPush, toString: __chaind_opString, toNumber: __chaind_opNumber},
    stack: {peek: __chaind_peek, length: __chaind_stackLength},
    memory: {slice: __chaind_memSlice, getUint: __chaind_memGetUint, length: __chaind_memLength},
    contract: {getCaller: __chaind_getCaller, getAddress: __chaind_getAddress, getValue: __chaind_getValue,
               getInput: __chaind_getInput},
    getPC: __chaind_getPC, getGas: __chaind_getGas, getCost: __chaind_getCost, getDepth: __chaind_getDepth,
    getRefund: __chaind_getRefund, getError: __chaind_getError
};

// ---- db: state reads through Python, addresses and slots as geth takes them (buffers, not strings)
function __chaind_addrHex(a) { return __chaind_bufToHex(__chaind_padTo(__chaind_bufOf(a, false), 20)); }
function __chaind_getBalance(a) { return __chaind_bigHex(__chaind_check(pyBalance(__chaind_addrHex(a)))); }
function __chaind_getNonce(a) { return __chaind_check(pyNonce(__chaind_addrHex(a))); }
function __chaind_getCode(a) { return __chaind_hexToBuf(__chaind_check(pyCode(__chaind_addrHex(a)))); }
function __chaind_getState(a, s) {
    var slot = __chaind_bufToHex(__chaind_padTo(__chaind_bufOf(s, false), 32));
    return __chaind_hexToBuf(__chaind_check(pyStorage(__chaind_addrHex(a), slot)));
}
function __chaind_exists(a) { return __chaind_check(pyExists(__chaind_addrHex(a))); }
var db = {getBalance: __chaind_getBalance, getNonce: __chaind_getNonce, getCode: __chaind_getCode,
          getState: __chaind_getState, exists: __chaind_exists};

// ---- helpers (geth's setBuiltinFunctions)
var precompiled = {};
PRECOMPILES.forEach(function __chaind_addPrecompile(h) { precompiled[h] = true; });
G.toHex = function __chaind_toHex(b) { return "0x" + __chaind_bufToHex(__chaind_bufOf(b, false)); };
G.toWord = function __chaind_toWord(b) { return __chaind_padTo(__chaind_bufOf(b, true), 32); };
G.toAddress = function __chaind_toAddress(b) { return __chaind_padTo(__chaind_bufOf(b, true), 20); };
G.toContract = function __chaind_toContract(from, nonce) {
    var f = __chaind_bufToHex(__chaind_padTo(__chaind_bufOf(from, true), 20));
    return __chaind_hexToBuf(__chaind_check(pyCreateAddress(f, __chaind_num(nonce))));
};
G.toContract2 = function __chaind_toContract2(from, salt, code) {
    var f = __chaind_bufToHex(__chaind_padTo(__chaind_bufOf(from, true), 20));
    var s = __chaind_bufToHex(__chaind_padTo(__chaind_fromHexString(StringCtor(salt)), 32));
    var c = __chaind_bufToHex(__chaind_bufOf(code, true));
    return __chaind_hexToBuf(__chaind_check(pyCreate2Address(f, s, c)));
};
G.isPrecompiled = function __chaind_isPrecompiled(a) {
    return precompiled[__chaind_bufToHex(__chaind_padTo(__chaind_bufOf(a, true), 20))] === true;
};
G.slice = function __chaind_slice(b, start, end) {
    var buf = __chaind_bufOf(b, false), s = __chaind_num(start), e = __chaind_num(end);
    if (s < 0 || s > e || e > buf.length)
        __chaind_interrupt("Tracer accessed out of bound memory: available " + buf.length + ", offset " + s
                           + ", size " + (e - s));
    return buf.slice(s, e);
};

// ---- ctx and frames
var ctx = {};
var BUFFERS = {from: 1, to: 1, input: 1, output: 1, coinbase: 1, blockHash: 1, txHash: 1};
var BIGS = {value: 1, gasPrice: 1};
function __chaind_setCtx(json) {
    var fields = parse(json);
    for (var k in fields) {
        var v = fields[k];
        ctx[k] = BUFFERS[k] === 1 ? __chaind_hexToBuf(v) : BIGS[k] === 1 ? __chaind_bigHex(v) : v;
    }
}

var fType, fFrom, fTo, fInput, fGas, fValue, rGasUsed, rOutput, rError;
var frame = {
    getType: function __chaind_frameType() { return fType; },
    getFrom: function __chaind_frameFrom() { return __chaind_hexToBuf(fFrom); },
    getTo: function __chaind_frameTo() { return __chaind_hexToBuf(fTo); },
    getInput: function __chaind_frameInput() { return __chaind_hexToBuf(fInput); },
    getGas: function __chaind_frameGas() { return fGas; },
    getValue: function __chaind_frameValue() { return fValue === null ? undefined : __chaind_bigHex(fValue); }
};
var frameResult = {
    getGasUsed: function __chaind_resultGasUsed() { return rGasUsed; },
    getOutput: function __chaind_resultOutput() { return __chaind_hexToBuf(rOutput); },
    getError: function __chaind_resultError() { return rError === null ? undefined : rError; }
};

// ---- hooks Python calls: each returns undefined on success, else __chaind_report's JSON
var tracer = null, stepFn = null, faultFn = null, enterFn = null, exitFn = null, resultFn = null, setupFn = null;

function __chaind_bound(f, o) { return typeof f === "function" ? apply(bind, f, [o]) : null; }

G.__chaind_h_install = function __chaind_install(o) {
    try {
        if (o === null || (typeof o !== "object" && typeof o !== "function"))
            return "!trace object must expose a function result()";
        var r = o.result, f = o.fault, s = o.step, en = o.enter, ex = o.exit, su = o.setup;
        if (typeof r !== "function") return "!trace object must expose a function result()";
        if (typeof f !== "function") return "!trace object must expose a function fault()";
        if ((typeof en === "function") !== (typeof ex === "function"))
            return "!trace object must expose either both or none of enter() and exit()";
        tracer = o;
        resultFn = __chaind_bound(r, o);
        faultFn = __chaind_bound(f, o);
        stepFn = __chaind_bound(s, o);
        enterFn = __chaind_bound(en, o);
        exitFn = __chaind_bound(ex, o);
        setupFn = __chaind_bound(su, o);
        return (stepFn ? "s" : "") + (enterFn ? "f" : "") + (setupFn ? "u" : "");
    } catch (x) {
        return "?" + __chaind_report(x);
    }
};

G.__chaind_h_setup = function __chaind_setup(cfg) {
    try { __chaind_tick(); setupFn(cfg); } catch (x) { return __chaind_report(x); }
    if (interrupted !== null) return __chaind_report(null);
};

G.__chaind_h_step = function __chaind_step(a, b, c, d, e, f) {
    pc = a; op = b; gas = c; cost = d; depth = e; err = f;
    try { __chaind_tick(); stepFn(log, db); } catch (x) { return __chaind_report(x); }
    if (interrupted !== null) return __chaind_report(null);
};

G.__chaind_h_fault = function __chaind_fault(a, b, c, d, e, f) {
    pc = a; op = b; gas = c; cost = d; depth = e; err = f;
    try { __chaind_tick(); faultFn(log, db); } catch (x) { return __chaind_report(x); }
    if (interrupted !== null) return __chaind_report(null);
};

G.__chaind_h_enter = function __chaind_enter(t, from, to, input, g, v) {
    fType = t; fFrom = from; fTo = to; fInput = input; fGas = g; fValue = v;
    try { __chaind_tick(); enterFn(frame); } catch (x) { return __chaind_report(x); }
    if (interrupted !== null) return __chaind_report(null);
};

G.__chaind_h_exit = function __chaind_exit(g, output, e) {
    rGasUsed = g; rOutput = output; rError = e;
    try { __chaind_tick(); exitFn(frameResult); } catch (x) { return __chaind_report(x); }
    if (interrupted !== null) return __chaind_report(null);
};

var failure = null;
G.__chaind_h_result = function __chaind_result() {
    // The JSON geth would return, or null with the failure left for __chaind_h_failure. (One
    // string, never a concatenation: a long concatenated string cannot cross into Python.)
    var r, s;
    try { __chaind_tick(); r = resultFn(ctx, db); } catch (x) { failure = __chaind_report(x); return null; }
    if (interrupted !== null) { failure = __chaind_report(null); return null; }
    if (r === undefined || r === null) return "{}";      // goja's null/undefined marshal as {}
    if (typeof r === "number" && (r !== r || r === Infinity || r === -Infinity)) {
        failure = stringify(["json: unsupported value: " + (r !== r ? "NaN" : r > 0 ? "+Inf" : "-Inf"), null]);
        return null;
    }
    try { s = stringify(r); } catch (x) { failure = __chaind_report(x); return null; }
    if (interrupted !== null) { failure = __chaind_report(null); return null; }
    return s === undefined ? "null" : s;
};
G.__chaind_h_failure = function __chaind_failure() { return failure; };

G.__chaind_h_setCtx = __chaind_setCtx;
G.__chaind_h_setDeadline = function __chaind_setDeadline(ms) { deadline = ms; ticks = 0; };
})
