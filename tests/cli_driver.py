"""The `chaind` CLI as the tests drive it: the real entry point in-process (click's runner) against a node,
its keyring flags and fee, and the committed TxResponse of what it sends."""

import base64
import json

import pytest_twisted
from click.testing import CliRunner
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from chaind.cli.main import main
from helpers import in_thread, until

DEV0_B32 = "chain17w0adeg64ky0daxwd2ugyuneellmjgnxkl0eq4"
DEV_MNEMONIC = "test test test test test test test test test test test junk"
FEE = "--fees=200000000000000000achain"
VALOPER = "chainvaloper17w0adeg64ky0daxwd2ugyuneellmjgnxvhw770"      # dev account 0, the genesis validator
STAKE_TOKEN = "0xe141e8c6980EF5aF5f7da847B7f802702239f36C"           # the stake coin's ERC-20
CHAIN = 10**18


def cli(*args, stdin=None):
    """click's Result of the chaind entry point (stdout and stderr apart)."""
    return CliRunner().invoke(main, [str(a) for a in args], input=stdin)


def node_flag(node):
    return f"--node=tcp://127.0.0.1:{node.port_of('cometbft')}"


def ok(result):
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def failed(result, text):
    assert result.exit_code != 0, result.stdout
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("Error: ") and text in lines[-1], result.stderr
    assert "Traceback" not in result.stderr
    return result


def run(*args, stdin=None):
    return in_thread(lambda: cli(*args, stdin=stdin))


def js(result):
    return json.loads(ok(result).stdout)


def committed(n, txhash):
    """The committed tx's TxResponse (JSON) once `q tx` finds it."""
    def found(result):
        return result.exit_code == 0 and json.loads(result.stdout)
    return until(lambda: run("q", "tx", txhash, n, "-o", "json").addCallback(found), f"tx {txhash} committed")


@pytest_twisted.inlineCallbacks
def send_tx(n, keys, *args):
    """Broadcast a tx command with -y; its committed TxResponse, which must have succeeded."""
    sent = js((yield run("tx", *args, FEE, "--gas", "400000", "-y", "-o", "json", n, *keys)))
    found = yield committed(n, sent["txhash"])
    assert found["code"] == 0, found["raw_log"]
    return found


def staking_node(node_factory):
    # Empty blocks keep coming, so H+1 and H+2 follow a change at H without more txs.
    return node_factory(chain={"block_interval": 0.05, "empty_blocks": True})


def new_consensus_key():
    key = ed25519.Ed25519PrivateKey.generate().public_key()
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return json.dumps({"@type": "/cosmos.crypto.ed25519.PubKey", "key": base64.b64encode(raw).decode()})
