"""LegacyDec fields (cosmossdk.io/math): the scaled integer on the gRPC wire, a decimal with 18 places in the REST
gateway's JSON, both ways (answers out, POST bodies in), as the SDK's gogoproto gateway converts them."""

import pytest
import pytest_twisted
from google.protobuf import json_format

import staking_msgs as m
from chaind.chain import txs
from chaind.chain.legacy_dec import text_of_wire as decimal_text
from chaind.chain.legacy_dec import wire_of_text as decimal_atomics
from chaind.pb.cosmos.staking.v1beta1 import query_pb2 as staking_q
from chaind.pb.cosmos.staking.v1beta1 import query_pb2_grpc as staking_grpc
from chaind.pb.cosmos.staking.v1beta1 import tx_pb2
from chaind.pb.cosmos.tx.v1beta1 import tx_pb2 as cosmos_tx
from chaind.pb.ethermint.feemarket.v1 import query_pb2 as fm_q
from chaind.pb.ethermint.feemarket.v1 import query_pb2_grpc as fm_grpc
from chaind.pb.rest_routes import DECIMALS
from chaind.rest import gateway, gogojson
from helpers import call, rest
from native_txs import build_native

ONE = 10**18


def test_the_proto_step_collects_the_legacy_dec_fields_and_no_int():
    assert {"cosmos.staking.v1beta1.Validator.delegator_shares", "cosmos.staking.v1beta1.CommissionRates.rate",
            "cosmos.staking.v1beta1.Delegation.shares", "cosmos.staking.v1beta1.Params.min_commission_rate",
            "ethermint.feemarket.v1.Params.min_gas_price", "cosmos.base.v1beta1.DecCoin.amount"} <= DECIMALS
    # math.Int fields are integer strings in both forms.
    assert not {"cosmos.staking.v1beta1.Validator.tokens", "cosmos.base.v1beta1.Coin.amount",
                "ethermint.feemarket.v1.Params.base_fee"} & DECIMALS


def test_decimal_text_and_atomics_as_math_dec_go():
    assert decimal_text(str(320 * ONE)) == "320.000000000000000000"
    assert decimal_text("5") == "0.000000000000000005" and decimal_text("-15" + "0" * 17) == "-1.500000000000000000"
    assert decimal_text("") == "0"       # a nil LegacyDec
    assert decimal_atomics("0.1") == str(ONE // 10) and decimal_atomics("-2") == str(-2 * ONE)
    assert decimal_atomics("320.000000000000000000") == str(320 * ONE) and decimal_atomics("0") == "0"
    for bad, message in (("", "decimal string cannot be empty"), ("1.", "invalid decimal length"),
                         (".5", "invalid decimal length"), ("1.2.3", "invalid decimal string"),
                         ("0." + "1" * 19, "exceeds max precision by -1 decimal places"),
                         ("1e5", "failed to set decimal string with base 10"),
                         (str(2**320), "out of range"), (5, "must be a JSON string")):
        with pytest.raises(ValueError, match=message):
            decimal_atomics(bad)


def test_decimals_inside_an_any_are_converted_both_ways():
    _, create = m.create("chain", b"\x01" * 20, b"\x02" * 32, ONE, rate=ONE // 4)
    tx = cosmos_tx.Tx(body=cosmos_tx.TxBody(messages=[txs._any(m.CREATE, create)]))
    body = gogojson.to_dict(tx)
    assert body["body"]["messages"][0]["commission"]["rate"] == "0.250000000000000000"
    assert body["body"]["messages"][0]["commission"]["max_rate"] == "0.200000000000000000"
    # And back, camelCase as cosmpy's MessageToDict sends it.
    camel = json_format.MessageToDict(tx)
    camel["body"]["messages"][0]["commission"]["maxChangeRate"] = "0.01"
    camel["body"]["messages"][0]["commission"]["rate"] = "0.25"
    camel["body"]["messages"][0]["commission"]["maxRate"] = "0.2"
    parsed = gateway._request_message(cosmos_tx.Tx, camel, {}, {})
    unpacked = tx_pb2.MsgCreateValidator()
    parsed.body.messages[0].Unpack(unpacked)
    assert unpacked.commission == create.commission


@pytest_twisted.inlineCallbacks
def test_rest_prints_decimals_where_grpc_carries_atomics(node):
    params, _ = yield call(node, fm_grpc.QueryStub, "Params", fm_q.QueryParamsRequest())
    assert (params.params.min_gas_multiplier, params.params.min_gas_price) == (str(ONE // 2), "0")
    _, _, body = yield rest(node, "/evmos/feemarket/v1/params")
    assert body["params"]["min_gas_multiplier"] == "0.500000000000000000"
    assert body["params"]["min_gas_price"] == "0.000000000000000000"
    assert body["params"]["base_fee"] == params.params.base_fee          # math.Int: as on the wire

    validators, _ = yield call(node, staking_grpc.QueryStub, "Validators", staking_q.QueryValidatorsRequest())
    v = validators.validators[0]
    assert int(v.delegator_shares) == int(v.tokens) * ONE                # atomics on the wire
    _, _, body = yield rest(node, f"/cosmos/staking/v1beta1/validators/{v.operator_address}")
    shown = body["validator"]
    assert shown["delegator_shares"] == f"{v.tokens}.000000000000000000" and shown["tokens"] == v.tokens
    rates = v.commission.commission_rates
    assert shown["commission"]["commission_rates"] == {
        "rate": decimal_text(rates.rate), "max_rate": decimal_text(rates.max_rate),
        "max_change_rate": decimal_text(rates.max_change_rate)}
    assert "." not in rates.rate and shown["commission"]["commission_rates"]["rate"][-19] == "."
    _, _, body = yield rest(node, f"/cosmos/staking/v1beta1/validators/{v.operator_address}/delegations")
    assert body["delegation_responses"][0]["delegation"]["shares"].endswith(".000000000000000000")
    _, _, body = yield rest(node, "/cosmos/staking/v1beta1/params")
    assert body["params"]["min_commission_rate"] == "0.000000000000000000"


@pytest_twisted.inlineCallbacks
def test_post_bodies_give_decimals_that_reach_the_servicer_as_atomics(node):
    key = node.dev_keys[1]
    prefix = node.genesis.bech32_prefix
    _, pubkey = m.new_consensus_key()
    message = m.create(prefix, key.address, pubkey, ONE)
    view = node.app.view()
    number, _ = node.app.keepers["auth"].account(view, key.address)
    raw = build_native([message], key, node.genesis.chain_id, number, view.accounts.get_nonce(key.address), [],
                       400000)
    signed = cosmos_tx.TxRaw.FromString(raw)
    tx = cosmos_tx.Tx(body=cosmos_tx.TxBody.FromString(signed.body_bytes),
                      auth_info=cosmos_tx.AuthInfo.FromString(signed.auth_info_bytes), signatures=signed.signatures)
    body = json_format.MessageToDict(tx)
    body["body"]["messages"][0]["commission"] = {"rate": "0.1", "maxRate": "0.2", "maxChangeRate": "0.01"}
    status, _, answer = yield rest(node, "/cosmos/tx/v1beta1/simulate", {"tx": body})
    assert status == 200, answer
    assert int(answer["gas_info"]["gas_used"]) > 0
    # A rate the SDK cannot hold: refused before any servicer runs.
    body["body"]["messages"][0]["commission"]["rate"] = "0.1234567890123456789"
    status, _, answer = yield rest(node, "/cosmos/tx/v1beta1/simulate", {"tx": body})
    assert status == 400 and answer["code"] == 3 and "exceeds max precision" in answer["message"]
