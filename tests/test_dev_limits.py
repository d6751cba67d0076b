"""The dev namespace's limits against a real node: block times the chain cannot encode, mine counts, state dumps
too large to load, and a block the producer fails to make."""

import gzip

import attrs
import pytest_twisted
from twisted.logger import formatEvent, globalLogPublisher

from chaind.chain import block_time, devstate, registry
from chaind.chain.module import Module
from chaind.chain.modules.staking.params import PARAMS_KEY
from chaind.chain.modules.staking.params import params as staking_params
from chaind.events import types as ev
from cli_driver import FEE, committed, js, node_flag, ok, run, send_tx
from evm_client import DEV0, OTHER, rpc
from helpers import until_height

# Found by the security pass (issue 35): the first raised OverflowError in the producer (year ~33,700), the
# second dated a block in 2554, just before the time keys' end, and the chain halted for good blocks later.
HUGE_INCREASE = "0xe8d4a51000"
NEAR_KEYS_END = "0x44b82fa09"


def reply(node, method, *params):
    return rpc(node, method, *params).addCallback(lambda answer: answer[1])


def result(node, method, *params):
    def check(answer):
        assert "error" not in answer, (method, answer)
        return answer["result"]
    return reply(node, method, *params).addCallback(check)


def invalid(answer, *words):
    assert answer.get("error", {}).get("code") == -32602, answer
    for word in words:
        assert word in answer["error"]["message"], answer


@pytest_twisted.inlineCallbacks
def test_block_times_past_the_time_keys_are_refused_and_the_chain_goes_on(node, tmp_path):
    bound = block_time.bound(node.app.modules, node.app.view())
    # staking's unbonding time (21 days) is the longest period a module adds to a block's time.
    assert bound.module == "staking" and bound.latest_ns == 2**64 - 1 - (21 + 365) * 24 * 3600 * 10**9
    latest = bound.latest_ns // 10**9
    invalid((yield reply(node, "evm_increaseTime", HUGE_INCREASE)), "2554", "staking's 504h0m0s", "a year")
    invalid((yield reply(node, "evm_setNextBlockTimestamp", NEAR_KEYS_END)), f"{latest}", "2554")
    invalid((yield reply(node, "evm_mine", int(NEAR_KEYS_END, 16))), "timestamp 18446744073, after the latest")
    invalid((yield reply(node, "evm_mine", {"timestamp": NEAR_KEYS_END, "blocks": 2})))
    invalid((yield reply(node, "anvil_setBlockTimestampInterval", HUGE_INCREASE)))
    invalid((yield reply(node, "anvil_mine", "0x10", hex(latest // 8))), "the last block's timestamp would be")
    # Nothing was set: the next blocks come at the wall clock's time.
    height = node.app.height
    yield result(node, "anvil_mine", "0x3")
    assert node.app.height == height + 3
    assert node.app.head[0].time_ns < 2**63
    # At the bound itself the chain keeps making blocks, 1 ms apart, and an unbonding (queued 21 days on) still
    # encodes.
    yield result(node, "evm_setNextBlockTimestamp", hex(latest))
    yield result(node, "anvil_mine", "0x5")
    assert node.app.height == height + 8
    assert node.app.head[0].time_ns <= bound.latest_ns + 5 * 10**6
    n, keys = node_flag(node), ("--home", tmp_path, "--keyring-backend", "test")
    ok((yield run("keys", "import-hex", "dev1", node.dev_keys[1].private_key.hex(), *keys)))
    validator = js((yield run("q", "staking", "validators", n, "-o", "json")))["validators"][0]["operator_address"]
    yield send_tx(n, keys, "staking", "delegate", validator, "2000achain", "--from", "dev1")
    unbond = yield send_tx(n, keys, "staking", "unbond", validator, "1000achain", "--from", "dev1")
    assert int(unbond["height"]) > height + 8
    assert node.producer.halted is None
    assert int((yield result(node, "eth_blockNumber")), 16) == node.app.height


@pytest_twisted.inlineCallbacks
def test_the_latest_block_time_follows_the_params_of_the_head(node):
    """The bound is worked out from the head's params (their records decoded once each): a change of the head's state
    in place (a dev change, the same height) moves it."""
    day = 24 * 3600 * 10**9
    before = node.producer.latest_time_ns()
    assert before == block_time.bound(node.app.modules, node.app.view()).latest_ns

    def longer_unbonding(ctx):
        p = staking_params(ctx)
        ctx.store.set(PARAMS_KEY, attrs.evolve(p, unbonding_time_ns=p.unbonding_time_ns + 9 * day)
                      .to_record())

    height = node.app.height
    yield node.producer.exclusive(devstate.amend_head, node.app, longer_unbonding)
    assert node.app.height == height
    assert node.producer.latest_time_ns() == before - 9 * day
    invalid((yield reply(node, "evm_setNextBlockTimestamp", hex(before // 10**9))), "staking's 720h0m0s")


@pytest_twisted.inlineCallbacks
def test_a_block_that_fails_stops_the_chain_visibly(node_factory):
    failing = []

    def end_block(app, ctx):
        if failing:
            raise RuntimeError("boom in end_block")

    logged = []

    def observe(event):
        if event.get("log_failure") is not None:
            logged.append(formatEvent(event))

    node = node_factory(modules=(*registry.MODULES, Module(name="faulty", end_block=end_block)))
    yield until_height(node, 1)
    globalLogPublisher.addObserver(observe)
    try:
        failing.append(True)
        answer = yield reply(node, "evm_mine")
    finally:
        globalLogPublisher.removeObserver(observe)
    assert answer["error"]["code"] == -32603, answer
    assert "the chain stopped: block 2 could not be made: RuntimeError: boom in end_block" in \
        answer["error"]["message"], answer
    assert node.producer.halted.startswith("block 2 could not be made")
    assert any("block production failed" in line for line in logged), logged
    # eth_blockNumber still answers, with the last block made.
    assert (yield result(node, "eth_blockNumber")) == "0x1"


@pytest_twisted.inlineCallbacks
def test_mine_counts_beyond_the_limit_are_refused(node_factory):
    node = node_factory(dev={"max_mine_blocks": 50})
    yield until_height(node, 1)
    invalid((yield reply(node, "anvil_mine", "0x3b9aca00")), "1000000000 blocks exceed the 50", "max-mine-blocks")
    invalid((yield reply(node, "hardhat_mine", "0x33")), "max-mine-blocks")
    invalid((yield reply(node, "evm_mine", {"blocks": 51})), "max-mine-blocks")
    yield result(node, "anvil_mine", "0x32")
    assert node.app.height == 51
    assert (yield result(node, "eth_blockNumber")) == "0x33"


@pytest_twisted.inlineCallbacks
def test_a_long_run_is_made_and_announced_in_slices(node):
    node.producer.MINE_SLICE = 100
    seen = []       # (highest block announced, the head's height then)

    def on_event():
        # The start's own block may be announced after the subscription (the fixture waits for the head, not its
        # announcement): only the run's blocks count.
        seen.extend((event.block.header.height, node.app.height) for event in sub.drain()
                    if event.block.header.height > height)

    sub = node.bus.subscribe(lambda event: True, capacity=10_000, on_event=on_event, kind=ev.NewBlock)
    height = node.app.height
    yield result(node, "anvil_mine", hex(1000))
    node.bus.unsubscribe(sub)
    assert node.app.height == height + 1000
    assert [h for h, _ in seen] == list(range(height + 1, height + 1001))
    # Each slice was announced once written, before the next was made: the head, when a block of the run was
    # announced, was at most a slice past it (one batch of them all has the head at the end for every block).
    assert all(head - announced < 100 for announced, head in seen[:-1]), seen[:3]


@pytest_twisted.inlineCallbacks
def test_a_state_dump_that_decompresses_past_the_limit_is_not_loaded(node_factory):
    node = node_factory(dev={"max_state_bytes": 64 * 1024})
    yield until_height(node, 1)
    dump = yield result(node, "anvil_dumpState")
    size = len(gzip.decompress(bytes.fromhex(dump[2:])))
    assert size > 64 * 1024
    yield result(node, "anvil_setBalance", OTHER, "0x1234")
    invalid((yield reply(node, "anvil_loadState", dump)), "more than 65536 bytes", "max-state-bytes")
    assert (yield result(node, "eth_getBalance", OTHER, "latest")) == "0x1234"
    # A bomb in the attack's shape (a little gzip of a large blank document) is refused as it inflates.
    bomb = gzip.compress(b" " * (64 << 20), compresslevel=9)
    invalid((yield reply(node, "anvil_loadState", "0x" + bomb.hex())), "max-state-bytes")
    assert (yield result(node, "eth_getBalance", DEV0, "latest")) != "0x0"
    assert int((yield result(node, "eth_blockNumber")), 16) == node.app.height


@pytest_twisted.inlineCallbacks
def test_a_grant_expiring_past_the_time_keys_fails_its_tx_not_the_block(node, tmp_path):
    """A feegrant or authz expiration is user-given and kept in an 8-byte time key: one in the year 3000 is a
    failed tx, and the chain goes on (it raised OverflowError in the block, which was never made)."""
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    ok((yield run("keys", "import-hex", "dev0", node.dev_keys[0].private_key.hex(), *keys)))
    grantee = js((yield run("keys", "add", "g", *keys, "-o", "json")))["address"]
    for args in (("feegrant", "grant", "dev0", grantee, "--expiration", "3000-01-01T00:00:00Z"),
                 ("authz", "grant", grantee, "send", "--spend-limit", "1achain", "--expiration", "32503680000",
                  "--from", "dev0")):
        sent = js((yield run("tx", *args, FEE, "--gas", "400000", "-y", "-o", "json", n, *keys)))
        found = yield committed(n, sent["txhash"])
        assert found["code"] != 0 and "after the latest time the chain can keep" in found["raw_log"], found
    assert node.producer.halted is None
    yield send_tx(n, keys, "bank", "send", "dev0", grantee, "1achain")
