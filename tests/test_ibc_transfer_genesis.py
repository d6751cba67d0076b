"""ICS-20's genesis and store: app_state.transfer as ibc-go v8.5 exports it (port, denom traces sorted by path,
params, total escrow) after real transfers, a chain started from the export holding the same transfer state, the
section's checks, and the `transfer` IAVL store laid out as ibc-go's keeper writes it, provable against the app
hash."""

import copy

import pytest

from chaind.chain import genesis as genesis_mod
from chaind.chain.app import App
from chaind.chain.genesis import Genesis, GenesisError
from chaind.chain.halt import ChainHalt
from chaind.chain.modules.transfer.denoms import ibc_denom, parse_trace, trace_hash
from chaind.chain.modules.transfer.invariants import total_escrow_per_denom
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.ics23.v1 import proofs_pb2
from chaind.pb.ibc.applications.transfer.v1 import transfer_pb2
from chaind.store import commitment
from chaind.store.db import Database
from ibc_channel_msgs import connected_pair, ok
from ibc_transfer_msgs import b32, open_transfer_channel, relay, signed_block, transfer

DEV_TRACE = {"path": "transfer/channel-0", "base_denom": "uatom"}
PARAMS = {"send_enabled": True, "receive_enabled": True}


@pytest.fixture
def moved(tmp_path):
    """A sent 1000 stake to B over channel-0, relayed and acknowledged."""
    made = connected_pair(tmp_path)
    open_transfer_channel(made)
    relay(made, made.a, made.b, ok(signed_block(made, made.a, [transfer(made.a, "stake", 1000, b32(made.b))])))
    yield made
    made.close()


def test_the_export_holds_the_traces_and_escrow_and_a_chain_started_from_it_has_them(moved, tmp_path):
    a, b = moved.a, moved.b
    doc_a, doc_b = (genesis_mod.export_document(chain.app) for chain in (a, b))
    assert doc_a["app_state"]["transfer"] == {"port_id": "transfer", "denom_traces": [DEV_TRACE], "params": PARAMS,
                                              "total_escrowed": [{"denom": "stake", "amount": "1000"}]}
    assert doc_b["app_state"]["transfer"] == {
        "port_id": "transfer", "params": PARAMS, "total_escrowed": [],
        "denom_traces": [{"path": "transfer/channel-0", "base_denom": "stake"}, DEV_TRACE]}
    for doc, name in ((doc_a, "a2"), (doc_b, "b2")):
        imported = App(Database(tmp_path / name), Genesis.from_document(doc))
        assert genesis_mod.export_document(imported)["app_state"]["transfer"] == doc["app_state"]["transfer"]
        keeper, view = imported.keepers["transfer"], imported.view()
        for module, route, check in imported.keepers["crisis"].routes:
            assert check(imported, view) is None, (module, route)
    assert keeper.denom_trace(view, trace_hash(parse_trace("transfer/channel-0/stake"))) is not None


@pytest.mark.parametrize("change, error", [
    (lambda s: s.update(port_id="a"), "app_state.transfer: port_id: identifier a has invalid length: 1, must be "
     "between 2-128 characters: invalid identifier"),
    (lambda s: s["denom_traces"].append(dict(DEV_TRACE)), "app_state.transfer: denom_traces: duplicated denomination "
     "trace with hash 27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2"),
    (lambda s: s["denom_traces"].append({"path": "transfer", "base_denom": "x"}), "app_state.transfer: denom_traces: "
     "failed denom trace 1 validation: trace info must come in pairs of port and channel identifiers "
     "'{portID}/{channelID}', got the identifiers: [transfer]"),
    (lambda s: s.update(total_escrowed=[{"denom": "stake", "amount": "1"}, {"denom": "achain", "amount": "1"}]),
     "app_state.transfer: total_escrowed: denomination achain is not sorted"),
])
def test_a_section_ibc_go_refuses_is_refused(change, error):
    doc = genesis_mod.dev_template()
    doc = genesis_mod.expand_dev(doc, b"\x01" * 32, "test", 10**18)[0]
    Genesis.from_document(doc)
    section = copy.deepcopy(doc["app_state"]["transfer"])
    change(section)
    doc["app_state"]["transfer"] = section
    with pytest.raises(GenesisError) as refusal:
        Genesis.from_document(doc)
    assert error in str(refusal.value)


def test_the_transfer_store_is_ibc_gos_layout_and_proven_against_the_app_hash(moved):
    a, b = moved.a, moved.b
    digest = trace_hash(parse_trace("transfer/channel-0/stake"))
    expected = {
        b: [(b"\x01", b"transfer"), (b"\x02" + digest, transfer_pb2.DenomTrace(
            path="transfer/channel-0", base_denom="stake").SerializeToString()),
            (b"params", transfer_pb2.Params(send_enabled=True, receive_enabled=True).SerializeToString())],
        a: [(b"totalEscrowForDenom/stake", coin_pb2.IntProto(int="1000").SerializeToString())],
    }
    moved.block(a)          # the next block on each chain commits to the state read below
    for chain, entries in expected.items():
        height = chain.height - 1
        app_hash = chain.app.block_at(height + 1)[0].app_hash
        for key, value in entries:
            found, ops = chain.app.stores.read(chain.app.store_version(height), "transfer", key, True)
            assert found == value
            proofs = [proofs_pb2.CommitmentProof.FromString(op) for _, _, op in ops]
            commitment.verify_membership(commitment.SDK_SPECS, app_hash, proofs, (b"transfer", key), value)
    assert ibc_denom(parse_trace("transfer/channel-0/stake")) == "ibc/" + digest.hex().upper()


def test_the_total_escrow_invariant_catches_escrow_the_accounts_do_not_hold(tmp_path):
    """A genesis claiming 5stake in escrow with no channel holding it breaks ibc-go's total-escrow invariant."""
    doc = genesis_mod.expand_dev(genesis_mod.dev_template(), b"\x01" * 32, "test", 10**18)[0]
    doc["app_state"]["transfer"]["total_escrowed"] = [{"denom": "stake", "amount": "5"}]
    app = App(Database(tmp_path / "claimed"), Genesis.from_document(doc))
    assert total_escrow_per_denom(app, app.view()) == (
        "found denom(s) with total escrow amount lower than expected:\nactual total escrowed: \n"
        "expected total escrowed: 5stake")
    with pytest.raises(ChainHalt, match="transfer: total escrow per denom invariant"):
        app.keepers["crisis"].assert_invariants(app, app.view())
