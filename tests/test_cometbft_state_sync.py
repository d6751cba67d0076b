"""The real CometBFT v0.38 state-syncs a chaind node: three validators of a `chaind testnet` take snapshots every
few blocks; the fourth starts later with `statesync.enable`, trusting a height's hash read from a peer's RPC,
restores the newest snapshot over ABCI instead of replaying the blocks, and then follows the chain with the same
app hashes."""

import urllib.error

import pytest

from cometbft_network import comet_block_hashes, start_network

pytestmark = [pytest.mark.external, pytest.mark.slow]

INTERVAL = 5


def _snapshots_every(validator, interval):
    path = validator.home / "config" / "chaind.toml"
    text = path.read_text()
    assert "snapshot-interval = 0\n" in text
    path.write_text(text.replace("snapshot-interval = 0\n", f"snapshot-interval = {interval}\n"))


def _state_sync_from(joiner, peers, trust_height, trust_hash):
    with open(joiner.home / "config" / "config.toml", "a") as f:
        servers = ",".join(f"127.0.0.1:{p.ports['rpc']}" for p in peers)
        f.write(f'\n[statesync]\nenable = true\nrpc_servers = "{servers}"\ntrust_height = {trust_height}\n'
                f'trust_hash = "{trust_hash}"\ntrust_period = "168h0m0s"\ndiscovery_time = "5s"\n')


def test_a_node_joins_by_state_sync_and_follows_with_the_same_app_hashes(cometbft_binary, tmp_path):
    validators = start_network(cometbft_binary, tmp_path, 4)
    *running, joiner = validators
    try:
        for v in running:
            _snapshots_every(v, INTERVAL)
            v.start()
        for v in running:
            v.wait_height(3 * INTERVAL + 2, timeout=240)
        trust_height = INTERVAL
        _, trust_hash = comet_block_hashes(running[0], trust_height)
        _state_sync_from(joiner, running[:2], trust_height, trust_hash)
        joiner.start()
        top = running[0].height() + 3
        joiner.wait_height(top, timeout=240)
        log = joiner.comet_log.read_text()
        assert "Snapshot restored" in log or "Snapshot accepted, restoring" in log, joiner.logs()
        # CometBFT's block store starts above the snapshot's height: it has no block of its own below.
        restored = int(joiner.rpc("status")["sync_info"]["earliest_block_height"]) - 1
        assert restored >= 2 * INTERVAL and restored % INTERVAL == 0, restored
        assert f"height={restored}" in log.split("Snapshot restored")[1].splitlines()[0], joiner.logs()
        # Nothing below the snapshot was replayed: chaind has no state there.
        with pytest.raises(urllib.error.HTTPError):
            joiner.rest(f"/cosmos/bank/v1beta1/balances/{'chain1' + 'q' * 38}?height=3")
        for height in range(restored + 1, top + 1):
            assert comet_block_hashes(joiner, height) == comet_block_hashes(running[0], height), height
    finally:
        for v in validators:
            v.stop()
