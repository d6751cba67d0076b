"""IBC 03-connection between two chaind chains without a node: each a 07-tendermint client of the other made from
the other's real signed headers, the four-step handshake driven as a relayer drives it, each step's proof read at
height H from the other chain's ibc store and verified against the consensus state of H + 1; ibc-go's events,
ICS-24 paths, queries and genesis; bad input and wrong proofs fail with ibc-go's codespace, code and text and
change nothing."""

import pytest

import ibc_chains as ic
import ibc_client_msgs as m
from chain_driver import LatestQueryContext
from chaind.chain.authority import GOV
from chaind.chain.genesis import Genesis, GenesisError
from chaind.chain.modules.ibc_connection.query import ConnectionQuery
from chaind.pb.ibc.core.connection.v1 import connection_pb2 as pb
from chaind.pb.ibc.core.connection.v1 import query_pb2
from chaind.pb.ibc.core.connection.v1 import tx_pb2 as conn_tx
from gov_driver import attrs

A_CLIENT = "07-tendermint-0"    # A's client of B
B_CLIENT = "07-tendermint-1"    # B's client of A (B's 07-tendermint-0 is a spare one)
VERSION = pb.Version(identifier="1", features=["ORDER_ORDERED", "ORDER_UNORDERED"])


@pytest.fixture
def pair(tmp_path):
    made = ic.Pair(tmp_path)
    made.block(made.a)
    made.block(made.b)
    for host, of in ((made.a, made.b), (made.b, made.a), (made.b, made.a)):
        r = ic.create_client(made, host, of)
        assert r.code == 0, r.log
    yield made
    made.close()


def keeper(chain):
    return chain.app.keepers["ibc_connection"]


def ibc_root(chain):
    return chain.app.store_version().root_of("ibc")


def ok(result):
    assert result.code == 0, result.log
    return result


def refused(pair, chain, message, codespace, code, text):
    before = ibc_root(chain)
    r = pair.block(chain, [message])
    assert (r.codespace, r.code) == (codespace, code) and text in r.log, (r.codespace, r.code, r.log)
    assert ibc_root(chain) == before


def handshake_to_try(pair):
    """B's spare connection-0, then A's INIT connection-0 and B's TRYOPEN connection-1."""
    a, b = pair.a, pair.b
    ok(pair.block(b, [ic.open_init(b, "07-tendermint-0", A_CLIENT)]))
    r = ok(pair.block(a, [ic.open_init(a, A_CLIENT, B_CLIENT)]))
    _, proof, height = ic.proven(pair, b, B_CLIENT, a, "connections/connection-0")
    theirs = ic.counterparty(A_CLIENT, "connection-0")
    t = ok(pair.block(b, [ic.open_try(b, B_CLIENT, theirs, [VERSION], proof, height)]))
    return r, t


def test_two_chains_open_a_connection_with_proofs_of_each_others_ends(pair):
    a, b = pair.a, pair.b
    r, t = handshake_to_try(pair)
    assert attrs(r.events, "connection_open_init") == [
        {"connection_id": "connection-0", "client_id": A_CLIENT, "counterparty_client_id": B_CLIENT}]
    assert {"module": "ibc_connection"} in attrs(r.events, "message")
    assert attrs(t.events, "connection_open_try") == [
        {"connection_id": "connection-1", "client_id": B_CLIENT, "counterparty_client_id": A_CLIENT,
         "counterparty_connection_id": "connection-0"}]
    on_b = keeper(b).connection(b.app.view(), "connection-1")
    assert on_b.state == pb.STATE_TRYOPEN and list(on_b.versions) == [VERSION]
    assert keeper(b).client_connection_paths(b.app.view(), B_CLIENT) == ["connection-1"]

    # Ack on A: B's TRYOPEN end proven.
    value, proof, height = ic.proven(pair, a, A_CLIENT, b, "connections/connection-1")
    assert value == on_b.SerializeToString()
    r = ok(pair.block(a, [ic.open_ack(a, "connection-0", "connection-1", VERSION, proof, height)]))
    assert attrs(r.events, "connection_open_ack") == [
        {"connection_id": "connection-0", "client_id": A_CLIENT, "counterparty_client_id": B_CLIENT,
         "counterparty_connection_id": "connection-1"}]
    on_a = keeper(a).connection(a.app.view(), "connection-0")
    assert on_a.state == pb.STATE_OPEN and on_a.counterparty.connection_id == "connection-1"

    # Confirm on B: A's OPEN end proven.
    _, proof, height = ic.proven(pair, b, B_CLIENT, a, "connections/connection-0")
    r = ok(pair.block(b, [ic.open_confirm(b, "connection-1", proof, height)]))
    assert attrs(r.events, "connection_open_confirm") == [
        {"connection_id": "connection-1", "client_id": B_CLIENT, "counterparty_client_id": A_CLIENT,
         "counterparty_connection_id": "connection-0"}]
    on_b = keeper(b).connection(b.app.view(), "connection-1")
    assert on_b.state == pb.STATE_OPEN
    # The ends mirror each other, at ibc-go's paths in the ibc store.
    value, _ = a.proof("connections/connection-0", a.height)
    expected = pb.ConnectionEnd(client_id=A_CLIENT, versions=[VERSION], state=pb.STATE_OPEN,
                                counterparty=ic.counterparty(B_CLIENT, "connection-1"))
    assert value == expected.SerializeToString()
    assert b.proof("clients/07-tendermint-1/connections", b.height)[0] == pb.ClientPaths(
        paths=["connection-1"]).SerializeToString()
    assert b.proof("nextConnectionSequence", b.height)[0] == (2).to_bytes(8, "big")

    # The queries.
    query, context = ConnectionQuery(b.app), LatestQueryContext()
    found = query.Connection(query_pb2.QueryConnectionRequest(connection_id="connection-1"), context)
    assert found.connection == on_b and found.proof_height == m.height(b.height)
    listed = query.Connections(query_pb2.QueryConnectionsRequest(), context)
    assert [(c.id, c.state) for c in listed.connections] == [("connection-0", pb.STATE_INIT),
                                                             ("connection-1", pb.STATE_OPEN)]
    assert listed.pagination.total == 2 and listed.height == m.height(b.height)
    paths = query.ClientConnections(query_pb2.QueryClientConnectionsRequest(client_id="07-tendermint-0"), context)
    assert list(paths.connection_paths) == ["connection-0"]
    cs = query.ConnectionClientState(query_pb2.QueryConnectionClientStateRequest(connection_id="connection-1"),
                                     context)
    assert cs.identified_client_state.client_id == B_CLIENT
    assert m.tm.ClientState.FromString(cs.identified_client_state.client_state.value).chain_id == a.chain_id
    cons = query.ConnectionConsensusState(query_pb2.QueryConnectionConsensusStateRequest(
        connection_id="connection-1", revision_number=1, revision_height=height.revision_height), context)
    assert cons.client_id == B_CLIENT
    assert m.tm.ConsensusState.FromString(cons.consensus_state.value).root.hash == \
        a.app.block_at(height.revision_height)[0].app_hash
    params = query.ConnectionParams(query_pb2.QueryConnectionParamsRequest(), context)
    assert params.params.max_expected_time_per_block == 30 * 10**9


def test_wrong_proofs_and_bad_handshake_steps_fail_with_ibc_gos_errors_and_change_nothing(pair):
    a, b = pair.a, pair.b
    ok(pair.block(a, [ic.open_init(a, A_CLIENT, B_CLIENT)]))
    value, proof, height = ic.proven(pair, b, B_CLIENT, a, "connections/connection-0")
    theirs = ic.counterparty(A_CLIENT, "connection-0")
    # A's end says delay 0 and B's client: another delay, another client id, another proof height all fail.
    failed = "failed connection state verification for client (07-tendermint-1)"
    for message, (codespace, code, text) in [
            (ic.open_try(b, B_CLIENT, theirs, [VERSION], proof, height, delay_period=5),
             ("commitment", 2, f"{failed}: chained membership proof failed")),
            (ic.open_try(b, B_CLIENT, ic.counterparty(A_CLIENT, "connection-7"), [VERSION], proof, height),
             ("commitment", 2, failed)),
            (ic.open_try(b, B_CLIENT, theirs, [VERSION], proof, m.height(height.revision_height + 50)),
             ("ibc", 9, f"{failed}: client state height < proof height")),
            (ic.open_try(b, B_CLIENT, theirs, [VERSION], b"\x01\x02", height),
             ("commitment", 2, f"{failed}: failed to unmarshal proof")),
            (ic.open_try(b, "07-tendermint-9", theirs, [VERSION], proof, height),
             ("client", 4, "07-tendermint-9: light client not found")),
            (ic.open_try(b, B_CLIENT, theirs, [pb.Version(identifier="2", features=["ORDER_ORDERED"])], proof,
                         height), ("connection", 10, "failed to find a matching counterparty version")),
            (ic.open_try(b, B_CLIENT, theirs, [VERSION], b"", height),
             ("commitment", 2, "cannot submit an empty proof init: invalid proof")),
            (ic.open_try(b, B_CLIENT, theirs, [], proof, height), ("ibc", 10, "empty counterparty versions")),
            (ic.open_try(b, B_CLIENT, ic.counterparty(A_CLIENT, ""), [VERSION], proof, height),
             ("host", 2, "invalid counterparty connection ID: identifier cannot be blank")),
            (ic.open_try(b, "09-localhost", theirs, [VERSION], proof, height),
             ("client", 10, "localhost connection handshakes are disallowed"))]:
        refused(pair, b, message, codespace, code, text)
    assert keeper(b).next_connection_sequence(b.app.view()) == 0
    # The right message still opens B's end.
    ok(pair.block(b, [ic.open_try(b, B_CLIENT, theirs, [VERSION], proof, height)]))

    # Ack: a version A did not propose, a state that is not INIT, a connection that is not there, a proof of B's
    # end under a wrong id.
    _, proof, height = ic.proven(pair, a, A_CLIENT, b, "connections/connection-0")
    only_ordered = pb.Version(identifier="1", features=["ORDER_ORDERED"])
    for message, (codespace, code, text) in [
            (ic.open_ack(a, "connection-0", "connection-0", pb.Version(identifier="1", features=["ORDER_NONE"]),
                         proof, height), ("connection", 6, "the counterparty selected version identifier:\"1\" "
                                                           "features:\"ORDER_NONE\"  is not supported")),
            (ic.open_ack(a, "connection-0", "connection-0", only_ordered, proof, height),
             ("commitment", 2, "failed connection state verification for client (07-tendermint-0)")),
            (ic.open_ack(a, "connection-0", "connection-3", VERSION, proof, height), ("commitment", 2, "")),
            (ic.open_ack(a, "connection-5", "connection-0", VERSION, proof, height),
             ("connection", 3, "connection-5: connection not found")),
            (ic.open_ack(a, "conn-0", "connection-0", VERSION, proof, height),
             ("connection", 11, "invalid connection identifier"))]:
        refused(pair, a, message, codespace, code, text)
    _, init_proof, init_height = ic.proven(pair, b, B_CLIENT, a, "connections/connection-0")
    refused(pair, b, ic.open_confirm(b, "connection-4", init_proof, init_height), "connection", 3,
            "connection-4: connection not found")
    ok(pair.block(a, [ic.open_ack(a, "connection-0", "connection-0", VERSION, proof, height)]))
    refused(pair, a, ic.open_ack(a, "connection-0", "connection-0", VERSION, proof, height), "connection", 6,
            "connection state is not INIT (got STATE_OPEN)")
    # Confirm with the proof of A's end before it opened (INIT): refused; the OPEN end's proof opens it.
    refused(pair, b, ic.open_confirm(b, "connection-0", init_proof, init_height), "commitment", 2,
            "failed connection state verification for client (07-tendermint-1)")
    _, proof, height = ic.proven(pair, b, B_CLIENT, a, "connections/connection-0")
    ok(pair.block(b, [ic.open_confirm(b, "connection-0", proof, height)]))
    refused(pair, b, ic.open_confirm(b, "connection-0", proof, height), "connection", 6,
            "connection state is not TRYOPEN (got STATE_OPEN)")


def test_open_init_checks_the_client_version_and_counterparty(pair):
    a = pair.a
    for message, (codespace, code, text) in [
            (ic.open_init(a, "07-tendermint-4", B_CLIENT), ("client", 4, "clientID (07-tendermint-4): light client "
                                                                         "not found")),
            (ic.open_init(a, A_CLIENT, B_CLIENT, version=pb.Version(identifier="1", features=["ORDER_NONE"])),
             ("connection", 9, "version is not supported: invalid connection version")),
            (ic.open_init(a, A_CLIENT, B_CLIENT, version=pb.Version(identifier=" ")),
             ("connection", 9, "basic validation of the provided version failed: version identifier cannot be "
                               "blank")),
            (ic.open_init(a, A_CLIENT, "x"), ("host", 2, "invalid counterparty client ID"))]:
        refused(pair, a, message, codespace, code, text)
    url, msg = ic.open_init(a, A_CLIENT, B_CLIENT)
    msg.counterparty.prefix.key_prefix = b""
    refused(pair, a, (url, msg), "connection", 7, "counterparty prefix cannot be empty")
    msg = ic.open_init(a, A_CLIENT, B_CLIENT)[1]
    msg.counterparty.connection_id = "connection-1"
    refused(pair, a, (url, msg), "connection", 7, "counterparty connection identifier must be empty")
    # A client past its trusting period opens nothing.
    b = pair.b
    short = m.client_state(b.height, chain_id=b.chain_id, trusting=3 * ic.S, unbonding=60 * ic.S)
    ok(pair.block(a, [m.create(a.relayer, short, b.consensus_state(b.height))]))
    for _ in range(4):
        pair.block(a)
    refused(pair, a, ic.open_init(a, "07-tendermint-1", B_CLIENT), "client", 29,
            "client (07-tendermint-1) status is Expired")
    url, msg = ic.open_try(a, A_CLIENT, ic.counterparty(B_CLIENT, "connection-0"), [VERSION], b"\x01", m.height(2))
    msg.previous_connection_id = "connection-0"
    refused(pair, a, (url, msg), "connection", 11, "previous connection identifier must be empty")
    # A version given alone is the one the end proposes.
    ordered = pb.Version(identifier="1", features=["ORDER_ORDERED"])
    ok(pair.block(a, [ic.open_init(a, A_CLIENT, B_CLIENT, version=ordered, delay_period=90 * 10**9)]))
    end = keeper(a).connection(a.app.view(), "connection-0")
    assert list(end.versions) == [ordered] and end.delay_period == 90 * 10**9
    assert keeper(a).block_delay(a.app.view(), end) == 3


def test_params_through_governance_and_genesis_round_trip(pair):
    from gov_driver import through_gov

    a = pair.a
    ok(pair.block(a, [ic.open_init(a, A_CLIENT, B_CLIENT)]))
    gov = a.chain.b32(GOV)
    bad = conn_tx.MsgUpdateParams(signer=a.relayer, params=pb.Params(max_expected_time_per_block=10**9))
    refused(pair, a, (ic.CONNECTION + "MsgUpdateParams", bad), "ibc", 2, f"expected {gov}, got {a.relayer}")
    zero = conn_tx.MsgUpdateParams(signer=a.relayer, params=pb.Params())
    refused(pair, a, (ic.CONNECTION + "MsgUpdateParams", zero), "undefined", 1,
            "MaxExpectedTimePerBlock cannot be zero")
    a.chain.clock, a.chain.prefix = pair.clock, a.genesis.bech32_prefix
    good = conn_tx.MsgUpdateParams(signer=gov, params=pb.Params(max_expected_time_per_block=10**9))
    assert through_gov(a.chain, m.pack(ic.CONNECTION + "MsgUpdateParams", good))["proposal_result"] == \
        "proposal_passed"
    assert keeper(a).params(a.app.view()).max_expected_time_per_block == 10**9

    module = next(mod for mod in a.app.modules if mod.name == "ibc_connection")
    exported = module.genesis.export(a.app, a.app.view())
    assert exported["next_connection_sequence"] == "1"
    assert exported["params"] == {"max_expected_time_per_block": "1000000000"}
    assert [c["id"] for c in exported["connections"]] == ["connection-0"]
    assert exported["client_connection_paths"] == [{"client_id": A_CLIENT, "paths": ["connection-0"]}]
    doc = a.genesis.document
    doc = {**doc, "app_state": {**doc["app_state"], "ibc": {**doc["app_state"]["ibc"],
                                                             "connection_genesis": exported}}}
    parsed = Genesis.from_document(doc).sections["ibc_connection"]
    assert parsed.connections[0].state == pb.STATE_INIT
    # As ibc-go: connection-0 alone takes any next sequence; connection-3 needs more than 3.
    third = {**exported["connections"][0], "id": "connection-3"}
    for change, text in [({"connections": [third], "next_connection_sequence": "3"},
                          "next connection sequence 3 must be greater than maximum sequence used in connection "
                          "identifier 3"),
                         ({"params": {"max_expected_time_per_block": "0"}}, "MaxExpectedTimePerBlock cannot be zero"),
                         ({"connections": [{**exported["connections"][0], "id": "conn-0"}]},
                          "connection identifier is not in the format"),
                         ({"client_connection_paths": [{"client_id": A_CLIENT, "paths": ["c"]}]},
                          "invalid client connection ID (c)")]:
        doc["app_state"]["ibc"]["connection_genesis"] = {**exported, **change}
        with pytest.raises(GenesisError) as raised:
            Genesis.from_document(doc)
        assert text in str(raised.value)
