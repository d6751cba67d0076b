"""The x-cosmos-block-height header, as clients read it: header (initial) metadata on answers, on errors,
and at a requested height; calls answered on the gRPC server's event loop and on its threads alike."""

import grpc
import pytest_twisted

from chaind.grpc import header
from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bank_q
from chaind.pb.cosmos.bank.v1beta1 import query_pb2_grpc as bank_grpc
from chaind.pb.cosmos.staking.v1beta1 import query_pb2 as staking_q
from chaind.pb.cosmos.staking.v1beta1 import query_pb2_grpc as staking_grpc
from evm_client import OTHER, send, w3
from helpers import b32, in_thread


def _calls(node, height):
    with grpc.insecure_channel(f"127.0.0.1:{node.port_of('grpc')}") as channel:
        stub = bank_grpc.QueryStub(channel)
        _, ok = stub.AllBalances.with_call(bank_q.QueryAllBalancesRequest(address=b32(node, OTHER)), timeout=10)
        _, past = stub.AllBalances.with_call(bank_q.QueryAllBalancesRequest(address=b32(node, OTHER)), timeout=10,
                                             metadata=(("x-cosmos-block-height", str(height)),))
        try:
            stub.DenomMetadata(bank_q.QueryDenomMetadataRequest(denom="nothing"), timeout=10)
            failed = None
        except grpc.RpcError as e:
            failed = e
        # A list (not inline): answered on the server's thread pool.
        _, listed = staking_grpc.QueryStub(channel).Validators.with_call(
            staking_q.QueryValidatorsRequest(), timeout=10, metadata=(("x-cosmos-block-height", str(height)),))
        return ok, past, failed, listed


@pytest_twisted.inlineCallbacks
def test_height_header_rides_with_answers_and_errors(node):
    receipt = yield in_thread(send, w3(node), {"to": OTHER, "value": 1, "nonce": 0})
    ok, past, failed, listed = yield in_thread(_calls, node, receipt.blockNumber - 1)
    assert node.queries.methods["/cosmos.bank.v1beta1.Query/AllBalances"].inline
    assert not node.queries.methods["/cosmos.staking.v1beta1.Query/Validators"].inline
    assert dict(ok.initial_metadata())["x-cosmos-block-height"] == str(node.app.height)
    assert "x-cosmos-block-height" not in dict(ok.trailing_metadata())
    assert dict(past.initial_metadata())["x-cosmos-block-height"] == str(receipt.blockNumber - 1)
    assert dict(listed.initial_metadata())["x-cosmos-block-height"] == str(receipt.blockNumber - 1)
    assert failed.code() == grpc.StatusCode.NOT_FOUND
    assert dict(failed.initial_metadata()).get("x-cosmos-block-height") == str(node.app.height), (
        failed.initial_metadata(), failed.trailing_metadata())


@pytest_twisted.inlineCallbacks
def test_the_header_goes_in_the_answers_batch_and_without_it_too(node, monkeypatch):
    # On the pinned grpcio the header rides in the batch that ends the call; on any other, in one of its own.
    assert header.installed
    for installed in (True, False):
        monkeypatch.setattr(header, "installed", installed)
        ok, past, failed, listed = yield in_thread(_calls, node, node.app.height)
        assert dict(ok.initial_metadata())["x-cosmos-block-height"] == str(node.app.height)
        assert dict(listed.initial_metadata())["x-cosmos-block-height"] == str(node.app.height)
        assert failed.code() == grpc.StatusCode.NOT_FOUND
        assert dict(failed.initial_metadata()).get("x-cosmos-block-height") == str(node.app.height)
