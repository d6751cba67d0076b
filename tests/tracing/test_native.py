"""Native tracers: callTracer, prestateTracer, 4byteTracer, noopTracer and the registry's config rules."""

import pytest
from eth_abi import encode as abi_encode

from chaind.tracing import native
from chaind.tracing.config import ConfigError
from tests.tracing.conftest import Run
from tests.tracing.evm import COINBASE, GAS_PRICE, SENDER, asm, initcode

A = bytes.fromhex("aa" * 20)
B = bytes.fromhex("bb" * 20)
ECRECOVER = bytes(19) + b"\x01"


def hexa(address):
    return "0x" + address.hex()


def _revert_with(message, prefix=b""):
    """`prefix`, then code reverting with Error(message) (copied with CODECOPY from after itself)."""
    data = bytes.fromhex("08c379a0") + abi_encode(["string"], [message])
    offset = len(prefix) + 15   # the copying code below is 15 bytes
    head = prefix + asm(f"PUSH2 {len(data):04x} PUSH2 {offset:04x} PUSH1 00 CODECOPY "
                        f"PUSH2 {len(data):04x} PUSH1 00 REVERT")
    return head + data


def _caller_of(target, logs=True, input_word=True):
    pre = "PUSH1 01 PUSH1 00 PUSH1 00 LOG1 " if logs else ""
    mstore = "PUSH1 05 PUSH1 00 MSTORE " if input_word else ""
    size = "20" if input_word else "00"
    return asm(f"{mstore}{pre}PUSH1 00 PUSH1 00 PUSH1 {size} PUSH1 00 PUSH1 00 PUSH20 {target.hex()} GAS CALL "
               "PUSH1 00 PUSH1 00 LOG0 STOP")


def test_call_tracer_nested_with_revert_reason_and_logs():
    callee = _revert_with("nope", prefix=asm("PUSH1 00 PUSH1 00 LOG0"))
    tracer = native.make("callTracer", {"withLog": True})
    Run({A: _caller_of(B), B: callee}).trace(tracer, to=A, data=b"\xab\xcd\xef\x01\x02")
    top = tracer.result()
    assert list(top) == ["from", "gas", "gasUsed", "to", "input", "calls", "logs", "value", "type"]
    assert top["from"] == hexa(SENDER) and top["to"] == hexa(A) and top["type"] == "CALL"
    assert top["gas"] == hex(1_000_000) and top["value"] == "0x0" and top["input"] == "0xabcdef0102"
    (call,) = top["calls"]
    assert call["type"] == "CALL" and call["from"] == hexa(A) and call["to"] == hexa(B)
    assert call["error"] == "execution reverted" and call["revertReason"] == "nope"
    assert call["output"].startswith("0x08c379a0")
    assert call["input"] == "0x" + "%064x" % 5
    assert "logs" not in call                         # the reverted frame's log is cleared
    # Top logs: LOG1 before the call at position 0, LOG0 after it at position 1; the child's log
    # took index 1 and gave it back when its frame reverted.
    assert [(log["position"], log["index"], log["topics"]) for log in top["logs"]] == [
        ("0x0", "0x0", ["0x" + "%064x" % 1]), ("0x1", "0x1", [])]
    assert call["gas"] == hex(int(call["gas"], 16)) and int(call["gasUsed"], 16) < int(call["gas"], 16)


def test_call_tracer_gas_used_is_the_receipts():
    tracer = native.make("callTracer")
    computation = Run({A: asm("PUSH1 01 PUSH1 00 SSTORE STOP")}).trace(tracer, to=A)
    assert tracer.result()["gasUsed"] == hex(21000 + 3 + 3 + 22100)
    assert "output" not in tracer.result() and not computation.is_error


def test_call_tracer_only_top_call_and_failed_create():
    child = initcode(asm("STOP"))
    bad = asm("INVALID")
    caller = asm(f"PUSH{len(bad)} {bad.hex()} PUSH1 00 MSTORE PUSH1 {len(bad):02x} PUSH1 {32 - len(bad):02x} "
                 f"PUSH1 00 CREATE POP PUSH20 {B.hex()} PUSH1 00 PUSH1 00 PUSH1 00 PUSH1 00 DUP5 GAS STATICCALL STOP")
    tracer = native.make("callTracer", '{"onlyTopCall": true, "withLog": true}')
    Run({A: caller, B: asm("STOP")}).trace(tracer, to=A)
    assert "calls" not in tracer.result()
    tracer = native.make("callTracer")
    Run({A: caller, B: asm("STOP")}).trace(tracer, to=A)
    create, static = tracer.result()["calls"]
    assert create["type"] == "CREATE" and "to" not in create and create["error"] == "invalid opcode: INVALID"
    assert create["gasUsed"] == create["gas"]
    assert static["type"] == "STATICCALL" and "value" not in static and static["to"] == hexa(B)
    assert child                                       # (the helper stays exercised elsewhere)


def test_call_tracer_create_tx():
    tracer = native.make("callTracer")
    run = Run()
    code = initcode(asm("STOP"))
    run.trace(tracer, data=code)
    top = tracer.result()
    assert top["type"] == "CREATE" and top["output"] == "0x00" and top["input"] == "0x" + code.hex()
    from eth._utils.address import generate_contract_address
    assert top["to"] == hexa(generate_contract_address(SENDER, 0))


def test_prestate_default_and_diff_mode():
    code = asm("PUSH1 00 SLOAD PUSH1 01 ADD PUSH1 00 SSTORE STOP")
    run = Run({A: code}, {A: 3})
    tracer = native.make("prestateTracer")
    computation = run.trace(tracer, to=A, value=2)
    pre = tracer.result()
    assert set(pre) == {hexa(SENDER), hexa(A)}        # the empty coinbase is left out
    assert pre[hexa(SENDER)] == {"balance": hex(10 ** 24)}
    assert pre[hexa(A)]["balance"] == "0x3" and pre[hexa(A)]["code"] == "0x" + code.hex()
    assert pre[hexa(A)]["storage"] == {"0x" + "00" * 32: "0x" + "00" * 32}
    assert "nonce" not in pre[hexa(A)]

    tracer = native.make("prestateTracer", {"diffMode": True})
    run.trace(tracer, to=A, value=2)
    diff = tracer.result()
    gas = 1_000_000 - computation.get_gas_remaining()
    fee = gas * GAS_PRICE
    assert diff["pre"][hexa(A)] == {"balance": "0x3", "code": "0x" + code.hex(),
                                    "codeHash": pre[hexa(A)]["codeHash"]}
    assert diff["post"][hexa(A)] == {"balance": "0x5", "storage": {"0x" + "00" * 32: "0x" + "%064x" % 1}}
    assert diff["post"][hexa(SENDER)] == {"balance": hex(10 ** 24 - 2 - fee), "nonce": 1}
    assert diff["post"][hexa(COINBASE)] == {"balance": hex(fee)}
    assert hexa(COINBASE) not in diff["pre"]      # empty before the tx: geth's OnTxEnd drops it from pre


def test_prestate_leaves_out_what_was_empty_and_what_a_refused_op_would_read():
    # A contract made by the tx was empty before it, even once its slots are read: not part of the prestate.
    runtime = asm("PUSH1 07 PUSH1 00 SSTORE STOP")
    tracer = native.make("prestateTracer")
    Run().trace(tracer, data=initcode(runtime))
    assert set(tracer.result()) == {hexa(SENDER)}
    # An SSTORE refused for gas (EIP-2200's sentry) reads no slot: geth's OnOpcode skips a step with an error.
    store = asm("PUSH1 07 PUSH1 00 SSTORE STOP")
    tracer = native.make("prestateTracer")
    Run({A: store}).trace(tracer, to=A, gas=21000 + 3 + 3 + 2300)
    assert "storage" not in tracer.result()[hexa(A)]
    # Since Cancun SELFDESTRUCT of a contract not made in this tx deletes nothing: its post state is diffed.
    doomed = asm(f"PUSH20 {B.hex()} SELFDESTRUCT")
    tracer = native.make("prestateTracer", {"diffMode": True})
    Run({A: doomed}, {A: 5}).trace(tracer, to=A)
    diff = tracer.result()
    assert diff["post"][hexa(A)] == {"balance": "0x0"} and diff["post"][hexa(B)] == {"balance": "0x5"}


def test_prestate_config_rules():
    with pytest.raises(ConfigError, match="cannot use diffMode with includeEmpty"):
        native.make("prestateTracer", {"diffMode": True, "includeEmpty": True})
    tracer = native.make("prestateTracer", {"includeEmpty": True, "disableCode": True, "disableStorage": True})
    Run({A: asm("PUSH1 00 SLOAD STOP")}).trace(tracer, to=A)
    result = tracer.result()
    assert hexa(COINBASE) in result and "code" not in result[hexa(A)] and "storage" not in result[hexa(A)]


def test_four_byte_tracer():
    caller = asm(f"PUSH4 11223344 PUSH1 e0 SHL PUSH1 00 MSTORE "
                 f"PUSH1 00 PUSH1 00 PUSH1 24 PUSH1 00 PUSH1 00 PUSH20 {B.hex()} GAS CALL POP "
                 f"PUSH1 00 PUSH1 00 PUSH1 24 PUSH1 00 PUSH20 {ECRECOVER.hex()} GAS STATICCALL POP "
                 f"PUSH1 00 PUSH1 00 PUSH1 03 PUSH1 00 PUSH20 {B.hex()} GAS DELEGATECALL STOP")
    tracer = native.make("4byteTracer")
    Run({A: caller, B: asm("STOP")}).trace(tracer, to=A, data=bytes.fromhex("a9059cbb") + bytes(64))
    # The top call, and the CALL with 36 bytes; not the precompile, not the 3-byte input.
    assert tracer.result() == {"0xa9059cbb-64": 1, "0x11223344-32": 1}


def test_noop_tracer_and_registry():
    tracer = native.make("noopTracer", "{}")
    Run({A: asm("STOP")}).trace(tracer, to=A)
    assert tracer.result() == {}
    assert native.is_native("callTracer") and not native.is_native("callTracerLegacy")
    with pytest.raises(KeyError):
        native.make("fooTracer")


@pytest.mark.parametrize("config, message", [
    ({"onlyTopCall": "x"},
     "json: cannot unmarshal string into Go struct field callTracerConfig.onlyTopCall of type bool"),
    ('{"withLog": 1}', "json: cannot unmarshal number into Go struct field callTracerConfig.withLog of type bool"),
    ("[1]", "json: cannot unmarshal array into Go value of type native.callTracerConfig"),
    ("{not json", None),
])
def test_bad_tracer_config(config, message):
    with pytest.raises(ConfigError) as raised:
        native.make("callTracer", config)
    if message:
        assert str(raised.value) == message


def test_config_keys_any_case_and_null():
    assert native.make("callTracer", {"ONLYTOPCALL": True}).only_top_call is True
    assert native.make("callTracer", "null").only_top_call is False
    assert native.make("callTracer", {"onlyTopCall": None}).only_top_call is False
