"""Distribution against a running node: a dev account delegates, fees of later blocks accrue to it, gRPC, REST,
abci_query (the CLI) agree on its rewards at a height, and withdrawing them raises its balance by exactly the
reward the chain promised, less the tx fee; the module's invariants hold after it all."""

import pytest_twisted

from chaind.chain.modules.distribution.invariants import INVARIANTS
from chaind.pb.cosmos.distribution.v1beta1 import query_pb2 as dq
from chaind.pb.cosmos.distribution.v1beta1 import query_pb2_grpc as dq_grpc
from cli_driver import CHAIN, DEV_MNEMONIC, FEE, VALOPER, committed, js, node_flag, run, send_tx, staking_node
from helpers import call, rest, until_height

ONE = 10**18


def coins_of(dec_coins_json):
    """{denom: amount in atomics} of DecCoins as JSON gives them (decimal text)."""
    return {c["denom"]: int(c["amount"].replace(".", "")) for c in dec_coins_json}


@pytest_twisted.inlineCallbacks
def test_delegate_accrue_agree_withdraw_exactly(node_factory, tmp_path):
    node = staking_node(node_factory)
    yield until_height(node, 1)
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    js((yield run("keys", "add", "dev0", "--recover", *keys, "-o", "json", stdin=DEV_MNEMONIC + "\n")))
    bob = js((yield run("keys", "add", "bob", *keys, "-o", "json")))["address"]
    yield send_tx(n, keys, "bank", "send", "dev0", bob, f"{100 * CHAIN}achain")
    delegated = yield send_tx(n, keys, "staking", "delegate", VALOPER, f"{10 * CHAIN}achain", "--from", "bob")
    # Fees to share: each of these txs pays FEE into the fee collector, the next block hands it out.
    for _ in range(3):
        yield send_tx(n, keys, "bank", "send", "dev0", bob, "1achain")
    height = node.app.height + 1
    yield until_height(node, height + 1)

    grpc_rewards, _ = yield call(node, dq_grpc.QueryStub, "DelegationRewards", dq.QueryDelegationRewardsRequest(
        delegator_address=bob, validator_address=VALOPER), height=height)
    status, _, rest_rewards = yield rest(node, f"/cosmos/distribution/v1beta1/delegators/{bob}/rewards/{VALOPER}",
                                         height=height)
    assert status == 200
    cli_total = js((yield run("q", "distribution", "rewards", bob, n, "--height", height, "-o", "json")))
    atomics = {c.denom: int(c.amount) for c in grpc_rewards.rewards}
    assert atomics["achain"] > 0
    assert coins_of(rest_rewards["rewards"]) == atomics
    assert coins_of(cli_total["total"]) == atomics
    assert cli_total["rewards"][0]["validator_address"] == VALOPER
    assert int(delegated["height"]) < height

    # Withdraw: the block before holds no tx, so its allocation adds nothing; the pay is the promise, truncated.
    withdrawn = yield send_tx(n, keys, "distribution", "withdraw-all-rewards", "--from", "bob")
    at = int(withdrawn["height"])
    promised, _ = yield call(node, dq_grpc.QueryStub, "DelegationRewards", dq.QueryDelegationRewardsRequest(
        delegator_address=bob, validator_address=VALOPER), height=at - 1)
    expected = int(next(c.amount for c in promised.rewards if c.denom == "achain")) // ONE
    events = [e for e in withdrawn["events"] if e["type"] == "withdraw_rewards"]
    attributes = {a["key"]: a["value"] for a in events[0]["attributes"]}
    assert attributes["amount"] == f"{expected}achain" and attributes["validator"] == VALOPER
    balances = []
    for h in (at - 1, at):
        found = js((yield run("q", "bank", "balances", bob, n, "--height", h, "-o", "json")))["balances"]
        balances.append(int(next(c["amount"] for c in found if c["denom"] == "achain")))
    fee = int(FEE.split("=")[1].removesuffix("achain"))
    assert balances[1] - balances[0] == expected - fee

    # The other queries answer, over the CLI, as gRPC does.
    commission = js((yield run("q", "distribution", "commission", VALOPER, n, "-o", "json")))
    outstanding = js((yield run("q", "distribution", "validator-outstanding-rewards", VALOPER, n, "-o", "json")))
    yield until_height(node, at + 1)
    pool = js((yield run("q", "distribution", "community-pool", n, "--height", at + 1, "-o", "json")))
    params = js((yield run("q", "distribution", "params", n, "-o", "json")))
    slashes = js((yield run("q", "distribution", "slashes", VALOPER, 1, at, n, "-o", "json")))
    assert coins_of(commission["commission"]["commission"])["achain"] > 0
    assert coins_of(outstanding["rewards"]["rewards"])["achain"] > coins_of(
        commission["commission"]["commission"])["achain"]
    assert coins_of(pool["pool"])["achain"] > 0
    assert params["params"]["community_tax"] == "0.020000000000000000"
    assert params["params"]["withdraw_addr_enabled"] is True
    assert slashes["slashes"] == []
    status, _, by_rest = yield rest(node, "/cosmos/distribution/v1beta1/community_pool", height=at + 1)
    assert status == 200 and coins_of(by_rest["pool"]) == coins_of(pool["pool"])
    view = node.app.view()
    for name, check in INVARIANTS:
        assert check(node.app, view) is None, name


@pytest_twisted.inlineCallbacks
def test_cli_distribution_txs(node_factory, tmp_path):
    """set-withdraw-addr, fund-community-pool, fund-validator-rewards-pool and withdraw-rewards --commission
    through the CLI, each seen in state; a refused one prints the SDK's error."""
    node = staking_node(node_factory)
    yield until_height(node, 1)
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    js((yield run("keys", "add", "dev0", "--recover", *keys, "-o", "json", stdin=DEV_MNEMONIC + "\n")))
    carol = js((yield run("keys", "add", "carol", *keys, "-o", "json")))["address"]
    yield send_tx(n, keys, "distribution", "set-withdraw-addr", carol, "--from", "dev0")
    dev0 = js((yield run("keys", "show", "dev0", *keys, "-o", "json")))["address"]
    found = js((yield run("q", "distribution", "withdraw-addr", dev0, n, "-o", "json")))
    assert found["withdraw_address"] == carol
    pool_before = coins_of(js((yield run("q", "distribution", "community-pool", n, "-o", "json")))["pool"])
    funded = yield send_tx(n, keys, "distribution", "fund-community-pool", f"{3 * CHAIN}achain", "--from", "dev0")
    pool_after = coins_of(js((yield run("q", "distribution", "community-pool", n, "--height", funded["height"],
                                        "-o", "json")))["pool"])
    assert pool_after["achain"] - pool_before.get("achain", 0) >= 3 * CHAIN * ONE
    yield send_tx(n, keys, "distribution", "fund-validator-rewards-pool", VALOPER, f"{2 * CHAIN}achain",
                  "--from", "dev0")
    # dev0 is the validator's operator: its rewards and commission go to carol, its withdraw address.
    withdrawn = yield send_tx(n, keys, "distribution", "withdraw-rewards", VALOPER, "--commission", "--from", "dev0")
    types = [e["type"] for e in withdrawn["events"]]
    assert "withdraw_rewards" in types and "withdraw_commission" in types
    balance = js((yield run("q", "bank", "balances", carol, n, "-o", "json")))["balances"]
    assert int(next(c["amount"] for c in balance if c["denom"] == "achain")) >= 2 * CHAIN * 9 // 10
    # Carol delegates nothing: the block refuses her withdrawal with distribution's code 5.
    sent = js((yield run("tx", "distribution", "withdraw-rewards", VALOPER, "--from", "carol", FEE, "--gas", "400000",
                         "-y", "-o", "json", n, *keys)))
    refused = yield committed(n, sent["txhash"])
    assert (refused["codespace"], refused["code"]) == ("distribution", 5)
    assert refused["raw_log"].endswith("no delegation distribution info")
