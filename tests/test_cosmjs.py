"""@cosmjs/tendermint-rpc (npm, unmodified) against a running node's CometBFT RPC: genesis() decodes.

The package is installed once under ~/.cache (keyed by tests/cosmjs_client/package.json and node's major
version), never in the repository, and tests/cosmjs_client/client.js runs it through node in a subprocess.
Without node and npm the test is skipped, saying so.
"""

import json
import os
import subprocess

import pytest_twisted

from chaind.chain import valset
from cosmjs_driver import CLIENT_DIR
from helpers import in_thread


def run_client(cosmjs, url, calls):
    node, modules = cosmjs
    run = subprocess.run([node, str(CLIENT_DIR / "client.js")], input=json.dumps({"url": url, "calls": calls}),
                         capture_output=True, text=True, timeout=120, env={**os.environ, "NODE_PATH": str(modules)})
    assert run.returncode == 0, f"cosmjs client failed:\n{run.stderr}"
    return json.loads(run.stdout)


@pytest_twisted.inlineCallbacks
def test_cosmjs_reads_genesis(node, cosmjs):
    url = f"http://127.0.0.1:{node.port_of('cometbft')}"
    answer = yield in_thread(run_client, cosmjs, url, ["genesis"])
    genesis = answer["genesis"]
    g = node.genesis
    assert genesis["chainId"] == g.chain_id
    assert genesis["appHash"] == ""         # an empty initial state: CometBFT's empty app_hash
    assert genesis["consensusParams"]["block"]["maxGas"] == g.max_gas
    assert [(v["address"], v["pubkey"]["algorithm"], v["votingPower"]) for v in genesis["validators"]] == \
        [(valset.address_of(v.consensus_pubkey).hex(), "ed25519", str(v.power)) for v in g.validators]
    assert genesis["appState"] == g.document["app_state"]
