"""cosmos.consensus.v1.Query/Params over gRPC, REST and abci_query: the genesis consensus params, which cosmpy's
default gas strategy reads (block.max_gas) to clip its estimates."""

import base64

import pytest_twisted

from chaind.pb.cosmos.consensus.v1 import query_pb2 as consensus_q
from chaind.pb.cosmos.consensus.v1 import query_pb2_grpc as consensus_grpc
from helpers import call, comet, in_thread, rest


@pytest_twisted.inlineCallbacks
def test_consensus_params_everywhere(node):
    genesis = node.genesis.document["consensus_params"]
    params, headers = yield call(node, consensus_grpc.QueryStub, "Params", consensus_q.QueryParamsRequest())
    p = params.params
    assert (p.block.max_bytes, p.block.max_gas) == (int(genesis["block"]["max_bytes"]),
                                                    int(genesis["block"]["max_gas"])) and p.block.max_gas > 0
    assert p.evidence.max_age_num_blocks == int(genesis["evidence"]["max_age_num_blocks"])
    assert p.evidence.max_age_duration.ToNanoseconds() == int(genesis["evidence"]["max_age_duration"])
    assert list(p.validator.pub_key_types) == ["ed25519"] and p.HasField("version") and p.HasField("abci")
    assert headers["x-cosmos-block-height"] == str(node.app.height)

    status, headers, body = yield rest(node, "/cosmos/consensus/v1/params", height=node.app.height)
    assert status == 200 and body == {"params": {
        "block": {"max_bytes": genesis["block"]["max_bytes"], "max_gas": genesis["block"]["max_gas"]},
        "evidence": {"max_age_num_blocks": genesis["evidence"]["max_age_num_blocks"],
                     "max_age_duration": f"{int(genesis['evidence']['max_age_duration']) // 10**9}s",
                     "max_bytes": genesis["evidence"]["max_bytes"]},
        "validator": {"pub_key_types": ["ed25519"]}, "version": {"app": "0"},
        "abci": {"vote_extensions_enable_height": "0"}}}

    reply = yield in_thread(comet, node, "abci_query", path="/cosmos.consensus.v1.Query/Params", data="")
    answer = reply["result"]["response"]
    assert answer["code"] == 0 and int(answer["height"]) >= 1
    assert consensus_q.QueryParamsResponse.FromString(base64.b64decode(answer["value"])) == params
