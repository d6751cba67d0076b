"""IBC 04-channel's handshake between two chaind chains without a node, on a connection opened with proofs: a test
port bound on each chain by a tiny application, the four-step open and the two-step close driven as a relayer
drives them, each step's proof read from the other chain's ibc store; ibc-go's events, ICS-24 paths, queries and
genesis; an unbound port, bad input and wrong proofs fail with ibc-go's codespace, code and text and change
nothing."""

import pytest

import ibc_chains as ic
import ibc_client_msgs as m
from chain_driver import LatestQueryContext
from chaind import errors
from chaind.chain.errors import TxError
from chaind.chain.genesis import Genesis, GenesisError
from chaind.chain.modules.ibc_channel.query import ChannelQuery
from chaind.pb.cosmos.base.abci.v1beta1 import abci_pb2
from chaind.pb.ibc.core.channel.v1 import channel_pb2 as pb
from chaind.pb.ibc.core.channel.v1 import query_pb2
from chaind.pb.ibc.core.channel.v1 import tx_pb2 as chan_tx
from gov_driver import attrs
from ibc_channel_msgs import (
    B_CLIENT,
    PORT,
    MockApp,
    close_confirm,
    close_init,
    connected_pair,
    end,
    ok,
    open_ack,
    open_channel,
    open_confirm,
    open_init,
    open_try,
    path,
)


@pytest.fixture
def pair(tmp_path):
    """A and B with clients of each other and an open connection-0 on each; the mock port bound on both."""
    made = connected_pair(tmp_path)
    yield made
    made.close()


def keeper(chain):
    return chain.app.keepers["ibc_channel"]


def ibc_root(chain):
    return chain.app.store_version().root_of("ibc")


def refused(pair, chain, message, codespace, code, text):
    before = ibc_root(chain)
    r = pair.block(chain, [message])
    assert (r.codespace, r.code) == (codespace, code) and text in r.log, (r.codespace, r.code, r.log)
    assert ibc_root(chain) == before


def test_two_chains_open_a_channel_between_bound_ports_with_proofs_of_each_others_ends(pair):
    a, b = pair.a, pair.b
    init, try_, ack, confirm = open_channel(pair, pb.ORDER_ORDERED)
    assert attrs(init.events, "channel_open_init") == [
        {"port_id": PORT, "channel_id": "channel-0", "counterparty_port_id": PORT, "connection_id": "connection-0",
         "version": "mock-1"}]
    assert {"module": "ibc_channel"} in attrs(init.events, "message")
    response = abci_pb2.TxMsgData.FromString(init.data).msg_responses[0]
    assert chan_tx.MsgChannelOpenInitResponse.FromString(response.value) == chan_tx.MsgChannelOpenInitResponse(
        channel_id="channel-0", version="mock-1")
    assert attrs(try_.events, "channel_open_try") == [
        {"port_id": PORT, "channel_id": "channel-0", "counterparty_port_id": PORT,
         "counterparty_channel_id": "channel-0", "connection_id": "connection-0", "version": "mock-1"}]
    for result, kind in ((ack, "channel_open_ack"), (confirm, "channel_open_confirm")):
        assert attrs(result.events, kind) == [
            {"port_id": PORT, "channel_id": "channel-0", "counterparty_port_id": PORT,
             "counterparty_channel_id": "channel-0", "connection_id": "connection-0"}]
    assert pair.apps[a].calls == [("init", "channel-0"), ("ack", "channel-0")]
    assert pair.apps[b].calls == [("try", "channel-0"), ("confirm", "channel-0")]

    # The ends mirror each other at ibc-go's paths, with the next sequences at 1.
    expected = end(pb.STATE_OPEN, pb.ORDER_ORDERED, PORT, "channel-0", ["connection-0"], "mock-1")
    for chain in (a, b):
        assert chain.proof(path("channel-0"), chain.height)[0] == expected.SerializeToString()
        for kind in ("nextSequenceSend", "nextSequenceRecv", "nextSequenceAck"):
            assert chain.proof(f"{kind}/ports/{PORT}/channels/channel-0", chain.height)[0] == (1).to_bytes(8, "big")
        assert chain.proof("nextChannelSequence", chain.height)[0] == (1).to_bytes(8, "big")

    # The queries.
    query, context = ChannelQuery(b.app), LatestQueryContext()
    found = query.Channel(query_pb2.QueryChannelRequest(port_id=PORT, channel_id="channel-0"), context)
    assert found.channel == expected and found.proof_height == m.height(b.height)
    listed = query.Channels(query_pb2.QueryChannelsRequest(), context)
    assert [(c.port_id, c.channel_id, c.state) for c in listed.channels] == [(PORT, "channel-0", pb.STATE_OPEN)]
    assert listed.pagination.total == 1 and listed.height == m.height(b.height)
    on_connection = query.ConnectionChannels(query_pb2.QueryConnectionChannelsRequest(connection="connection-0"),
                                             context)
    assert [c.channel_id for c in on_connection.channels] == ["channel-0"]
    assert query.ConnectionChannels(query_pb2.QueryConnectionChannelsRequest(connection="connection-7"),
                                    context).channels == []
    cs = query.ChannelClientState(query_pb2.QueryChannelClientStateRequest(port_id=PORT, channel_id="channel-0"),
                                  context)
    assert cs.identified_client_state.client_id == B_CLIENT
    assert m.tm.ClientState.FromString(cs.identified_client_state.client_state.value).chain_id == a.chain_id
    assert query.NextSequenceReceive(query_pb2.QueryNextSequenceReceiveRequest(
        port_id=PORT, channel_id="channel-0"), context).next_sequence_receive == 1
    with pytest.raises(errors.ChainError) as failed:
        query.Channel(query_pb2.QueryChannelRequest(port_id=PORT, channel_id="channel-9"), context)
    assert "port-id: mock, channel-id channel-9: channel not found" in str(failed.value)
    with pytest.raises(errors.ChainError) as failed:
        query.Channel(query_pb2.QueryChannelRequest(port_id=PORT, channel_id="ch"), context)
    assert "has invalid length" in str(failed.value)


def test_an_unordered_channel_answers_next_sequence_receive_zero(pair):
    open_channel(pair)
    query = ChannelQuery(pair.b.app)
    assert query.NextSequenceReceive(query_pb2.QueryNextSequenceReceiveRequest(
        port_id=PORT, channel_id="channel-0"), LatestQueryContext()).next_sequence_receive == 0


def test_close_init_and_close_confirm_with_a_proof_of_the_closed_end(pair):
    a, b = pair.a, pair.b
    open_channel(pair)
    pair.apps[a].keep_open = True
    refused(pair, a, close_init(a, "channel-0"), "mock", 2,
            "channel close init callback failed for port ID: mock, channel ID: channel-0: channel may not be closed")
    pair.apps[a].keep_open = False
    r = ok(pair.block(a, [close_init(a, "channel-0")]))
    assert attrs(r.events, "channel_close_init") == [
        {"port_id": PORT, "channel_id": "channel-0", "counterparty_port_id": PORT,
         "counterparty_channel_id": "channel-0", "connection_id": "connection-0"}]
    refused(pair, a, close_init(a, "channel-0"), "channel", 5,
            "channel handshake close init failed: channel is already CLOSED: invalid channel state")
    # A proof of B's own (OPEN) end is no proof of A's closed one.
    _, proof, height = ic.proven(pair, b, B_CLIENT, a, path("channel-0"))
    _, wrong = b.proof(path("channel-0"), b.height)
    refused(pair, b, close_confirm(b, "channel-0", wrong, height), "commitment", 2,
            "channel handshake close confirm failed: failed channel state verification for client (07-tendermint-0)")
    r = ok(pair.block(b, [close_confirm(b, "channel-0", proof, height)]))
    assert attrs(r.events, "channel_close_confirm") == [
        {"port_id": PORT, "channel_id": "channel-0", "counterparty_port_id": PORT,
         "counterparty_channel_id": "channel-0", "connection_id": "connection-0"}]
    for chain in (a, b):
        assert keeper(chain).channel(chain.app.view(), PORT, "channel-0").state == pb.STATE_CLOSED
    assert pair.apps[b].calls[-1] == ("close_confirm", "channel-0")


def test_unbound_ports_bad_input_and_wrong_proofs_fail_with_ibc_gos_errors_and_change_nothing(pair):
    a, b = pair.a, pair.b
    refused(pair, a, open_init(a, port="icahost"), "capability", 7,
            "could not retrieve module from port-id: ports/icahost: capability not found")
    refused(pair, a, open_init(a, hops=("connection-5",)), "connection", 3,
            "channel handshake open init failed: connection-5: connection not found")
    refused(pair, a, open_init(a, hops=("connection-0", "connection-1")), "channel", 15,
            "current IBC version only supports one connection hop: too many connection hops")
    refused(pair, a, open_init(a, ordering=pb.ORDER_NONE_UNSPECIFIED), "channel", 6,
            "ORDER_NONE_UNSPECIFIED: invalid channel ordering")
    bad = open_init(a)
    bad[1].channel.counterparty.channel_id = "channel-3"
    refused(pair, a, bad, "channel", 7, "counterparty channel identifier must be empty: invalid counterparty channel")
    refused(pair, a, open_ack(a, "channel-0", "channel-0", "mock-1", b"x", m.height(1)), "capability", 7,
            "could not retrieve module from port-id: capabilities/ports/mock/channels/channel-0: capability not found")
    refused(pair, a, open_ack(a, "chan-0", "channel-0", "mock-1", b"x", m.height(1)), "channel", 18,
            "invalid channel identifier")
    refused(pair, a, open_confirm(a, "channel-0", b"", m.height(1)), "commitment", 2,
            "cannot submit an empty acknowledgement proof: invalid proof")

    ok(pair.block(a, [open_init(a)]))
    value, proof, height = ic.proven(pair, b, B_CLIENT, a, path("channel-0"))
    # A's INIT end says UNORDERED and version mock-1: another ordering, version or channel id fails verification.
    failed = "channel handshake open try failed: failed channel state verification for client (07-tendermint-0)"
    for message in (open_try(b, "channel-0", "mock-1", proof, height, pb.ORDER_ORDERED),
                    open_try(b, "channel-0", "mock-2", proof, height),
                    open_try(b, "channel-1", "mock-1", proof, height)):
        refused(pair, b, message, "commitment", 2, failed)
    refused(pair, b, open_try(b, "channel-0", "mock-1", proof, m.height(height.revision_height + 50)), "ibc", 9,
            "client state height < proof height")
    crossing = open_try(b, "channel-0", "mock-1", proof, height)
    crossing[1].previous_channel_id = "channel-0"
    refused(pair, b, crossing, "channel", 18, "previous channel identifier must be empty, this field has been "
            "deprecated as crossing hellos are no longer supported: invalid channel identifier")
    refused(pair, b, open_try(b, "channel-0", "mock-1", b"", height), "commitment", 2,
            "cannot submit an empty init proof: invalid proof")
    # A step out of order: A's end is INIT, not TRYOPEN.
    refused(pair, a, open_confirm(a, "channel-0", b"x", m.height(1)), "channel", 5,
            "channel handshake open confirm failed: channel state is not TRYOPEN (got STATE_INIT): invalid channel "
            "state")
    ok(pair.block(b, [open_try(b, "channel-0", "mock-1", proof, height)]))
    assert keeper(b).channel(b.app.view(), PORT, "channel-0").state == pb.STATE_TRYOPEN


def test_a_port_binds_once(pair):
    with pytest.raises(TxError, match="mock: port is already binded"):
        keeper(pair.a).bind_port(PORT, MockApp())
    with pytest.raises(TxError, match="identifier cannot be blank"):
        keeper(pair.a).bind_port(" ", MockApp())


def test_genesis_default_validate_init_and_export_round_trip(pair):
    a = pair.a
    open_channel(pair, pb.ORDER_ORDERED)
    module = next(mod for mod in a.app.modules if mod.name == "ibc_channel")
    assert module.genesis.default(None)["params"] == {
        "upgrade_timeout": {"height": {"revision_number": "0", "revision_height": "0"}, "timestamp": "600000000000"}}
    exported = module.genesis.export(a.app, a.app.view())
    assert exported["next_channel_sequence"] == "1"
    assert [(c["port_id"], c["channel_id"], c["state"]) for c in exported["channels"]] == \
        [(PORT, "channel-0", "STATE_OPEN")]
    for field in ("send_sequences", "recv_sequences", "ack_sequences"):
        assert exported[field] == [{"port_id": PORT, "channel_id": "channel-0", "sequence": "1"}]
    doc = a.genesis.document
    doc = {**doc, "app_state": {**doc["app_state"], "ibc": {**doc["app_state"]["ibc"], "channel_genesis": exported}}}
    parsed = Genesis.from_document(doc).sections["ibc_channel"]
    assert parsed.channels[0].counterparty.channel_id == "channel-0"
    third = {**exported["channels"][0], "channel_id": "channel-3"}
    commitment = {"port_id": PORT, "channel_id": "channel-0", "sequence": "1", "data": ""}
    for change, text in [({"channels": [third], "next_channel_sequence": "3"},
                          "next channel sequence 3 must be greater than maximum sequence used in channel identifier 3"),
                         ({"channels": [{**exported["channels"][0], "channel_id": "chan-0"}]},
                          "invalid channel identifier chan-0"),
                         ({"channels": [{**exported["channels"][0], "connection_hops": []}]},
                          "too many connection hops"),
                         ({"commitments": [commitment]}, "data bytes cannot be empty"),
                         ({"send_sequences": [{"port_id": "x", "channel_id": "channel-0", "sequence": "1"}]},
                          "invalid port Id")]:
        doc["app_state"]["ibc"]["channel_genesis"] = {**exported, **change}
        with pytest.raises(GenesisError) as raised:
            Genesis.from_document(doc)
        assert text in str(raised.value)
