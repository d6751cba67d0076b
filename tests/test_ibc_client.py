"""IBC 02-client with the 07-tendermint light client on a chain driven block by block: a counterparty's client
created and updated with adjacent and skipping headers (ICS-24 paths in the ibc store, ibc-go's events and
metadata), frozen by a conflicting header or a Misbehaviour, expired past its trusting period; bad input fails
with ibc-go's codespace, code and text and changes nothing; the queries and genesis export read it back; the
client verifies proofs of the counterparty's state (membership, absence, delay periods); governance recovers a
client and sets the allowed clients; this chain's own consensus states and the checks of a client of it."""

import json

import pytest

import ibc_client_msgs as m
from chain_driver import LatestQueryContext
from chaind.chain.authority import GOV
from chaind.chain.errors import TxError
from chaind.chain.genesis import Genesis, GenesisError
from chaind.chain.modules.ibc_client import keeper as client_keeper
from chaind.chain.modules.ibc_client import self_client, tendermint
from chaind.chain.modules.ibc_client.query import ClientQuery
from chaind.chain.modules.staking.params import params as staking_params
from chaind.chain.replay import replay_chain
from chaind.pb.cosmos.ics23.v1 import proofs_pb2
from chaind.pb.ibc.core.client.v1 import query_pb2
from chaind.pb.ibc.core.commitment.v1 import commitment_pb2
from chaind.store.commitment import SDK_SPECS
from gov_driver import address, attrs, make_chain, run, through_gov
from light_headers import SECOND, key, signed_header, validator_set

CLIENT = "07-tendermint-0"
A = validator_set([key(i) for i in range(4)])
B = validator_set([key(i) for i in range(2, 6)])     # half of A's power goes on signing: more than 1/3
C = validator_set([key(i) for i in range(10, 14)])   # none of A


@pytest.fixture
def chain(tmp_path):
    made = make_chain(tmp_path)
    made.me = made.b32(address(made, 1))
    made.t0 = made.clock - 100 * SECOND
    yield made
    made.close()


def deliver(chain, *messages, after_s=1):
    return run(chain, [(1, list(messages))], after_s=after_s).results[0]


def ibc_store(chain, path):
    info = chain.app.store_version()
    return chain.app.stores.read(info, "ibc", path.encode(), False)[0]


def created(chain, latest=10, **client):
    h = signed_header(latest, chain.t0, A, A, None)
    r = deliver(chain, m.create(chain.me, m.client_state(latest, **client), m.consensus_state(h)))
    assert r.code == 0, r.log
    return r


def keeper(chain):
    return chain.app.keepers[client_keeper.NAME]


def test_create_then_adjacent_and_skipping_updates(chain):
    r = created(chain)
    assert attrs(r.events, "create_client") == [
        {"client_id": CLIENT, "client_type": "07-tendermint", "consensus_height": "1-10"}]
    assert {"module": "ibc_client"} in attrs(r.events, "message")
    stored = ibc_store(chain, f"clients/{CLIENT}/clientState")
    assert stored == m.pack("/ibc.lightclients.tendermint.v1.ClientState", m.client_state(10)).SerializeToString()
    assert ibc_store(chain, "nextClientSequence") == (1).to_bytes(8, "big")

    h11 = signed_header(11, chain.t0 + 5 * SECOND, A, A, None, app_hash=b"\x11" * 32)
    update = m.header(h11, A, 10, A)
    r = deliver(chain, m.update(chain.me, CLIENT, update))
    assert r.code == 0, r.log
    assert attrs(r.events, "update_client") == [{
        "client_id": CLIENT, "client_type": "07-tendermint", "consensus_height": "1-11", "consensus_heights": "1-11",
        "header": m.pack("/ibc.lightclients.tendermint.v1.Header", update).SerializeToString().hex()}]
    view = chain.app.view()
    store = keeper(chain).store(view, CLIENT)
    assert store.consensus_state((1, 11)) == m.consensus_state(h11)
    assert store.processed_height((1, 11)) == (1, view.height)
    assert store.processed_time((1, 11)) == chain.clock
    assert keeper(chain).client_state(view, CLIENT).latest_height == m.height(11)
    assert keeper(chain).timestamp_at_height(view, CLIENT, (1, 11)) == chain.t0 + 5 * SECOND
    with pytest.raises(TxError, match="height \\(1-12\\): consensus state not found"):
        keeper(chain).timestamp_at_height(view, CLIENT, (1, 12))

    # Skipping from 11 to 20, the set changed to B: A's validators in B sign more than 1/3 of A's power.
    h20 = signed_header(20, chain.t0 + 60 * SECOND, B, B, None, app_hash=b"\x20" * 32)
    r = deliver(chain, m.update(chain.me, CLIENT, m.header(h20, B, 11, A)))
    assert r.code == 0, r.log
    assert keeper(chain).store(chain.app.view(), CLIENT).heights() == [(1, 10), (1, 11), (1, 20)]
    assert ibc_store(chain, f"clients/{CLIENT}/consensusStates/1-20") == m.pack(
        "/ibc.lightclients.tendermint.v1.ConsensusState", m.consensus_state(h20)).SerializeToString()
    # The same header again: success, no new state (ibc-go's redundant update).
    before = chain.app.store_version().root_of("ibc")
    r = deliver(chain, m.update(chain.me, CLIENT, m.header(h20, B, 11, A)))
    assert r.code == 0 and chain.app.store_version().root_of("ibc") == before

    query, context = ClientQuery(chain.app), LatestQueryContext()
    found = query.ClientState(query_pb2.QueryClientStateRequest(client_id=CLIENT), context)
    assert found.client_state.value == m.client_state(20).SerializeToString()
    assert found.proof_height == m.height(chain.app.height)
    heights = query.ConsensusStateHeights(query_pb2.QueryConsensusStateHeightsRequest(client_id=CLIENT), context)
    assert [h.revision_height for h in heights.consensus_state_heights] == [10, 11, 20]
    assert query.ClientStatus(query_pb2.QueryClientStatusRequest(client_id=CLIENT), context).status == "Active"
    states = query.ClientStates(query_pb2.QueryClientStatesRequest(), context)
    assert [s.client_id for s in states.client_states] == [CLIENT] and states.pagination.total == 1


def _refused(chain, message, codespace, code, text):
    before = chain.app.store_version().root_of("ibc")
    r = deliver(chain, message)
    assert (r.codespace, r.code) == (codespace, code) and text in r.log, (r.codespace, r.code, r.log)
    assert chain.app.store_version().root_of("ibc") == before


def test_bad_client_states_and_headers_fail_with_ibc_gos_errors_and_change_nothing(chain):
    h10 = signed_header(10, chain.t0, A, A, None)
    cons = m.consensus_state(h10)
    for client, (codespace, code, text) in [
            ({"trusting": 21 * m.DAY}, ("07-tendermint", 3, "trusting period (504h0m0s) should be < unbonding "
                                                            "period (504h0m0s): invalid trusting period")),
            ({"revision": 2}, ("07-tendermint", 5, "latest height revision number must match chain id revision "
                                                   "number (2 != 1)")),
            ({"specs": ()}, ("07-tendermint", 13, "proof specs cannot be nil for tm client")),
            ({"trust": (1, 4)}, ("undefined", 1, "trustLevel must be within [1/3, 1], given 1/4")),
            ({"chain_id": " "}, ("07-tendermint", 2, "chain id cannot be empty string")),
            ({"upgrade_path": ("upgrade", " ")}, ("client", 3, "key in upgrade path at index 1 cannot be empty"))]:
        _refused(chain, m.create(chain.me, m.client_state(10, **client), cons), codespace, code, text)
    _refused(chain, m.create("chain1nope", m.client_state(10), cons), "sdk", 7, "invalid signer address")
    old = m.consensus_state(signed_header(10, chain.clock - 15 * m.DAY, A, A, None))
    _refused(chain, m.create(chain.me, m.client_state(10), old), "client", 29,
             f"cannot create client ({CLIENT}) with status Expired")
    assert keeper(chain).next_client_sequence(chain.app.view()) == 0

    created(chain)
    h11 = signed_header(11, chain.t0 + 5 * SECOND, A, A, None)
    _refused(chain, m.update(chain.me, "07-tendermint-9", m.header(h11, A, 10, A)), "client", 4,
             "cannot update client with ID 07-tendermint-9")
    _refused(chain, m.update(chain.me, CLIENT, m.header(h11, A, 9, A)), "client", 7,
             "could not get trusted consensus state from clientStore for Header at TrustedHeight: 1-9")
    _refused(chain, m.update(chain.me, CLIENT, m.header(h11, A, 10, C)), "07-tendermint", 14,
             "does not hash to latest trusted validators")
    _refused(chain, m.update(chain.me, CLIENT, m.header(h11, C, 10, A)), "client", 12,
             "validator set does not match hash")
    _refused(chain, m.update(chain.me, CLIENT, m.header(h11, A, 11, A)), "07-tendermint", 5,
             "TrustedHeight {1 11} must be less than header height {1 11}")
    # Signed by a set none of whose validators the client trusts: the light client refuses it.
    h20 = signed_header(20, chain.t0 + 60 * SECOND, C, C, None)
    _refused(chain, m.update(chain.me, CLIENT, m.header(h20, C, 10, A)), "undefined", 1,
             "failed to verify header: cant trust new val set: invalid commit -- insufficient voting power: got 0")
    # Two of A's four sign an adjacent header: not more than 2/3.
    few = signed_header(11, chain.t0 + 5 * SECOND, A, A, set(list(A[1])[:2]))
    _refused(chain, m.update(chain.me, CLIENT, m.header(few, A, 10, A)), "undefined", 1,
             "failed to verify header: invalid header: invalid commit -- insufficient voting power")
    future = signed_header(11, chain.clock + 3600 * SECOND, A, A, None)
    _refused(chain, m.update(chain.me, CLIENT, m.header(future, A, 10, A)), "undefined", 1,
             "new header has a time from the future")
    assert keeper(chain).store(chain.app.view(), CLIENT).heights() == [(1, 10)]


def test_a_conflicting_header_freezes_the_client_and_the_chain_replays(chain, tmp_path):
    created(chain)
    h11 = signed_header(11, chain.t0 + 5 * SECOND, A, A, None, app_hash=b"\x11" * 32)
    assert deliver(chain, m.update(chain.me, CLIENT, m.header(h11, A, 10, A))).code == 0
    # Another block at height 11, signed by the same validators: a fork.
    fork = signed_header(11, chain.t0 + 5 * SECOND, A, A, None, app_hash=b"\xff" * 32)
    r = deliver(chain, m.update(chain.me, CLIENT, m.header(fork, A, 10, A)))
    assert r.code == 0, r.log
    assert attrs(r.events, "client_misbehaviour") == [{"client_id": CLIENT, "client_type": "07-tendermint"}]
    view = chain.app.view()
    assert keeper(chain).client_state(view, CLIENT).frozen_height == m.height(1, 0)
    assert keeper(chain).status(view, CLIENT, chain.clock) == "Frozen"
    assert keeper(chain).store(view, CLIENT).consensus_state((1, 11)) == m.consensus_state(h11)
    h12 = signed_header(12, chain.t0 + 9 * SECOND, A, A, None)
    _refused(chain, m.update(chain.me, CLIENT, m.header(h12, A, 11, A)), "client", 29,
             f"cannot update client ({CLIENT}) with status Frozen")
    # The chain replays to the same app hashes, its client made, updated and frozen again.
    report = replay_chain(chain.app, tmp_path / "replayed.db", chain.app.options.vote_key,
                          chain.app.options.validator_address)
    assert report.ok and report.last_height == chain.app.height, str(report.mismatch)


def test_a_misbehaviour_of_two_headers_at_one_height_freezes_the_client(chain):
    created(chain)
    one = signed_header(15, chain.t0 + 5 * SECOND, A, A, None, app_hash=b"\x01" * 32)
    two = signed_header(15, chain.t0 + 5 * SECOND, A, A, None, app_hash=b"\x02" * 32)
    r = deliver(chain, m.misbehaviour(chain.me, CLIENT, m.header(one, A, 10, A), m.header(two, A, 10, A)))
    assert r.code == 0, r.log
    assert attrs(r.events, "client_misbehaviour") == [{"client_id": CLIENT, "client_type": "07-tendermint"}]
    assert keeper(chain).status(chain.app.view(), CLIENT, chain.clock) == "Frozen"


def test_a_misbehaviour_signed_by_strangers_is_refused(chain):
    created(chain)
    one = signed_header(15, chain.t0 + 5 * SECOND, C, C, None, app_hash=b"\x01" * 32)
    two = signed_header(15, chain.t0 + 5 * SECOND, C, C, None, app_hash=b"\x02" * 32)
    _refused(chain, m.misbehaviour(chain.me, CLIENT, m.header(one, C, 10, C), m.header(two, C, 10, C)), "07-tendermint",
             14, "failed to process misbehaviour for IBC client: verifying Header1 in Misbehaviour failed: trusted "
                 "validators")
    assert keeper(chain).status(chain.app.view(), CLIENT, chain.clock) == "Active"


def test_a_client_expires_past_its_trusting_period(chain):
    h10 = signed_header(10, chain.clock - 5 * SECOND, A, A, None)
    r = deliver(chain, m.create(chain.me, m.client_state(10, trusting=20 * SECOND, unbonding=40 * SECOND),
                                m.consensus_state(h10)))
    assert r.code == 0, r.log
    assert keeper(chain).status(chain.app.view(), CLIENT, chain.clock) == "Active"
    run(chain, [], after_s=30)
    query, context = ClientQuery(chain.app), LatestQueryContext()
    assert query.ClientStatus(query_pb2.QueryClientStatusRequest(client_id=CLIENT), context).status == "Expired"
    h11 = signed_header(11, chain.clock, A, A, None)
    _refused(chain, m.update(chain.me, CLIENT, m.header(h11, A, 10, A)), "client", 29,
             f"cannot update client ({CLIENT}) with status Expired")


def test_genesis_export_round_trip(chain, tmp_path):
    created(chain)
    h11 = signed_header(11, chain.t0 + 5 * SECOND, A, A, None)
    assert deliver(chain, m.update(chain.me, CLIENT, m.header(h11, A, 10, A))).code == 0
    module = next(mod for mod in chain.app.modules if mod.name == client_keeper.NAME)
    exported = module.genesis.export(chain.app, chain.app.view())
    assert exported["next_client_sequence"] == "1" and exported["params"] == {"allowed_clients": ["*"]}
    assert [c["client_id"] for c in exported["clients"]] == [CLIENT]
    heights = [s["height"] for s in exported["clients_consensus"][0]["consensus_states"]]
    assert heights == [{"revision_number": "1", "revision_height": "10"}, {"revision_number": "1",
                                                                           "revision_height": "11"}]
    assert len(exported["clients_metadata"][0]["client_metadata"]) == 6
    # The export starts a chain with the same client; a bad section is refused naming its field.
    doc = json.loads(chain.home.genesis_file.read_text())
    doc["app_state"]["ibc"] = {"client_genesis": exported}
    parsed = Genesis.from_document(doc).sections[client_keeper.NAME]
    assert parsed.clients[0].client_state.value == m.client_state(11).SerializeToString()
    for change, text in [({"next_client_sequence": "0"}, "must be greater than maximum sequence used"),
                         ({"params": {"allowed_clients": ["*", "07-tendermint"]}}, "allow list must have only one"),
                         ({"clients_consensus": [{"client_id": "07-tendermint-5"}]}, "which genesis does not have")]:
        doc["app_state"]["ibc"] = {"client_genesis": {**exported, **change}}
        with pytest.raises(GenesisError, match=text):
            Genesis.from_document(doc)


def _merkle_proof(ops):
    return commitment_pb2.MerkleProof(proofs=[proofs_pb2.CommitmentProof.FromString(op) for _, _, op in ops])


def test_the_client_verifies_proofs_of_the_counterpartys_state(chain):
    """The counterparty is this chain: a header carrying our app hash gives the client a root our store proves."""
    created(chain)
    info = chain.app.store_version()
    path = f"clients/{CLIENT}/clientState".encode()
    value, ops = chain.app.stores.read(info, "ibc", path, True)
    _, absent_ops = chain.app.stores.read(info, "ibc", b"clients/07-tendermint-5/clientState", True)
    h11 = signed_header(11, chain.t0 + 5 * SECOND, A, A, None, app_hash=info.hash())
    assert deliver(chain, m.update(chain.me, CLIENT, m.header(h11, A, 10, A))).code == 0
    view = chain.app.view()
    cs, store = keeper(chain).client_state(view, CLIENT), keeper(chain).store(view, CLIENT)
    now, ours = chain.clock, (1, view.height)
    proof = _merkle_proof(ops).SerializeToString()
    tendermint.verify_membership(cs, store, (1, 11), 0, 0, proof, (b"ibc", path), value, now, ours)
    tendermint.verify_non_membership(cs, store, (1, 11), 0, 0, _merkle_proof(absent_ops).SerializeToString(),
                                     (b"ibc", b"clients/07-tendermint-5/clientState"), now, ours)
    cases = [
        (((1, 11), 0, 0, proof, (b"ibc", path), value + b"!"), ("commitment", 2, "chained membership proof failed")),
        (((1, 11), 0, 0, proof, (b"transfer", path), value), ("commitment", 2, "chained membership proof failed")),
        (((1, 12), 0, 0, proof, (b"ibc", path), value), ("ibc", 9, "client state height < proof height ({1 11} < "
                                                                   "{1 12})")),
        (((1, 11), 60 * SECOND, 0, proof, (b"ibc", path), value), ("07-tendermint", 10, "cannot verify packet until "
                                                                                        "time")),
        (((1, 11), 0, 5, proof, (b"ibc", path), value), ("07-tendermint", 10, "cannot verify packet until height: "
                                                                              f"1-{view.height + 5}")),
        (((1, 10), 0, 0, proof, (b"ibc", path), value), ("commitment", 2, "proof did not commit to expected root")),
        (((1, 11), 0, 0, b"\xff", (b"ibc", path), value), ("commitment", 2, "failed to unmarshal proof"))]
    for args, (codespace, code, text) in cases:
        with pytest.raises(TxError) as raised:
            tendermint.verify_membership(cs, store, *args, now, ours)
        found = raised.value
        assert (found.codespace, found.code) == (codespace, code) and text in found.log, found


def _gov(chain, url, message):
    return through_gov(chain, m.pack(url, message))


def test_governance_recovers_an_expired_client_and_sets_the_allowed_clients(chain):
    gov = chain.b32(GOV)
    slow = {"trusting": 60 * SECOND, "unbonding": 120 * SECOND}
    old = signed_header(10, chain.clock - 55 * SECOND, A, A, None)
    assert deliver(chain, m.create(chain.me, m.client_state(10, **slow), m.consensus_state(old))).code == 0
    run(chain, [], after_s=10)
    assert keeper(chain).status(chain.app.view(), CLIENT, chain.clock) == "Expired"
    fresh = signed_header(30, chain.clock - SECOND, A, A, None, app_hash=b"\x30" * 32)
    assert deliver(chain, m.create(chain.me, m.client_state(30, **slow), m.consensus_state(fresh))).code == 0
    recover = m.tx_pb2.MsgRecoverClient(subject_client_id=CLIENT, substitute_client_id="07-tendermint-1",
                                        signer=chain.me)
    _refused(chain, ("/ibc.core.client.v1.MsgRecoverClient", recover), "ibc", 2, f"expected {gov}, got {chain.me}")
    same = m.tx_pb2.MsgRecoverClient(subject_client_id=CLIENT, substitute_client_id=CLIENT, signer=chain.me)
    _refused(chain, ("/ibc.core.client.v1.MsgRecoverClient", same), "client", 27,
             "subject and substitute clients must be different")
    recover.signer = gov
    assert _gov(chain, "/ibc.core.client.v1.MsgRecoverClient", recover)["proposal_result"] == "proposal_passed"
    view = chain.app.view()
    assert keeper(chain).status(view, CLIENT, chain.clock) == "Active"
    assert keeper(chain).client_state(view, CLIENT).latest_height == m.height(30)
    assert keeper(chain).store(view, CLIENT).consensus_state((1, 30)) == m.consensus_state(fresh)

    params = m.tx_pb2.MsgUpdateParams(signer=gov, params=m.client_pb2.Params(allowed_clients=["06-solomachine"]))
    assert _gov(chain, "/ibc.core.client.v1.MsgUpdateParams", params)["proposal_result"] == "proposal_passed"
    assert keeper(chain).status(chain.app.view(), CLIENT, chain.clock) == "Unauthorized"
    _refused(chain, m.create(chain.me, m.client_state(10), m.consensus_state(fresh)), "client", 10,
             "client state type 07-tendermint is not registered in the allowlist")
    twice = m.tx_pb2.MsgUpdateParams(signer=chain.me, params=m.client_pb2.Params(allowed_clients=["*", "*"]))
    _refused(chain, ("/ibc.core.client.v1.MsgUpdateParams", twice), "undefined", 1,
             "allow list must have only one element")


def test_this_chain_as_a_counterpartys_client_sees_it(chain):
    for _ in range(3):
        run(chain, [])
    view = chain.app.view()
    height = view.height - 1
    header = chain.app.block_at(height)[0]
    ours = keeper(chain).self_consensus_state(view, (1, height))
    assert ours.root.hash == header.app_hash == chain.app.store_version(height - 1).hash()
    assert ours.timestamp.ToNanoseconds() == header.time_ns
    assert ours.next_validators_hash == header.next_validators_hash
    for asked, (codespace, code, text) in [
            ((2, height), ("client", 26, "chainID revision number does not match height revision number: expected "
                                         "1, got 2")),
            ((1, view.height + 1), ("staking", 38, f"height {view.height + 1}: no historical info found"))]:
        with pytest.raises(TxError) as raised:
            keeper(chain).self_consensus_state(view, asked)
        assert (raised.value.codespace, raised.value.code) == (codespace, code) and text in raised.value.log

    unbonding = staking_params(view).unbonding_time_ns
    good = dict(chain_id=chain.genesis.chain_id, unbonding=unbonding, trusting=unbonding * 2 // 3)
    self_client.validate(chain.genesis.chain_id, view, view.height + 1, m.client_state(height, **good))
    frozen = m.client_state(height, **good)
    frozen.frozen_height.CopyFrom(m.height(1, 0))
    for cs, text in [
            (frozen, "light client is frozen due to misbehaviour"),
            (m.client_state(height, **{**good, "chain_id": "other_9-1"}), "invalid chain-id. expected: "),
            (m.client_state(view.height + 1, **good), f"client has LatestHeight {{1 {view.height + 1}}} greater than "
                                                      f"or equal to chain height {{1 {view.height + 1}}}"),
            (m.client_state(height, **good, specs=SDK_SPECS[:1]), "client has invalid proof specs"),
            (m.client_state(height, **{**good, "unbonding": unbonding + SECOND}), "invalid unbonding period. "
                                                                               "expected: 504h0m0s, got: 504h0m1s"),
            (m.client_state(height, **good, upgrade_path=("upgrade", "other")), "upgrade path must be the upgrade "
                                                                                "path defined by upgrade module")]:
        with pytest.raises(TxError) as raised:
            self_client.validate(chain.genesis.chain_id, view, view.height + 1, cs)
        assert raised.value.codespace == "client" and text in raised.value.log, raised.value.log
