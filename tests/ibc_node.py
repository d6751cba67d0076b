"""A running node as an IBC chain beside an in-process one: txs sent over gRPC, proofs read by abci_query,
the other chain's block made with the node's header, and the connection handshake between them.
"""

import base64
import time

import pytest_twisted

import ibc_chains as ic
import ibc_client_msgs as m
from chaind.chain.modules.staking.params import params as staking_params
from chaind.pb.cosmos.ics23.v1 import proofs_pb2
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc
from chaind.pb.ibc.core.commitment.v1 import commitment_pb2
from chaind.pb.ibc.core.connection.v1 import connection_pb2 as pb
from cometbft_client import abci_query
from helpers import call, in_thread, until_height, until_tx
from native_txs import build_native

CLIENT = "07-tendermint-0"
VERSION = pb.Version(identifier="1", features=["ORDER_ORDERED", "ORDER_UNORDERED"])


@pytest_twisted.inlineCallbacks
def send(node, message, gas=1_000_000):
    """A signed tx of dev key 1 with `message`, broadcast over gRPC: the height of its block."""
    view, k = node.app.view(), node.dev_keys[1]
    number, _ = node.app.keepers["auth"].account(view, k.address)
    raw = build_native([message], k, node.app.genesis.chain_id, number, view.accounts.get_nonce(k.address),
                       [(node.app.genesis.base_denom, node.app.next_base_fee() * gas)], gas)
    reply, _ = yield call(node, tx_grpc.ServiceStub, "BroadcastTx", tx_service.BroadcastTxRequest(
        tx_bytes=raw, mode=tx_service.BROADCAST_MODE_SYNC))
    assert reply.tx_response.code == 0, reply.tx_response.raw_log
    height, _ = yield until_tx(node, reply.tx_response.txhash)
    result = node.app.result_at(height, node.app.tx_position(bytes.fromhex(reply.tx_response.txhash))[1])
    assert result.code == 0, result.log
    return height


@pytest_twisted.inlineCallbacks
def node_proof(node, path, height):
    """(value, MerkleProof bytes) of the node's ibc store's `path` after block `height`, over abci_query."""
    answer = yield abci_query(node, "/store/ibc/key", path.encode(), height=height, prove=True)
    proof = commitment_pb2.MerkleProof(proofs=[proofs_pb2.CommitmentProof.FromString(base64.b64decode(op["data"]))
                                               for op in answer["proofOps"]["ops"]])
    return base64.b64decode(answer.get("value") or ""), proof.SerializeToString()


def b_block(b, messages=()):
    r = b.block(max(time.time_ns(), b.app.block_at(b.height)[0].time_ns + 1), messages)
    assert r is None or r.code == 0, r.log
    return r


@pytest_twisted.inlineCallbacks
def proven_on_b(node, b, path, height):
    """(proof, proof height) of A's `path` after block `height`, B's client of A updated to block height + 1."""
    _, proof = yield node_proof(node, path, height)
    yield in_thread(ic.mine, node)
    yield until_height(node, height + 1)
    trusted = b.app.keepers["ibc_client"].client_state(b.app.view(), CLIENT).latest_height.revision_height
    header = yield in_thread(ic.node_header, node, height + 1, trusted)
    b_block(b, [m.update(b.relayer, CLIENT, header)])
    return proof, m.height(height + 1)


@pytest_twisted.inlineCallbacks
def open_connection(node, b, a):
    """Clients of each other on the node (A) and B, and connection-0 opened on both with proofs."""
    b_block(b)
    # Each chain's client of the other, A's from B's latest header, B's from A's (read over RPC).
    yield send(node, m.create(a.relayer, b.client_state(b.height), b.consensus_state(b.height)))
    height = node.app.height
    header = yield in_thread(ic.node_header, node, height, height - 1)
    cs = b.client_state(height)
    cs.chain_id = node.app.genesis.chain_id
    cs.unbonding_period.CopyFrom(m.duration(staking_params(node.app.view()).unbonding_time_ns))
    b_block(b, [m.create(b.relayer, cs, m.consensus_state(header.signed_header))])

    # Init on A; Try on B with A's end proven over abci_query.
    height = yield send(node, ic.open_init(a, CLIENT, CLIENT))
    proof, proof_height = yield proven_on_b(node, b, "connections/connection-0", height)
    b_block(b, [ic.open_try(b, CLIENT, ic.counterparty(CLIENT, "connection-0"), [VERSION], proof, proof_height)])

    # Ack on A with B's TRYOPEN end proven, A's client of B updated first.
    _, proof = b.proof("connections/connection-0", b.height)
    b_block(b)
    trusted = node.app.keepers["ibc_client"].client_state(node.app.view(), CLIENT).latest_height.revision_height
    yield send(node, m.update(a.relayer, CLIENT, b.header(b.height, trusted)))
    height = yield send(node, ic.open_ack(a, "connection-0", "connection-0", VERSION, proof, m.height(b.height)))

    # Confirm on B with A's OPEN end proven.
    proof, proof_height = yield proven_on_b(node, b, "connections/connection-0", height)
    b_block(b, [ic.open_confirm(b, "connection-0", proof, proof_height)])
    assert b.app.keepers["ibc_connection"].connection(b.app.view(), "connection-0").state == pb.STATE_OPEN
