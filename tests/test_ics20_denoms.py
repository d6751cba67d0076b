"""ICS-20's denominations and packet data as ibc-go v8.5 reads and writes them, on its own test vectors
(apps/transfer/types/trace_test.go): traces parsed from full paths, `ibc/` hashes, the checks of a sent and a
received denom, the packet data's sorted HTML-safe JSON and the amounts math.Int reads."""

import pytest

from chaind.chain.errors import TxError
from chaind.chain.modules.transfer import denoms
from chaind.chain.modules.transfer import packet_data as pd
from chaind.chain.modules.transfer.keeper import ack_text
from chaind.pb.ibc.core.channel.v1 import channel_pb2


@pytest.mark.parametrize("raw, path, base", [
    ("", "", ""), ("uatom", "", "uatom"), ("uatom/", "", "uatom/"), ("gamm/pool/1", "", "gamm/pool/1"),
    ("gamm//pool//1", "", "gamm//pool//1"), ("transfer/channel-1/uatom", "transfer/channel-1", "uatom"),
    ("customtransfer/channel-1/uatom", "customtransfer/channel-1", "uatom"),
    ("transfer/channel-1/uatom/", "transfer/channel-1", "uatom/"),
    ("transfer/channel-1/erc20/0x85bcBCd7e79Ec36f4fBBDc54F90C643d921151AA", "transfer/channel-1",
     "erc20/0x85bcBCd7e79Ec36f4fBBDc54F90C643d921151AA"),
    ("transfer/channel-1/gamm/pool/1", "transfer/channel-1", "gamm/pool/1"),
    ("transfer/channel-1/transfer/channel-2/uatom", "transfer/channel-1/transfer/channel-2", "uatom"),
    ("transfer/uatom", "", "transfer/uatom"), ("transfer//uatom", "", "transfer//uatom"),
    ("channel-1/transfer/uatom", "", "channel-1/transfer/uatom"), ("uatom/transfer", "", "uatom/transfer"),
    ("transfer/channel-1", "", "transfer/channel-1"), ("transfer/channel-1/", "transfer/channel-1", ""),
    ("transfer/channel-1/transfer", "transfer/channel-1", "transfer"),
    ("transfer/channel-1/transfer/channel-2", "transfer/channel-1/transfer/channel-2", ""),
    ("transfer/channelToA/uatom", "", "transfer/channelToA/uatom"),
])
def test_a_full_path_parses_into_ibc_gos_trace(raw, path, base):
    trace = denoms.parse_trace(raw)
    assert (trace.path, trace.base_denom) == (path, base)


def test_a_traced_denom_is_ibc_and_the_upper_hex_sha256_of_its_path():
    assert denoms.ibc_denom(denoms.parse_trace("transfer/channel-1/uatom")) == \
        "ibc/C4CFF46FD6DE35CA4CF4CE031E643C8FDC9BA4B99AE598E9B0ED98FE3A2319F9"
    assert denoms.ibc_denom(denoms.parse_trace("uatom")) == "uatom"
    assert denoms.escrow_address("transfer", "channel-0") != denoms.escrow_address("transfer", "channel-1")
    assert len(denoms.escrow_address("transfer", "channel-0")) == 20


def _fails(check, value):
    try:
        check(value)
    except TxError:
        return True
    return False


@pytest.mark.parametrize("denom, bad", [
    ("transfer/channel-1/uatom", False), ("transfer/channel-1/gamm/pool/1", False), ("/uatom", False),
    ("//uatom", False), ("uatom", False), ("erc20/0x85bcBCd7e79Ec36f4fBBDc54F90C643d921151AA", False),
    ("gamm/pool/1", False), ("(transfer)/channel-1/uatom", True), ("", True), ("transfer/", True),
])
def test_a_received_denom_is_checked_as_validate_prefixed_denom(denom, bad):
    assert _fails(denoms.validate_prefixed_denom, denom) == bad


@pytest.mark.parametrize("denom, bad", [
    ("ibc/7F1D3FCF4AE79E1554D670D1AD949A9BA4E4A3C76C63093E17E446A46061A7A2", False), ("uatom", False),
    ("uatom/", False), ("gamm/pool/1", False), ("gamm//pool//1", False),
    ("notibc/7F1D3FCF4AE79E1554D670D1AD949A9BA4E4A3C76C63093E17E446A46061A7A2", False), ("", True), ("ibc", True),
    ("ibc/", True), ("ibc/!@#$!@#", True), ("ibc/ABC", True),
])
def test_a_sent_denom_is_checked_as_validate_ibc_denom(denom, bad):
    assert _fails(denoms.validate_ibc_denom, denom) == bad


@pytest.mark.parametrize("path, bad", [
    (("", "uatom"), False), (("transfer/channel-1/transfer/channel-2", "uatom"), False), (("", ""), True),
    (("transfer", "uatom"), True), (("(transfer)/channel-1", "uatom"), True), (("transfer/(channel-1)", "uatom"), True),
    (("transfer/channel-1", ""), True),
])
def test_a_trace_is_checked_as_denom_trace_validate(path, bad):
    trace = denoms.parse_trace("x")
    trace.path, trace.base_denom = path
    assert _fails(denoms.validate_trace, trace) == bad


def test_packet_data_is_sorted_json_without_empty_fields_and_html_safe():
    data = pd.packet_data("transfer/channel-0/uatom", 5, "chain1s", "cosmos1r")
    assert pd.to_bytes(data) == (b'{"amount":"5","denom":"transfer/channel-0/uatom","receiver":"cosmos1r",'
                                 b'"sender":"chain1s"}')
    data.memo = '{"wasm":{"msg":"<a> & \u2028 \u00e9\\n"}}'
    assert pd.to_bytes(data).endswith(
        b'"memo":"{\\"wasm\\":{\\"msg\\":\\"\\u003ca\\u003e \\u0026 \\u2028 \xc3\xa9\\\\n\\"}}","receiver":"cosmos1r",'
        b'"sender":"chain1s"}')
    assert pd.from_bytes(pd.to_bytes(data)) == data
    assert pd.from_bytes(b' {"amount":"5"} trailing').amount == "5"     # a json.Decoder reads the first value only
    for bad in (b"[]", b"{", b'{"amount":5}', b'{"other":"x"}'):
        with pytest.raises(ValueError):
            pd.from_bytes(bad)


@pytest.mark.parametrize("text, value", [
    ("10", 10), ("010", 8), ("0x1f", 31), ("0b11", 3), ("0o17", 15), ("1_000", 1000), ("-3", -3), ("+4", 4),
    (" 5", None), ("5 ", None), ("", None), ("1__0", None), ("_1", None), ("1e5", None), ("0x", None),
    (str(2**256 - 1), 2**256 - 1), (str(2**256), None),
])
def test_amounts_are_read_as_math_int_new_int_from_string(text, value):
    assert pd.go_int(text) == value


def test_an_acknowledgement_is_shown_as_its_compact_text():
    assert ack_text(channel_pb2.Acknowledgement(result=b"\x01")) == 'result:"\\001" '
    assert ack_text(channel_pb2.Acknowledgement(error='ABCI code: 5: "x"\n')) == \
        'error:"ABCI code: 5: \\"x\\"\\n" '
    assert ack_text(channel_pb2.Acknowledgement()) == ""
