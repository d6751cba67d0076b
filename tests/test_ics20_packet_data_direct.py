"""ICS-20 packet data read without protobuf's ParseDict when it is plain strings (packet_data.proto_json's direct
road): the same message, or the same refusal, as ParseDict on every shape of JSON object a sender may write."""

import json

import pytest
from google.protobuf import json_format

from chaind.chain.modules.transfer import keeper
from chaind.chain.modules.transfer import packet_data as pd
from chaind.pb.ibc.applications.transfer.v2 import packet_pb2
from chaind.pb.ibc.core.channel.v1 import channel_pb2

CASES = [
    b'{"amount":"1","denom":"aevmos","receiver":"cosmos1r","sender":"evmos1s"}',
    b'{"amount":"1","denom":"a","memo":"","receiver":"r","sender":"s"} and what follows',
    b'{"denom":"a","denom":"b"}',                   # the last of a repeated key
    b'{"denom":"\\ud800"}',                         # an unpaired surrogate: refused
    b'{"denom":"\xff"}',                            # invalid UTF-8: U+FFFD
    b'{"denom":1}', b'{"denom":null}', b'{"denom":["a"]}', b'{"foo":"x"}', b"{}", b"[]", b'"text"',
]


def _parse_dict(raw, message):
    """What proto_json answered before its direct road: ParseDict of the first JSON value."""
    text = raw.decode("utf-8", "replace")
    value, _ = json.JSONDecoder().raw_decode(text)
    if not isinstance(value, dict):
        return ("refused", f"cannot unmarshal {type(value).__name__} into a {message.DESCRIPTOR.name}")
    try:
        return json_format.ParseDict(value, message)
    except json_format.ParseError as error:
        return ("refused", str(error))


def _proto_json(raw, message):
    try:
        return pd.proto_json(raw, message)
    except ValueError as error:
        return ("refused", str(error))


@pytest.mark.parametrize("raw", CASES)
def test_packet_data_reads_as_parse_dict_reads_it(raw):
    assert _proto_json(raw, packet_pb2.FungibleTokenPacketData()) == \
        _parse_dict(raw, packet_pb2.FungibleTokenPacketData())


@pytest.mark.parametrize("raw", [b'{"result":"AQ=="}', b'{"error":"ABCI code: 1"}', b'{"result":"AQ==","error":"x"}',
                                 b'{"error":"x","error":"y"}'])
def test_an_acknowledgement_reads_as_parse_dict_reads_it(raw):
    """The acknowledgement's fields are a oneof (and bytes): ParseDict's always."""
    assert _proto_json(raw, channel_pb2.Acknowledgement()) == _parse_dict(raw, channel_pb2.Acknowledgement())


def test_the_success_acknowledgement_reads_as_parse_dict_reads_it():
    """ICS-20's success acknowledgement, which the transfer keeper reads without ParseDict."""
    raw = b'{"result":"AQ=="}'
    found = keeper._acknowledgement(raw)
    assert found == _parse_dict(raw, channel_pb2.Acknowledgement())
    assert found.WhichOneof("response") == "result" and found.result == b"\x01"
