"""x/feemarket as Evmos v20: the block gas (gas wanted times min_gas_multiplier, or gas used if more) is what the
block_gas event, BlockGas and the next base fee agree on; min_gas_price refuses EVM and native txs below it with
Evmos' texts and floors the base fee; MsgUpdateParams through a proposal changes the params."""

import json

import pytest
import pytest_twisted
from eth_account import Account
from google.protobuf import any_pb2

import gov_msgs as g
from chain_driver import Chain
from chaind.chain import errors, legacy_dec, txs
from chaind.home import Home
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.ethermint.feemarket.v1 import feemarket_pb2
from chaind.pb.ethermint.feemarket.v1 import query_pb2 as fq
from chaind.pb.ethermint.feemarket.v1 import query_pb2_grpc as fq_grpc
from chaind.pb.ethermint.feemarket.v1 import tx_pb2 as fm_tx
from evm_client import OTHER, rpc, send, w3
from gov_driver import address, make_chain
from gov_driver import run as block
from helpers import call, comet, in_thread
from native_txs import build_native

GWEI = 10**9


def home_with(tmp_path, **params):
    home = Home(tmp_path / "home")
    home.init("test", dev=True)
    doc = json.loads(home.genesis_file.read_text())
    doc["app_state"]["feemarket"]["params"].update(params)
    home.genesis_file.write_text(json.dumps(doc))
    return home


def evm_raw(chain, who, nonce, **tx):
    tx = {"chainId": 9000, "gas": 21000, "maxFeePerGas": 10**10, "maxPriorityFeePerGas": 1, "nonce": nonce,
          "to": "0x" + "33" * 20, "value": 1, **tx}
    return Account.sign_transaction(tx, chain.keys[who].private_key).raw_transaction


def test_block_gas_drives_the_next_base_fee(tmp_path):
    chain = Chain(tmp_path, "db")
    try:
        chain.block([])
        # Two transfers asking 500,000 gas each and using 21,000: the gas wanted, halved, outweighs the gas used.
        made = chain.block([chain.evm(0, 0, to="0x" + "33" * 20, value=1, gas=500_000),
                            chain.evm(0, 1, to="0x" + "33" * 20, value=1, gas=500_000)])
        assert made.meta.gas_used == 42_000
        assert made.meta.block_gas == 500_000
        [amount] = [v for e in made.events if e.type == "block_gas" for k, v, _ in e.attributes if k == "amount"]
        assert amount == "500000"
        p = chain.app.keepers["feemarket"].params(chain.app.view())
        target = chain.genesis.max_gas // p.elasticity_multiplier
        base = made.meta.base_fee
        expected = base - base * (target - 500_000) // target // p.base_fee_change_denominator
        assert chain.app.next_base_fee() == expected
        assert chain.block([]).meta.base_fee == expected
    finally:
        chain.close()


def test_min_gas_price_refuses_evm_and_native_txs_and_floors_the_base_fee(tmp_path):
    home_with(tmp_path, min_gas_price="2000000000.000000000000000000", base_fee="3000000000")
    chain = Chain(tmp_path, "db")
    try:
        chain.block([])
        # An EIP-1559 tx whose effective price (base fee + tip, under its cap) is below 2 gwei.
        with pytest.raises(errors.TxError) as caught:
            chain.app.check_eth_tx(evm_raw(chain, 0, 0, maxFeePerGas=GWEI + GWEI // 2))
        assert (caught.value.codespace, caught.value.code) == ("sdk", 13)
        assert caught.value.log == ("provided fee < minimum global fee (31500000000000 < 42000000000000). Please "
                                    "increase the priority tip (for EIP-1559 txs) or the gas prices (for access "
                                    "list or legacy txs): insufficient fee")
        legacy = Account.sign_transaction({"chainId": 9000, "gas": 21000, "gasPrice": GWEI, "nonce": 0,
                                           "to": OTHER, "value": 1}, chain.keys[0].private_key).raw_transaction
        with pytest.raises(errors.TxError, match=r"provided fee < minimum global fee \(21000000000000 < "):
            chain.app.check_eth_tx(legacy)
        chain.app.check_eth_tx(evm_raw(chain, 0, 0, maxFeePerGas=10 * GWEI, maxPriorityFeePerGas=GWEI))
        # Native: no fee at all, then a fee under 2 gwei * 200,000.
        view = chain.app.view()
        key = chain.keys[1]
        number, _ = chain.app.keepers["auth"].account(view, key.address)
        msgs = [(txs.MSG_SEND, chain_send(chain, 1))]
        nofee = build_native(msgs, key, chain.genesis.chain_id, number, view.accounts.get_nonce(key.address),
                             [], 200_000)
        with pytest.raises(errors.TxError) as caught:
            chain.app.check_tx(nofee)
        assert caught.value.log == (
            "fee not provided. Please use the --fees flag or the --gas-price flag along with the --gas flag to "
            "estimate the fee. The minimun global fee for this tx is: 400000000000000achain: insufficient fee")
        low = build_native(msgs, key, chain.genesis.chain_id, number, view.accounts.get_nonce(key.address),
                           [("achain", 399_999_999_999_999)], 200_000)
        with pytest.raises(errors.TxError) as caught:
            chain.app.check_tx(low)
        assert caught.value.log == ("provided fee < minimum global fee (399999999999999achain < "
                                    "400000000000000achain). Please increase the gas price.: insufficient fee")
        # Empty blocks lower the base fee toward, never under, min_gas_price.
        fees = [chain.block([]).meta.base_fee for _ in range(12)]
        assert fees[0] < 3 * GWEI and fees[-1] == 2 * GWEI and min(fees) == 2 * GWEI
    finally:
        chain.close()


def chain_send(chain, who):
    return bank_tx.MsgSend(from_address=chain.b32(chain.keys[who].address), to_address=chain.b32(b"\x44" * 20),
                           amount=[coin_pb2.Coin(denom="achain", amount="1")])


def test_params_change_through_a_proposal(tmp_path):
    chain = make_chain(tmp_path)
    try:
        p = chain.app.keepers["feemarket"].params(chain.app.view())
        new = feemarket_pb2.Params(no_base_fee=False, base_fee_change_denominator=16, elasticity_multiplier=4,
                                   enable_height=0, base_fee="5000000000",
                                   min_gas_price=legacy_dec.wire_of_text("0.5"),
                                   min_gas_multiplier=legacy_dec.wire_of_text("0.25"))
        msg = fm_tx.MsgUpdateParams(authority=chain.b32(g.GOV), params=new)
        wrapped = any_pb2.Any(type_url="/ethermint.feemarket.v1.MsgUpdateParams", value=msg.SerializeToString())
        block(chain, [(1, [(g.SUBMIT, g.submit(chain.prefix, address(chain, 1), [wrapped]))])])
        block(chain, [(0, [(g.VOTE, g.vote(chain.prefix, address(chain, 0), 1, g.YES))])])
        ended = block(chain, [], after_s=20)
        assert ("proposal_result", "proposal_passed") in [(k, v) for e in ended.events for k, v, _ in e.attributes]
        changed = chain.app.keepers["feemarket"].params(chain.app.view())
        assert (changed.base_fee_change_denominator, changed.elasticity_multiplier) == (16, 4)
        assert (changed.min_gas_price, changed.min_gas_multiplier) == (5 * 10**17, 25 * 10**16)
        assert p != changed
        # The next block starts from the base fee the params set (an empty block: it falls by 1/16).
        assert chain.app.next_base_fee() == 5 * GWEI - 5 * GWEI // 16
        # A dev account is not the authority; bad params carry Params.Validate's text (ValidateBasic, first).
        direct = fm_tx.MsgUpdateParams(authority=chain.b32(address(chain, 1)), params=new)
        result = block(chain, [(1, [("/ethermint.feemarket.v1.MsgUpdateParams", direct)])]).results[0]
        assert (result.codespace, result.code) == ("gov", 13)
        bad = feemarket_pb2.Params(base_fee_change_denominator=8, elasticity_multiplier=2, base_fee="1",
                                   min_gas_price="0", min_gas_multiplier=legacy_dec.wire_of_text("1.5"))
        result = block(chain, [(1, [("/ethermint.feemarket.v1.MsgUpdateParams",
                                     fm_tx.MsgUpdateParams(authority=chain.b32(address(chain, 1)),
                                                           params=bad))])]).results[0]
        assert (result.codespace, result.code) == ("undefined", 1)
        assert result.log.endswith("value cannot be greater than 1: 1.500000000000000000")
    finally:
        chain.close()


@pytest_twisted.inlineCallbacks
def test_block_gas_event_grpc_and_fee_history_agree(node):
    web3 = w3(node)
    receipt = yield in_thread(send, web3, {"to": OTHER, "value": 1, "gas": 300_000, "nonce": 0})
    height = receipt["blockNumber"]
    answer, _ = yield call(node, fq_grpc.QueryStub, "BlockGas", fq.QueryBlockGasRequest(), height=height)
    assert answer.gas == 150_000 > receipt["gasUsed"]
    results = yield in_thread(comet, node, "block_results", height=str(height))
    amounts = [a["value"] for e in results["result"]["finalize_block_events"] if e["type"] == "block_gas"
               for a in e["attributes"] if a["key"] == "amount"]
    assert amounts == ["150000"]
    _, history = yield rpc(node, "eth_feeHistory", "0x1", hex(height), [])
    _, price = yield rpc(node, "eth_gasPrice")
    _, tip = yield rpc(node, "eth_maxPriorityFeePerGas")
    assert node.app.height == height        # no empty blocks on this node: the tx's block is the head
    assert int(history["result"]["baseFeePerGas"][-1], 16) == node.app.next_base_fee()
    assert int(price["result"], 16) == node.app.next_base_fee() + int(tip["result"], 16)
    p = node.app.keepers["feemarket"].params(node.app.view(height))
    target = node.genesis.max_gas // p.elasticity_multiplier
    base = node.app.block_at(height)[1].base_fee
    following = base - base * (target - 150_000) // target // p.base_fee_change_denominator
    assert int(history["result"]["baseFeePerGas"][-1], 16) == following
