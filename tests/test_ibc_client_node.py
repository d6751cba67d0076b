"""IBC 02-client on a running node: MsgCreateClient and MsgUpdateClient sent as signed native txs over gRPC
BroadcastTx, the client read back over gRPC, REST and `chaind q ibc client`, and its stored client state proven
(abci_query /store/ibc/key with prove=true, and the CLI's --prove answer, as ibc-go's CLI makes it) against the
app hash of the next block with ibc-go's chained MerkleProof check."""

import base64
import json
import time
import urllib.request

import pytest_twisted

import ibc_client_msgs as m
from chaind.cli import protojson
from chaind.pb.cosmos.ics23.v1 import proofs_pb2
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc
from chaind.pb.ibc.core.client.v1 import query_pb2, query_pb2_grpc
from chaind.pb.ibc.core.commitment.v1 import commitment_pb2
from chaind.store import commitment
from cli_driver import failed, js, node_flag, ok, run, send_tx
from cometbft_client import abci_query
from helpers import b32, call, in_thread, rest, until_height, until_tx, url
from light_headers import SECOND, key, signed_header, validator_set
from native_txs import build_native

CLIENT = "07-tendermint-0"
A = validator_set([key(i) for i in range(4)])


def signed_tx(node, who, message, gas=400000):
    view = node.app.view()
    k = node.dev_keys[who]
    number, _ = node.app.keepers["auth"].account(view, k.address)
    return build_native([message], k, node.app.genesis.chain_id, number, view.accounts.get_nonce(k.address),
                        [(node.app.genesis.base_denom, node.app.next_base_fee() * gas)], gas)


@pytest_twisted.inlineCallbacks
def broadcast(node, who, message):
    reply, _ = yield call(node, tx_grpc.ServiceStub, "BroadcastTx", tx_service.BroadcastTxRequest(
        tx_bytes=signed_tx(node, who, message), mode=tx_service.BROADCAST_MODE_SYNC))
    assert reply.tx_response.code == 0, reply.tx_response.raw_log
    height, _ = yield until_tx(node, reply.tx_response.txhash)
    return height


def mine(node):
    """One more block (evm_mine): the node makes blocks on demand."""
    request = urllib.request.Request(url(node), headers={"content-type": "application/json"}, data=json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "evm_mine", "params": []}).encode())
    with urllib.request.urlopen(request, timeout=20) as response:
        assert "error" not in json.loads(response.read())


@pytest_twisted.inlineCallbacks
def test_a_client_created_and_updated_by_txs_is_queried_and_proven(node):
    signer = b32(node, node.dev_keys[1].address)
    t0 = time.time_ns() - 100 * SECOND
    h10 = signed_header(10, t0, A, A, None)
    yield broadcast(node, 1, m.create(signer, m.client_state(10), m.consensus_state(h10)))
    h11 = signed_header(11, t0 + 5 * SECOND, A, A, None, app_hash=b"\x11" * 32)
    height = yield broadcast(node, 1, m.update(signer, CLIENT, m.header(h11, A, 10, A)))

    found, _ = yield call(node, query_pb2_grpc.QueryStub, "ClientState",
                          query_pb2.QueryClientStateRequest(client_id=CLIENT))
    assert found.client_state.type_url == "/ibc.lightclients.tendermint.v1.ClientState"
    assert found.client_state.value == m.client_state(11).SerializeToString()
    heights, _ = yield call(node, query_pb2_grpc.QueryStub, "ConsensusStateHeights",
                            query_pb2.QueryConsensusStateHeightsRequest(client_id=CLIENT))
    assert [(h.revision_number, h.revision_height) for h in heights.consensus_state_heights] == [(1, 10), (1, 11)]
    missing, _ = yield call(node, query_pb2_grpc.QueryStub, "ClientState",
                            query_pb2.QueryClientStateRequest(client_id="07-tendermint-7"))
    assert missing is None
    status, _, body = yield rest(node, f"/ibc/core/client/v1/client_status/{CLIENT}")
    assert (status, body) == (200, {"status": "Active"})
    status, _, body = yield rest(node, f"/ibc/core/client/v1/consensus_states/{CLIENT}/revision/1/height/11")
    assert status == 200 and body["consensus_state"]["root"]["hash"] == base64.b64encode(b"\x11" * 32).decode()
    assert body["proof_height"]["revision_height"] == str(int(body["proof_height"]["revision_height"]))

    # The relayer's proof: the key's value in the ibc store at `height`, then that store in the app hash, which
    # the header of height + 1 carries.
    path = f"clients/{CLIENT}/clientState".encode()
    answer = yield abci_query(node, "/store/ibc/key", path, height=height, prove=True)
    value = base64.b64decode(answer["value"])
    assert value == m.pack("/ibc.lightclients.tendermint.v1.ClientState", m.client_state(11)).SerializeToString()
    proof = commitment_pb2.MerkleProof(proofs=[proofs_pb2.CommitmentProof.FromString(base64.b64decode(op["data"]))
                                               for op in answer["proofOps"]["ops"]])
    yield in_thread(mine, node)
    yield until_height(node, height + 1)
    app_hash = node.app.block_at(height + 1)[0].app_hash
    commitment.verify_membership(commitment.SDK_SPECS, app_hash, proof.proofs, (b"ibc", path), value)
    try:
        commitment.verify_membership(commitment.SDK_SPECS, app_hash, proof.proofs, (b"ibc", path), value + b"\x00")
    except commitment.CommitmentError as error:
        assert error.code == commitment.INVALID_PROOF
    else:
        raise AssertionError("a changed value verified")

    # The CLI's answers, as ibc-go's: the state with its proof and proof height, the heights, the status.
    n = node_flag(node)
    shown = js((yield run("q", "ibc", "client", "state", CLIENT, n, "--height", height + 1, "-o", "json")))
    assert shown["proof_height"] == {"revision_number": "1", "revision_height": str(height + 1)}
    assert shown["client_state"]["@type"] == "/ibc.lightclients.tendermint.v1.ClientState"
    assert shown["client_state"]["latest_height"] == {"revision_number": "1", "revision_height": "11"}
    cli_proof = commitment_pb2.MerkleProof.FromString(base64.b64decode(shown["proof"]))
    commitment.verify_membership(commitment.SDK_SPECS, app_hash, cli_proof.proofs, (b"ibc", path), value)
    shown = js((yield run("q", "ibc", "client", "consensus-state", CLIENT, "1-11", n, "-o", "json")))
    assert shown["consensus_state"]["root"]["hash"] == base64.b64encode(b"\x11" * 32).decode() and shown["proof"]
    shown = js((yield run("q", "ibc", "client", "consensus-state", CLIENT, "--latest-height", "--prove=false", n,
                          "-o", "json")))
    assert shown["consensus_state"]["root"]["hash"] == base64.b64encode(b"\x11" * 32).decode()
    shown = js((yield run("q", "ibc", "client", "consensus-state-heights", CLIENT, n, "-o", "json")))
    assert [h["revision_height"] for h in shown["consensus_state_heights"]] == ["10", "11"]
    assert js((yield run("q", "ibc", "client", "status", CLIENT, n, "-o", "json"))) == {"status": "Active"}
    assert js((yield run("q", "ibc", "client", "params", n, "-o", "json"))) == {"params": {"allowed_clients": ["*"]}}
    assert [c["client_id"] for c in js((yield run("q", "ibc", "client", "states", n, "-o", "json")))[
        "client_states"]] == [CLIENT]
    failed((yield run("q", "ibc", "client", "state", "07-tendermint-7", n)), "07-tendermint-7: light client not found")
    failed((yield run("q", "ibc", "client", "consensus-state", CLIENT, n)), "must include a second 'height' argument")


@pytest_twisted.inlineCallbacks
def test_clients_made_updated_and_frozen_through_the_cli(node, tmp_path):
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    ok((yield run("keys", "import-hex", "relayer", node.dev_keys[2].private_key.hex(), *keys)))
    t0 = time.time_ns() - 100 * SECOND
    h10 = signed_header(10, t0, A, A, None)
    files = {"cs.json": m.pack("/ibc.lightclients.tendermint.v1.ClientState", m.client_state(10)),
             "cons.json": m.pack("/ibc.lightclients.tendermint.v1.ConsensusState", m.consensus_state(h10))}
    for name, message in files.items():
        (tmp_path / name).write_text(json.dumps(protojson.to_dict(message)))
    made = yield send_tx(n, keys, "ibc", "client", "create", tmp_path / "cs.json", tmp_path / "cons.json",
                         "--from", "relayer")
    assert [a["value"] for e in made["events"] if e["type"] == "create_client" for a in e["attributes"]
            if a["key"] == "client_id"] == [CLIENT]
    h11 = signed_header(11, t0 + 5 * SECOND, A, A, None)
    inline = json.dumps(protojson.to_dict(m.pack("/ibc.lightclients.tendermint.v1.Header", m.header(h11, A, 10, A))))
    yield send_tx(n, keys, "ibc", "client", "update", CLIENT, inline, "--from", "relayer")
    shown = js((yield run("q", "ibc", "client", "consensus-state-heights", CLIENT, n, "-o", "json")))
    assert [h["revision_height"] for h in shown["consensus_state_heights"]] == ["10", "11"]

    one = signed_header(15, t0 + 9 * SECOND, A, A, None, app_hash=b"\x01" * 32)
    two = signed_header(15, t0 + 9 * SECOND, A, A, None, app_hash=b"\x02" * 32)
    evidence = m.tm.Misbehaviour(header_1=m.header(one, A, 11, A), header_2=m.header(two, A, 11, A))
    (tmp_path / "mb.json").write_text(json.dumps(protojson.to_dict(
        m.pack("/ibc.lightclients.tendermint.v1.Misbehaviour", evidence))))
    yield send_tx(n, keys, "ibc", "client", "misbehaviour", CLIENT, tmp_path / "mb.json", "--from", "relayer")
    assert js((yield run("q", "ibc", "client", "status", CLIENT, n, "-o", "json"))) == {"status": "Frozen"}
    failed((yield run("tx", "ibc", "client", "update", CLIENT, tmp_path / "none.json", "--from", "relayer", n,
                      *keys)), "neither JSON input nor path to .json file for header were provided")
