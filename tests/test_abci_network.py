"""chaind processes driven by a stand-in for CometBFT over real ABCI sockets: replicas fed the same
blocks agree with each other and with the solo producer, and one killed between FinalizeBlock and
Commit rejoins after the handshake's replay with the same hashes."""

import json
import shutil
import urllib.request

import pytest

import staking_msgs
from abci_driver import Driver, Replica
from chain_driver import Chain
from chaind.api import encoding
from chaind.consensus.abci.application import exec_result
from chaind.pb.tendermint.abci import types_pb2 as pb
from helpers import chaind_process
from node_process import NodeProcess

CONFIG = """
[abci]
mode = "socket"
address = "127.0.0.1:0"
[json-rpc]
address = "127.0.0.1:0"
ws-address = "127.0.0.1:0"
[grpc]
address = "127.0.0.1:0"
[rest]
address = "127.0.0.1:0"
"""


class App:
    """One chaind process in socket mode and the driver's connections to it."""

    def __init__(self, home, tmp_path, name):
        config = tmp_path / f"{name}.toml"
        config.write_text(CONFIG)
        (tmp_path / name).mkdir()
        self.process = NodeProcess(home, config, tmp_path / name)
        self.start()

    def start(self):
        self.ports = self.process.start()
        self.replica = Replica(self.ports["abci"])

    def eth(self, method, *params):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.ports['json-rpc']}", data=body,
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            reply = json.loads(response.read())
        assert "error" not in reply, reply
        return reply["result"]

    def kill(self):
        self.replica.close()
        self.process.kill()

    def stop(self):
        self.replica.close()
        self.process.kill()


def _round(driver, apps, solo, raws, kill=None):
    """One height: CheckTx everywhere, PrepareProposal on the proposer, the solo producer's block of the
    same txs, then ProcessProposal/FinalizeBlock/Commit on every app (their answers compared)."""
    for app in apps:
        for raw in raws:
            answer = driver.check(app.replica, raw)
            assert answer.code == 0, answer.log
    height = driver.next_height()
    proposer = apps[height % len(apps)]
    assert driver.propose(proposer.replica, raws, 0) == raws
    block = solo.block(raws)
    decided = driver.decide(raws, block.header.time_ns, block_hash=block.hash,
                            proposer=block.header.proposer_address)
    assert decided.next_validators_hash == block.header.next_validators_hash
    response = driver.run_block([a.replica for a in apps], decided,
                                kill_before_commit=None if kill is None else kill)
    assert response.app_hash == block.meta.app_hash, f"height {height}: app hash differs from the solo producer's"
    assert [r.SerializeToString() for r in response.tx_results] == \
        [exec_result(r).SerializeToString() for r in block.results]
    assert [(u.pub_key.ed25519, u.power) for u in response.validator_updates] == list(block.validator_updates)
    return response


def _compare_blocks(apps, solo, heights):
    for height in heights:
        header, meta = solo.app.block_at(height)
        want = json.loads(json.dumps(encoding.block(solo.app, header, meta, True)))
        for app in apps:
            assert app.eth("eth_getBlockByNumber", hex(height), True) == want, (app.ports, height)


# Each starts chaind processes (seconds each on the 2-core box): slow, as the house marks such tests.
@pytest.mark.slow
@pytest.mark.parametrize("count", [2, 4])
def test_replicas_agree_with_each_other_and_the_solo_producer_and_survive_sigkill(tmp_path, count):
    solo = Chain(tmp_path, "solo")      # makes the dev home at tmp_path/home, shared by every app
    homes = [tmp_path / "home"] + [tmp_path / f"home{i}" for i in range(1, count)]
    for home in homes[1:]:
        shutil.copytree(homes[0], home)
    apps = []
    try:
        for i, home in enumerate(homes):
            apps.append(App(home, tmp_path, f"app{i}"))
        driver = Driver(solo.genesis.document)
        driver.signers = {solo.app.options.validator_address}   # as the solo producer's commits: its validator only
        for app in apps:
            assert driver.handshake(app.replica) == 0
        assert driver.genesis_app_hash == solo.app.head[1].app_hash

        for step in range(4):
            raws = solo.workload(step)
            _round(driver, apps, solo, raws)
            for app in apps:
                # Rechecked after the block: each of its txs is now a used nonce.
                assert all(driver.check(app.replica, raw, recheck=True).code != 0 for raw in raws)

        # One app dies between FinalizeBlock and Commit of the next height; the others commit it.
        victim = apps[-1]

        def kill(replica):
            if replica is victim.replica:
                victim.kill()
                return True
            return False
        _round(driver, apps, solo, solo.workload(4), kill=kill)
        victim.start()
        assert driver.handshake(victim.replica) == 4        # Info: the last height it committed; 5 replayed
        for step in range(5, 7):
            _round(driver, apps, solo, solo.workload(step))
        # A new validator: FinalizeBlock's validator_updates, and the set CometBFT uses two heights on.
        _, pubkey = staking_msgs.new_consensus_key()
        operator = solo.keys[4]
        create = staking_msgs.create(solo.genesis.bech32_prefix, operator.address, pubkey, 10**21)
        response = _round(driver, apps, solo, [solo.native(operator, [create])])
        assert [(u.pub_key.ed25519, u.power) for u in response.validator_updates] == [(pubkey, 1000)]
        for step in range(7, 9):
            _round(driver, apps, solo, solo.workload(step))
        assert len(driver.validators_at(10)) == 2
        assert [a.eth("eth_blockNumber") for a in apps] == [hex(10)] * count
        _compare_blocks(apps, solo, range(1, 11))
        # The EVM face reads the state the blocks made: a recipient's balance, the same everywhere.
        recipient = "0x" + bytes([0x30 + 1]).hex() * 20
        balances = {a.eth("eth_getBalance", recipient, "latest") for a in apps}
        assert balances == {hex(solo.app.view().accounts.get_balance(bytes.fromhex(recipient[2:])))}
    finally:
        for app in apps:
            app.stop()
        solo.close()


@pytest.mark.slow
def test_a_replica_behind_by_several_blocks_replays_them(tmp_path):
    """An app that was stopped for several heights catches up through the handshake alone."""
    solo = Chain(tmp_path, "solo")
    apps = []
    try:
        apps.append(App(tmp_path / "home", tmp_path, "app0"))
        driver = Driver(solo.genesis.document)
        driver.signers = {solo.app.options.validator_address}   # as the solo producer's commits: its validator only
        driver.handshake(apps[0].replica)
        for step in range(3):
            _round(driver, apps, solo, solo.workload(step))
        shutil.copytree(tmp_path / "home", tmp_path / "late", ignore=shutil.ignore_patterns("data"))
        (tmp_path / "late" / "data").mkdir()
        apps.append(App(tmp_path / "late", tmp_path, "app_late"))
        assert driver.handshake(apps[1].replica) == 0       # InitChain, then blocks 1..3 replayed
        _round(driver, apps, solo, solo.workload(3))
        _compare_blocks(apps, solo, range(1, 5))
        info = apps[1].replica.query.call("info", pb.RequestInfo())
        assert info.last_block_height == 4 and info.last_block_app_hash == solo.app.head[1].app_hash
        apps[1].stop()
        # The operator's check works on a CometBFT-driven chain too: every app hash again from genesis.
        done = chaind_process("replay", "--home", tmp_path / "late")
        assert done.returncode == 0, done.stderr
        assert "blocks 1..4 replayed from genesis: every block hash and app hash matches" in done.stdout
    finally:
        for app in apps:
            app.stop()
        solo.close()
