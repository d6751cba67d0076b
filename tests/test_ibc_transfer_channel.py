"""ICS-20's `transfer` port between two chaind chains without a node: the App binds it, a relayer opens a channel
between the two ports with version ics20-1 (or none, which becomes ics20-1), and ibc-go's channel checks refuse
an ORDERED channel, another version, and a user's close, with ibc-go's codespace, code and text."""

import pytest

import ibc_chains as ic
from chaind.chain.errors import TxError
from chaind.pb.ibc.core.channel.v1 import channel_pb2 as pb
from gov_driver import attrs
from ibc_channel_msgs import B_CLIENT, connected_pair, ok
from ibc_transfer_msgs import (
    PORT,
    VERSION,
    close_init,
    open_init,
    open_transfer_channel,
    open_try,
    path,
)


@pytest.fixture
def pair(tmp_path):
    made = connected_pair(tmp_path)
    yield made
    made.close()


def channel(chain, channel_id, port=PORT):
    return chain.app.keepers["ibc_channel"].channel(chain.app.view(), port, channel_id)


def ibc_root(chain):
    return chain.app.store_version().root_of("ibc")


def refused(pair, chain, message, codespace, code, text):
    before = ibc_root(chain)
    r = pair.block(chain, [message])
    assert (r.codespace, r.code, r.log) == (codespace, code, "failed to execute message; message index: 0: " + text)
    assert ibc_root(chain) == before


@pytest.mark.parametrize("version", ["", "ics20-1"])
def test_a_relayer_opens_an_unordered_ics20_1_channel_between_the_transfer_ports(pair, version):
    (ours, theirs), (init, try_, ack, confirm) = open_transfer_channel(pair, version)
    assert (ours, theirs) == ("channel-0", "channel-0")
    assert attrs(init.events, "channel_open_init")[0]["version"] == VERSION
    assert attrs(try_.events, "channel_open_try")[0]["version"] == VERSION
    for chain in (pair.a, pair.b):
        found = channel(chain, "channel-0")
        assert (found.state, found.ordering, found.version) == (pb.STATE_OPEN, pb.ORDER_UNORDERED, VERSION)
        assert (found.counterparty.port_id, found.counterparty.channel_id) == (PORT, "channel-0")


def test_an_ordered_channel_or_another_version_is_refused_at_init(pair):
    a = pair.a
    prefix = "channel open init callback failed for port ID: transfer, channel ID: channel-0: "
    refused(pair, a, open_init(a, pb.ORDER_ORDERED), "channel", 6,
            prefix + "expected ORDER_UNORDERED channel, got ORDER_ORDERED : invalid channel ordering")
    refused(pair, a, open_init(a, version="ics20-2"), "transfer", 4,
            prefix + "expected ics20-1, got ics20-2: invalid ICS20 version")


def test_try_proposes_ics20_1_to_a_counterparty_proposing_another_version_and_refuses_ordered(pair):
    a, b = pair.a, pair.b
    # A's mock port proposes mock-1 to B's transfer port: B answers with ics20-1, which A's mock app accepts.
    ok(pair.block(a, [open_init(a, version="mock-1", port="mock")]))
    _, proof, height = ic.proven(pair, b, B_CLIENT, a, path("channel-0", "mock"))
    r = ok(pair.block(b, [open_try(b, "channel-0", "mock-1", proof, height, their_port="mock")]))
    assert attrs(r.events, "channel_open_try")[0]["version"] == VERSION
    assert channel(b, "channel-0").version == VERSION
    # An ORDERED counterparty end is refused at try.
    ok(pair.block(a, [open_init(a, pb.ORDER_ORDERED, version="mock-1", port="mock")]))
    _, proof, height = ic.proven(pair, b, B_CLIENT, a, path("channel-1", "mock"))
    refused(pair, b, open_try(b, "channel-1", "mock-1", proof, height, pb.ORDER_ORDERED, their_port="mock"),
            "channel", 6, "channel open try callback failed for port ID: transfer, channel ID: channel-1: "
            "expected ORDER_UNORDERED channel, got ORDER_ORDERED : invalid channel ordering")


def test_ack_refuses_a_counterparty_version_other_than_ics20_1_and_close_init_is_refused(pair):
    a = pair.a
    callbacks = a.app.keepers["transfer"].ibc_module
    with pytest.raises(TxError) as refusal:
        callbacks.on_chan_open_ack(None, PORT, "channel-0", "channel-0", "mock-1")
    assert (refusal.value.codespace, refusal.value.code, refusal.value.log) == (
        "transfer", 4, "invalid counterparty version: expected ics20-1, got mock-1: invalid ICS20 version")
    open_transfer_channel(pair)
    refused(pair, a, close_init(a, "channel-0"), "ibc", 8, "channel close init callback failed for port ID: "
            "transfer, channel ID: channel-0: user cannot close channel: invalid request")
    assert channel(a, "channel-0").state == pb.STATE_OPEN
