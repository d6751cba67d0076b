"""x/params' legacy query: each module's current param by subspace and key, in amino JSON, over gRPC, REST and the
CLI; every subspace and its keys; a param a proposal changes reads changed; bad requests carry the SDK's errors."""

import grpc
import pytest_twisted

import gov_msgs as g
from chaind.chain.modules.params.subspaces import SUBSPACES
from chaind.pb.cosmos.params.v1beta1 import query_pb2 as pq
from chaind.pb.cosmos.params.v1beta1 import query_pb2_grpc as pq_grpc
from cli_driver import js, node_flag, run
from gov_driver import address, make_chain
from gov_driver import run as block
from helpers import call, rest


@pytest_twisted.inlineCallbacks
def test_subspace_answers_over_grpc_rest_and_cli(node):
    answer, _ = yield call(node, pq_grpc.QueryStub, "Params", pq.QueryParamsRequest(subspace="staking",
                                                                                       key="MaxValidators"))
    assert (answer.param.subspace, answer.param.key, answer.param.value) == ("staking", "MaxValidators", "100")
    status, _, body = yield rest(node, "/cosmos/params/v1beta1/params?subspace=staking&key=BondDenom")
    assert status == 200 and body == {"param": {"subspace": "staking", "key": "BondDenom", "value": '"achain"'}}
    shown = js((yield run("q", "params", "subspace", "crisis", "ConstantFee", node_flag(node), "-o", "json")))
    assert shown["param"]["value"] == '{"denom":"achain","amount":"1000"}'
    shown = js((yield run("q", "params", "subspace", "feemarket", "MinGasMultiplier", node_flag(node), "-o", "json")))
    assert shown["param"]["value"] == '"0.500000000000000000"'
    spaces, _ = yield call(node, pq_grpc.QueryStub, "Subspaces", pq.QuerySubspacesRequest())
    by_name = {s.subspace: list(s.keys) for s in spaces.subspaces}
    assert by_name["staking"] == ["UnbondingTime", "MaxValidators", "MaxEntries", "HistoricalEntries", "BondDenom",
                                  "MinCommissionRate"]
    assert {"auth", "distribution", "gov", "crisis", "feemarket", "inflation"} <= set(by_name)
    # An unknown key reads as nothing; an unknown subspace and an empty key are refused.
    answer, _ = yield call(node, pq_grpc.QueryStub, "Params", pq.QueryParamsRequest(subspace="staking", key="Nope"))
    assert answer.param.value == ""
    none, (code, message) = yield call(node, pq_grpc.QueryStub, "Params", pq.QueryParamsRequest(subspace="nope",
                                                                                                 key="X"))
    assert none is None and code == grpc.StatusCode.INVALID_ARGUMENT and "nope: unknown subspace" in message
    none, (code, message) = yield call(node, pq_grpc.QueryStub, "Params", pq.QueryParamsRequest(subspace="staking"))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "invalid request" in message


def test_a_param_a_proposal_changes_reads_changed(tmp_path):
    chain = make_chain(tmp_path)
    try:
        assert SUBSPACES["staking"](chain.app, chain.app.view())["MaxValidators"] == "100"
        block(chain, [(1, [(g.SUBMIT, g.submit(chain.prefix, address(chain, 1), [g.staking_params_msg(
            chain.prefix, max_validators=7)]))])])
        block(chain, [(0, [(g.VOTE, g.vote(chain.prefix, address(chain, 0), 1, g.YES))])])
        block(chain, [], after_s=20)
        values = SUBSPACES["staking"](chain.app, chain.app.view())
        assert values["MaxValidators"] == "7" and values["UnbondingTime"] == '"1814400000000000"'
        gov = SUBSPACES["gov"](chain.app, chain.app.view())
        assert gov["votingparams"] == '{"voting_period":"20000000000"}'
    finally:
        chain.close()
