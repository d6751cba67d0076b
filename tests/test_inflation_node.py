"""Epochs and inflation on a running dev node: within seconds of start the 10-second `dev` epoch ends, supply
grows by Evmos' provision, and gRPC, REST and the CLI agree on the epoch and the inflation figures."""


import pytest
import pytest_twisted

from chaind.chain.modules.staking import dec_quo
from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bq
from chaind.pb.cosmos.bank.v1beta1 import query_pb2_grpc as bq_grpc
from chaind.pb.evmos.epochs.v1 import query_pb2 as eq
from chaind.pb.evmos.epochs.v1 import query_pb2_grpc as eq_grpc
from chaind.pb.evmos.inflation.v1 import query_pb2 as iq
from chaind.pb.evmos.inflation.v1 import query_pb2_grpc as iq_grpc
from cli_driver import js, node_flag, run
from helpers import call, rest, until_block
from staking_driver import FIRST_PROVISION


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_supply_grows_within_seconds_and_every_face_agrees(node_factory):
    node = node_factory(chain={"block_interval": 0.2, "empty_blocks": True})
    yield until_block(node, lambda: [e for h in range(1, node.app.height + 1) for e in node.app.finalize_info(h)[0]
                                     if e.type == "inflation"], "an epoch to end and mint", timeout=40)
    minted_at = next(h for h in range(1, node.app.height + 1)
                     if any(e.type == "inflation" for e in node.app.finalize_info(h)[0]))
    supplies = []
    for h in (minted_at - 1, minted_at):
        found, _ = yield call(node, bq_grpc.QueryStub, "SupplyOf", bq.QuerySupplyOfRequest(denom="achain"), height=h)
        supplies.append(int(found.amount.amount))
    assert supplies[1] - supplies[0] == FIRST_PROVISION

    current, _ = yield call(node, eq_grpc.QueryStub, "CurrentEpoch", eq.QueryCurrentEpochRequest(identifier="dev"),
                            height=minted_at)
    assert current.current_epoch == 2
    missing, _ = yield call(node, eq_grpc.QueryStub, "CurrentEpoch", eq.QueryCurrentEpochRequest(identifier="x"))
    assert missing is None and "epoch info not found: x" in _[1]
    status, _, epochs = yield rest(node, "/evmos/epochs/v1/epochs", height=minted_at)
    assert status == 200 and [e["identifier"] for e in epochs["epochs"]] == ["day", "dev", "week"]
    assert epochs["epochs"][1]["duration"] == "10s" and epochs["epochs"][1]["current_epoch"] == "2"

    provision, _ = yield call(node, iq_grpc.QueryStub, "EpochMintProvision", iq.QueryEpochMintProvisionRequest(),
                              height=minted_at)
    status, _, by_rest = yield rest(node, "/evmos/inflation/v1/epoch_mint_provision", height=minted_at)
    n = node_flag(node)
    by_cli = js((yield run("q", "inflation", "epoch-mint-provision", n, "--height", minted_at, "-o", "json")))
    # v20 reports the minted provision divided by its reduction factor (3) once more.
    assert provision.epoch_mint_provision.denom == "achain"
    assert int(provision.epoch_mint_provision.amount) == dec_quo(FIRST_PROVISION * 10**18, 3 * 10**18)
    text = by_rest["epoch_mint_provision"]["amount"]
    assert status == 200 and int(text.replace(".", "")) == int(provision.epoch_mint_provision.amount)
    assert by_cli["epoch_mint_provision"]["amount"] == text
    period = js((yield run("q", "inflation", "period", n, "-o", "json")))
    params = js((yield run("q", "inflation", "params", n, "-o", "json")))
    rate = js((yield run("q", "inflation", "inflation-rate", n, "-o", "json")))
    supply = js((yield run("q", "inflation", "circulating-supply", n, "--height", minted_at, "-o", "json")))
    assert period["period"] == "0" and params["params"]["mint_denom"] == "achain"
    assert params["params"]["inflation_distribution"]["staking_rewards"] == "0.533333334000000000"
    assert float(rate["inflation_rate"]) > 0
    assert supply["circulating_supply"]["amount"] == f"{supplies[1]}.000000000000000000"
