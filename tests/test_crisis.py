"""x/crisis: every module's invariants hold block after block of EVM and native work; a broken one (coins credited
without their supply, in a test-only module) refuses the block with the SDK's panic text, on an App and on a running
node, which then stops making blocks; MsgVerifyInvariant pays the constant fee and answers with the SDK's codes."""

import time

import pytest
import pytest_twisted

from chain_driver import PROPOSER, Chain
from chaind.chain.halt import ChainHalt
from chaind.chain.module import Module
from chaind.chain.registry import MODULES
from chaind.pb.cosmos.crisis.v1beta1 import tx_pb2
from helpers import in_thread, make_node, until

VERIFY = "/cosmos.crisis.v1beta1.MsgVerifyInvariant"
THIEF = b"\x77" * 20


def minting_without_supply(at_height):
    """A test-only module whose begin blocker credits 5achain out of nothing at `at_height`: supply breaks."""
    def begin_block(app, ctx):
        if ctx.height == at_height:
            app.keepers["bank"].credit(ctx, THIEF, [(app.genesis.base_denom, 5)])
    return Module(name="counterfeit", begin_block=begin_block)


def broken(app):
    view = app.view()
    return [(module, route) for module, route, check in app.keepers["crisis"].routes if check(app, view) is not None]


def test_invariants_hold_through_evm_and_native_work(tmp_path):
    chain = Chain(tmp_path, "db", check_invariants_every=1)
    try:
        for step in range(6):
            chain.block(chain.workload(step))
        routes = {(m, r) for m, r, _ in chain.app.keepers["crisis"].routes}
        assert {("bank", "total-supply"), ("staking", "module-accounts"), ("staking", "delegator-shares"),
                ("distribution", "can-withdraw"), ("gov", "module-account")} <= routes
        assert broken(chain.app) == []
    finally:
        chain.close()


def test_a_broken_invariant_refuses_the_block_with_the_sdk_text(tmp_path):
    chain = Chain(tmp_path, "db", modules=(*MODULES, minting_without_supply(3)), check_invariants_every=1)
    try:
        chain.block([])
        chain.block([])
        with pytest.raises(ChainHalt) as caught:
            chain.block([])
        text = str(caught.value)
        assert text.startswith("invariant broken: bank: total supply invariant\n\tsum of accounts coins: ")
        assert text.endswith("\tCRITICAL please submit the following transaction:\n"
                             "\t\t chaind tx crisis invariant-broken bank total-supply")
        assert chain.app.height == 2                   # nothing of the refused block was kept
        # Restarted to check every 2 blocks only: block 3 goes through and block 4 is refused.
        chain.reopen(check_invariants_every=2)
        chain.block([])
        with pytest.raises(ChainHalt):
            chain.block([])
    finally:
        chain.close()


def verify(chain, who, module, route):
    msg = tx_pb2.MsgVerifyInvariant(sender=chain.b32(chain.keys[who].address), invariant_module_name=module,
                                    invariant_route=route)
    height = chain.app.height + 1
    block, puts = chain.app.finalize_block([chain.native(chain.keys[who], [(VERIFY, msg)])],
                                           chain.genesis.genesis_time_ns + height * 10**9, PROPOSER)
    chain.app.commit(block, puts)
    return block.results[0]


def test_verify_invariant_pays_the_constant_fee_and_answers_unknown_and_broken(tmp_path):
    chain = Chain(tmp_path, "db", modules=(*MODULES, minting_without_supply(3)))
    try:
        chain.block([])
        assert chain.app.keepers["crisis"].constant_fee(chain.app.view()) == ("achain", 1000)
        result = verify(chain, 1, "bank", "total-supply")
        assert result.code == 0, result.log
        assert ("amount", "1000achain") in [(k, v) for e in result.events if e.type == "transfer"
                                            for k, v, _ in e.attributes]
        assert [dict((k, v) for k, v, _ in e.attributes) for e in result.events if e.type == "invariant"] == [
            {"route": "total-supply"}]
        unknown = verify(chain, 1, "bank", "no-such-route")
        assert (unknown.codespace, unknown.code) == ("crisis", 3)
        assert unknown.log.endswith("unknown invariant")
        # Height 3 credited coins out of nothing (no halt: checks are off here): the message finds it broken,
        # and the SDK's recovered panic fails the tx; the fee it would pay stays with the sender.
        sender = chain.keys[1].address
        before = chain.app.keepers["bank"].balance(chain.app.view(), sender, "achain")
        caught = verify(chain, 1, "bank", "total-supply")
        assert (caught.codespace, caught.code) == ("sdk", 111222)
        assert "recovered: bank: total supply invariant" in caught.log
        paid = before - chain.app.keepers["bank"].balance(chain.app.view(), sender, "achain")
        tx_fee = next(int(v.removesuffix("achain")) for e in caught.events if e.type == "tx"
                      for k, v, _ in e.attributes if k == "fee")
        assert paid == tx_fee
    finally:
        chain.close()


@pytest_twisted.inlineCallbacks
def test_a_running_node_stops_at_a_broken_invariant(tmp_path):
    node = make_node(tmp_path / "home", modules=(*MODULES, minting_without_supply(4)),
                     chain={"block_interval": 0.05, "empty_blocks": True})
    node.startService()
    try:
        yield until(lambda: node.producer.halted is not None, "the chain to halt at the broken invariant")
        assert node.producer.halted is not None
        assert node.producer.halted.startswith("invariant broken: bank: total supply invariant")
        assert node.app.height == 3
        yield in_thread(time.sleep, 0.3)
        assert node.app.height == 3                     # no block after it
    finally:
        yield node.stopService()
