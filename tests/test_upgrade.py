"""x/upgrade: a plan scheduled by a passed proposal stops the chain at its height with the SDK's `UPGRADE "name"
NEEDED` message, the node refuses to start on that height until a handler for the plan is registered, then the
handler runs and AppliedPlan, ModuleVersions and CurrentPlan answer; the messages' refusals carry the SDK's codes."""

import json
import os
import subprocess
import sys

import pytest
import pytest_twisted
from google.protobuf import any_pb2
from twisted.internet import defer

import gov_msgs as g
from chain_driver import ok as all_ok
from chaind.chain.halt import ChainHalt
from chaind.chain.modules import upgrade
from chaind.chain.replay import replay_chain
from chaind.crypto.addresses import to_bech32
from chaind.home import Home
from chaind.pb.cosmos.upgrade.v1beta1 import query_pb2 as uq
from chaind.pb.cosmos.upgrade.v1beta1 import query_pb2_grpc as uq_grpc
from chaind.pb.cosmos.upgrade.v1beta1 import tx_pb2, upgrade_pb2
from cli_driver import failed, js, node_flag, ok, run, send_tx
from gov_driver import (
    address,
    make_chain,  # noqa: F401 (conftest's `chain` fixture makes this module's chain with it)
)
from gov_driver import run as block
from helpers import call, in_thread, make_node, rest, until, until_block, until_height

SOFTWARE_UPGRADE = "/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade"
CANCEL_UPGRADE = "/cosmos.upgrade.v1beta1.MsgCancelUpgrade"


def upgrade_any(chain, name, height, info="", authority=None):
    msg = tx_pb2.MsgSoftwareUpgrade(authority=authority or chain.b32(g.GOV),
                                    plan=upgrade_pb2.Plan(name=name, height=height, info=info))
    return any_pb2.Any(type_url=SOFTWARE_UPGRADE, value=msg.SerializeToString())


def passed(chain, messages):
    """Submit `messages` as a proposal, vote it yes with the validator, let the voting period end."""
    all_ok(block(chain, [(1, [(g.SUBMIT, g.submit(chain.prefix, address(chain, 1), messages))])]))
    pid = max(p for p in range(1, 100) if g_proposal_exists(chain, p))
    all_ok(block(chain, [(0, [(g.VOTE, g.vote(chain.prefix, address(chain, 0), pid, g.YES))])]))
    return block(chain, [], after_s=20)


def g_proposal_exists(chain, pid):
    return chain.app.keepers["gov"].proposal(chain.app.view(), pid) is not None


def test_a_plan_stops_the_chain_until_its_handler_runs(chain, tmp_path):
    at = chain.app.height + 6
    ended = passed(chain, [upgrade_any(chain, "v2", at, info="https://example.org/v2")])
    assert ("proposal_result", "proposal_passed") in [(k, v) for e in ended.events for k, v, _ in e.attributes]
    plan = chain.app.keepers["upgrade"].plan(chain.app.view())
    assert (plan.name, plan.height, plan.info) == ("v2", at, "https://example.org/v2")
    while chain.app.height < at - 1:
        block(chain, [])
    refused = upgrade.refusal_at_start(chain.app)
    assert str(refused) == 'UPGRADE "v2" NEEDED at height: %d: https://example.org/v2' % at
    with pytest.raises(ChainHalt) as caught:
        block(chain, [])
    assert str(caught.value) == f'UPGRADE "v2" NEEDED at height: {at}: https://example.org/v2'
    # What the SDK writes to data/upgrade-info.json for Cosmovisor: Go's JSON of the plan, in its field order.
    info = b'{"name":"v2","time":"0001-01-01T00:00:00Z","height":%d,"info":"https://example.org/v2"}' % at
    assert caught.value.upgrade_info == refused.upgrade_info == info
    assert chain.app.height == at - 1

    seen = []

    def handler(app, ctx, plan, versions):
        seen.append((plan.name, ctx.height, dict(versions)))
        return {**versions, "bank": versions["bank"] + 1}

    chain.reopen(upgrade_handlers={"v2": handler})       # the binary that has the plan's handler
    assert upgrade.refusal_at_start(chain.app) is None
    block(chain, [])
    assert chain.app.height == at and seen[0][:2] == ("v2", at) and seen[0][2]["bank"] == 4
    view, keeper = chain.app.view(), chain.app.keepers["upgrade"]
    assert keeper.plan(view) is None and keeper.done_height(view, "v2") == at
    assert keeper.module_versions(view)["bank"] == 5
    block(chain, [])

    # The same name cannot be scheduled again; a replay with the handler reproduces every app hash.
    again = passed(chain, [upgrade_any(chain, "v2", chain.app.height + 50)])
    log = next(v for e in again.events for k, v, _ in e.attributes if k == "proposal_log")
    assert log.endswith("upgrade with name v2 has already been completed: invalid request")
    assert replay_chain(chain.app, tmp_path / "replayed", chain.app.options.vote_key,
                        chain.app.options.validator_address).ok


def test_refusals_and_cancel(chain):
    # The authority must be the gov account: a dev account's message is refused with upgrade's ErrInvalidSigner.
    msg = tx_pb2.MsgSoftwareUpgrade(authority=chain.b32(address(chain, 1)),
                                    plan=upgrade_pb2.Plan(name="x", height=chain.app.height + 10))
    result = block(chain, [(1, [(SOFTWARE_UPGRADE, msg)])]).results[0]
    assert (result.codespace, result.code) == ("upgrade", 7)
    assert result.log.endswith(f"expected {chain.b32(g.GOV)} got {chain.b32(address(chain, 1))}: expected "
                               "authority account as only signer for proposal message")
    timed = tx_pb2.MsgSoftwareUpgrade(authority=chain.b32(g.GOV), plan=upgrade_pb2.Plan(
        name="t", height=chain.app.height + 10))
    timed.plan.time.FromSeconds(0)      # 1970, not Go's zero time: a time-based plan
    cases = [(upgrade_any(chain, "", chain.app.height + 10), "plan: name cannot be empty: invalid request"),
             (any_pb2.Any(type_url=SOFTWARE_UPGRADE, value=timed.SerializeToString()),
              "plan: time-based upgrades have been deprecated in the SDK: invalid request"),
             (upgrade_any(chain, "old", 1), "upgrade cannot be scheduled in the past: invalid request")]
    for message, text in cases:
        ended = passed(chain, [message])
        log = next(v for e in ended.events for k, v, _ in e.attributes if k == "proposal_log")
        assert log.endswith(text), log
    assert chain.app.keepers["upgrade"].plan(chain.app.view()) is None
    # A plan, then its cancellation: nothing is scheduled.
    passed(chain, [upgrade_any(chain, "v3", chain.app.height + 100)])
    assert chain.app.keepers["upgrade"].plan(chain.app.view()).name == "v3"
    cancel = tx_pb2.MsgCancelUpgrade(authority=chain.b32(g.GOV))
    passed(chain, [any_pb2.Any(type_url=CANCEL_UPGRADE, value=cancel.SerializeToString())])
    assert chain.app.keepers["upgrade"].plan(chain.app.view()) is None
    # A binary with the handler before the plan's height stops too (BINARY UPDATED BEFORE TRIGGER).
    passed(chain, [upgrade_any(chain, "v4", chain.app.height + 100)])
    chain.reopen(upgrade_handlers={"v4": lambda app, ctx, plan, versions: versions})
    with pytest.raises(ChainHalt, match='BINARY UPDATED BEFORE TRIGGER! UPGRADE "v4"'):
        block(chain, [])


def gov_home(tmp_path):
    home = Home(tmp_path / "home")
    home.init("test", dev=True)
    doc = json.loads(home.genesis_file.read_text())
    doc["app_state"]["gov"]["params"].update(voting_period="2s", expedited_voting_period="1s")
    home.genesis_file.write_text(json.dumps(doc))
    return home


@defer.inlineCallbacks
def schedule_through_the_cli(node, tmp_path, name, blocks_ahead):
    """Propose plan `name` `blocks_ahead` blocks on (info "<name> info") from dev1 and vote it yes with dev0, on a
    gov_home node: (--node flag, keyring flags, plan height)."""
    yield until_height(node, 1)
    n = node_flag(node)
    keys = ("--home", tmp_path / "cli", "--keyring-backend", "test")
    for i in (0, 1):
        ok((yield run("keys", "import-hex", f"dev{i}", node.dev_keys[i].private_key.hex(), *keys)))
    at = node.app.height + blocks_ahead
    yield send_tx(n, keys, "upgrade", "software-upgrade", name, "--upgrade-height", at, "--upgrade-info",
                  f"{name} info", "--title", name, "--summary", f"to {name}", "--deposit", "10achain", "--from", "dev1")
    yield send_tx(n, keys, "gov", "vote", "1", "yes", "--from", "dev0")
    return n, keys, at


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_a_node_halts_at_the_plan_and_restarts_only_with_its_handler(tmp_path):
    gov_home(tmp_path)
    fast = {"chain": {"block_interval": 0.05, "empty_blocks": True}}
    node = make_node(tmp_path / "home", **fast)
    node.startService()
    try:
        n, keys, at = yield schedule_through_the_cli(node, tmp_path, "v2", 100)
        yield until(lambda: node.producer.halted is not None, "the chain to halt for the upgrade")
        assert node.producer.halted == f'UPGRADE "v2" NEEDED at height: {at}: v2 info'
        assert node.app.height == at - 1
        written = tmp_path / "home" / "data" / "upgrade-info.json"
        yield until(written.exists, f"{written} to be written")
        assert written.read_bytes() == b'{"name":"v2","time":"0001-01-01T00:00:00Z","height":%d,"info":"v2 info"}' % at
        assert written.stat().st_mode & 0o777 == 0o600
        written.unlink()
        # The SDK's CLI prints the plan itself.
        plan = js((yield run("q", "upgrade", "plan", n, "-o", "json")))
        assert plan == {"name": "v2", "time": "0001-01-01T00:00:00Z", "height": str(at), "info": "v2 info",
                        "upgraded_client_state": None}
        answer, _ = yield call(node, uq_grpc.QueryStub, "Authority", uq.QueryAuthorityRequest())
        assert answer.address == to_bech32(node.genesis.bech32_prefix, g.GOV)
    finally:
        yield node.stopService()

    with pytest.raises(SystemExit, match=f'UPGRADE "v2" NEEDED at height: {at}: v2 info'):
        make_node(tmp_path / "home", **fast)
    # The real process (twistd chaind, this binary's handlers: none) refuses to start, with the message.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = [sys.executable, "-c", "from twisted.scripts.twistd import run; run()", "-n", "--pidfile=", "chaind",
               "--home", str(tmp_path / "home"), "--json-rpc-address", "127.0.0.1:0", "--ws-address", "127.0.0.1:0",
               "--grpc-address", "127.0.0.1:0", "--rest-address", "127.0.0.1:0", "--cometbft-address", "127.0.0.1:0"]
    refused = yield in_thread(subprocess.run, command, env=env, capture_output=True, text=True, timeout=300,
                              cwd=tmp_path)
    assert refused.returncode != 0
    assert f'UPGRADE "v2" NEEDED at height: {at}: v2 info' in refused.stdout + refused.stderr
    assert "Traceback" not in refused.stdout + refused.stderr
    # As an SDK node that panics again on that block, the refusal writes the file again.
    assert json.loads(written.read_bytes())["name"] == "v2"

    node = make_node(tmp_path / "home", upgrade_handlers={"v2": lambda app, ctx, plan, versions: versions}, **fast)
    node.startService()
    try:
        yield until_height(node, at + 1)
        assert node.producer.halted is None
        applied = js((yield run("q", "upgrade", "applied", "v2", node_flag(node), "-o", "json")))
        assert applied == {"height": str(at)}
        status, _, body = yield rest(node, "/cosmos/upgrade/v1beta1/module_versions?module_name=gov")
        assert status == 200 and body == {"module_versions": [{"name": "gov", "version": "5"}]}
        status, _, body = yield rest(node, "/cosmos/upgrade/v1beta1/current_plan")
        assert status == 200 and body == {"plan": None}
        failed((yield run("q", "upgrade", "plan", node_flag(node))), "no upgrade scheduled")
    finally:
        yield node.stopService()


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_a_node_process_stopped_by_a_plan_fails_and_leaves_upgrade_info(tmp_path):
    """twistd chaind runs into a plan it has no handler for: it says why, writes data/upgrade-info.json and
    exits 1 (an SDK node panics there), so a supervisor or Cosmovisor sees it."""
    gov_home(tmp_path)
    node = make_node(tmp_path / "home", chain={"block_interval": 0.05, "empty_blocks": True})
    node.startService()
    try:
        _, _, at = yield schedule_through_the_cli(node, tmp_path, "v3", 200)
        yield until_block(node, lambda: node.app.keepers["upgrade"].plan(node.app.view()) is not None,
                          "the upgrade plan stored")
        assert node.app.keepers["upgrade"].plan(node.app.view()).height == at and node.app.height < at - 1
    finally:
        yield node.stopService()

    config = tmp_path / "chaind.toml"
    config.write_text('[chain]\nblock-interval = 0.05\nempty-blocks = true\n[json-rpc]\naddress = "127.0.0.1:0"\n'
                      'ws-address = "127.0.0.1:0"\n[cometbft-rpc]\naddress = "127.0.0.1:0"\n'
                      '[grpc]\naddress = "127.0.0.1:0"\n[rest]\naddress = "127.0.0.1:0"\n'
                      '[explorer]\nenable = false\n[instrumentation]\nprometheus = false\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = [sys.executable, "-c", "from twisted.scripts.twistd import run; run()", "-n", "--pidfile=", "chaind",
               "--home", str(tmp_path / "home"), "--config", str(config)]
    stopped = yield in_thread(subprocess.run, command, env=env, capture_output=True, text=True, timeout=300,
                              cwd=tmp_path)
    output = stopped.stdout + stopped.stderr
    assert stopped.returncode == 1, output[-3000:]
    assert f'the chain stopped at height {at}: UPGRADE "v3" NEEDED at height: {at}: v3 info' in output
    written = tmp_path / "home" / "data" / "upgrade-info.json"
    assert written.read_bytes() == b'{"name":"v3","time":"0001-01-01T00:00:00Z","height":%d,"info":"v3 info"}' % at
