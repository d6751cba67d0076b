"""IBC 03-connection with a running node as chain A and an in-process chain B: the relayer reads A's headers over
/commit and /validators and A's connection end with abci_query /store/ibc/key prove=true, sends A's steps as signed
txs over gRPC BroadcastTx, and the connection opens on both; A answers it over gRPC, REST and `chaind q ibc
connection`, whose proven answer verifies against the app hash of the next block."""

import base64
import types

import pytest_twisted

import ibc_chains as ic
from chaind.pb.ibc.core.commitment.v1 import commitment_pb2
from chaind.pb.ibc.core.connection.v1 import connection_pb2 as pb
from chaind.pb.ibc.core.connection.v1 import query_pb2, query_pb2_grpc
from chaind.store import commitment
from cli_driver import failed, js, node_flag, run
from helpers import b32, call, rest
from ibc_node import CLIENT, VERSION, open_connection


@pytest_twisted.inlineCallbacks
def test_a_node_opens_a_connection_with_another_chain_and_answers_for_it(node, tmp_path):
    b = ic.IbcChain(tmp_path / "b", "chainb_9001-1")
    a = types.SimpleNamespace(relayer=b32(node, node.dev_keys[1].address))
    try:
        yield open_connection(node, b, a)
    finally:
        b.close()

    # A answers for its end over gRPC, REST and the CLI.
    found, _ = yield call(node, query_pb2_grpc.QueryStub, "Connection",
                          query_pb2.QueryConnectionRequest(connection_id="connection-0"))
    assert found.connection.state == pb.STATE_OPEN and found.connection.counterparty.connection_id == "connection-0"
    status, _, body = yield rest(node, "/ibc/core/connection/v1/connections/connection-0")
    assert status == 200 and body["connection"]["state"] == "STATE_OPEN"
    assert body["connection"]["counterparty"]["prefix"]["key_prefix"] == base64.b64encode(b"ibc").decode()
    status, _, body = yield rest(node, f"/ibc/core/connection/v1/client_connections/{CLIENT}")
    assert (status, body["connection_paths"]) == (200, ["connection-0"])
    status, _, body = yield rest(node, "/ibc/core/connection/v1/connections/connection-0/client_state")
    assert status == 200 and body["identified_client_state"]["client_state"]["chain_id"] == "chainb_9001-1"
    status, _, body = yield rest(node, "/ibc/core/connection/v1/connections/connection-9")
    assert status == 404 and "connection-9: connection not found" in body["message"]
    n = node_flag(node)
    head = node.app.height
    shown = js((yield run("q", "ibc", "connection", "end", "connection-0", n, "--height", head, "-o", "json")))
    assert shown["connection"]["state"] == "STATE_OPEN" and shown["proof_height"]["revision_height"] == str(head)
    end = pb.ConnectionEnd(client_id=CLIENT, versions=[VERSION], state=pb.STATE_OPEN,
                           counterparty=ic.counterparty(CLIENT, "connection-0"))
    cli_proof = commitment_pb2.MerkleProof.FromString(base64.b64decode(shown["proof"]))
    commitment.verify_membership(commitment.SDK_SPECS, node.app.block_at(head)[0].app_hash, cli_proof.proofs,
                                 (b"ibc", b"connections/connection-0"), end.SerializeToString())
    shown = js((yield run("q", "ibc", "connection", "path", CLIENT, n, "-o", "json")))
    assert shown["connection_paths"] == ["connection-0"] and shown["proof"]
    shown = js((yield run("q", "ibc", "connection", "connections", n, "-o", "json")))
    assert [c["id"] for c in shown["connections"]] == ["connection-0"]
    assert js((yield run("q", "ibc", "connection", "params", n, "-o", "json"))) == {
        "max_expected_time_per_block": "30000000000"}
    failed((yield run("q", "ibc", "connection", "end", "connection-9", n)), "connection-9: connection not found")
