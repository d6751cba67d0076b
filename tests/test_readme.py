"""README's walkthrough ("A chain of your own") runs as written: its literal block's commands, each in bash with
the real `chaind` and `twistd`, against the node it starts; an edit that breaks a step fails here.

The test does what the reader does between the lines: it gives the node free ports (the reader's defaults
may be taken here), waits for the node to answer once it is started, and after each tx for the block that
holds it (a reader's pause), requiring the tx to succeed there.
"""

import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from helpers import free_ports, wait_until

REPO = pathlib.Path(__file__).resolve().parent.parent
FACES = ("json-rpc-address", "ws-address", "cometbft-address", "grpc-address", "rest-address")


def walkthrough():
    """The commands of README's "A chain of your own" block, one per line."""
    text = (REPO / "README.rst").read_text()
    section = text.split("\nA chain of your own\n", 1)[1]
    block = section.split("::\n\n", 1)[1]
    lines = []
    for line in block.splitlines():
        if line.strip() and not line.startswith("    "):
            break
        if line.strip():
            lines.append(line.strip())
    return lines


def comet(port, path):
    """The result of a CometBFT RPC GET, or None when it answers an error."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/{path}", timeout=10) as response:
            return json.loads(response.read()).get("result")
    except urllib.error.HTTPError:
        return None


def wait_for(check, what, timeout=60):
    """wait_until for the node this test started: an OSError (nothing listening yet) counts as not yet."""
    def answer():
        try:
            return check()
        except OSError:
            return None
    return wait_until(answer, what, timeout, every=0.1)


@pytest.mark.slow
def test_the_walkthrough_commands_run_as_written(tmp_path):
    lines = walkthrough()
    assert lines[0].startswith("export CHAIND_HOME=") and any(line.startswith("chaind start ") for line in lines)
    ports = dict(zip(FACES, free_ports(len(FACES)), strict=True))
    comet_port = ports["cometbft-address"]
    bin_dir = pathlib.Path(sys.executable).parent
    env = {**os.environ, "HOME": str(tmp_path), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
           "CHAIND_NODE": f"tcp://127.0.0.1:{comet_port}"}
    env.pop("CHAIND_HOME", None)
    assignments, node, outputs = [], None, []
    try:
        for line in lines:
            line = line.replace("127.0.0.1:8545", f"127.0.0.1:{ports['json-rpc-address']}")
            script = "set -e -o pipefail\n" + "\n".join(assignments) + "\n"
            if line.endswith("&"):
                flags = " ".join(f"--{face} 127.0.0.1:{port}" for face, port in ports.items())
                command = script + "exec " + line.rstrip("&").replace("twistd -n", "twistd -n --pidfile=") + flags
                node = subprocess.Popen(["bash", "-c", command], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
                wait_for(lambda: int((comet(comet_port, "status") or {"sync_info": {"latest_block_height": 0}})
                                     ["sync_info"]["latest_block_height"]) >= 1, "the node's first block")
                continue
            done = subprocess.run(["bash", "-c", script + line], env=env, cwd=tmp_path, capture_output=True,
                                  text=True, timeout=300)
            assert done.returncode == 0, (line, done.stdout, done.stderr)
            outputs.append((line, done.stdout))
            if re.match(r"(export )?\w+=", line):
                assignments.append(line)
            if line.startswith("chaind tx "):
                txhash = re.search(r"^txhash: ([0-9A-F]{64})$", done.stdout, re.M).group(1)
                result = wait_for(lambda txhash=txhash: comet(comet_port, f"tx?hash=0x{txhash}"),
                                  f"tx {txhash} in a block")
                assert result["tx_result"]["code"] == 0, (line, result["tx_result"])
        shown = dict(outputs)
        bob = [out for line, out in outputs if line.startswith("chaind q bank balances")][0]
        assert 'amount: "5000000000000000000"' in bob and "denom: achain" in bob
        delegations = [out for line, out in outputs if line.startswith("chaind q staking delegations")][0]
        assert "1000000000000000000" in delegations and "chainvaloper1" in delegations
        trace = json.loads([out for line, out in outputs if line.startswith("chaind attach")][0])
        assert trace["type"] == "CALL" and trace["value"] == "0x1" and trace["from"] == trace["to"]
        assert shown["chaind genesis validate"].startswith("File at ")
    finally:
        if node is not None:
            node.send_signal(signal.SIGTERM)
            try:
                log, _ = node.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                node.kill()
                log, _ = node.communicate()
    assert node is not None and "Traceback" not in log, log[-3000:]

