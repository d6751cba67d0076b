"""Listening addresses: `twistd chaind` options override the config for one run, and a face that cannot
listen (its port taken) stops the node with one line naming the face, the address and the setting."""

import os
import socket
import subprocess
import sys
import time

import pytest

from chaind.node import ListenError
from chaind.tap import Options
from helpers import make_node


@pytest.fixture
def taken():
    """A port some other program holds (bound and listening on 127.0.0.1)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    yield sock.getsockname()[1]
    sock.close()


@pytest.mark.parametrize("face, section, setting, key, option", [
    ("json-rpc", "json_rpc", "address", "[json-rpc] address", " or give --json-rpc-address"),
    ("websocket", "json_rpc", "ws_address", "[json-rpc] ws-address", " or give --ws-address"),
    ("cometbft", "cometbft_rpc", "address", "[cometbft-rpc] address", " or give --cometbft-address"),
    ("rest", "rest", "address", "[rest] address", " or give --rest-address"),
    ("grpc", "grpc", "address", "[grpc] address", " or give --grpc-address"),
])
def test_a_taken_port_is_one_line_naming_face_address_and_setting(tmp_path, taken, face, section, setting, key,
                                                                   option):
    node = make_node(tmp_path / "home", **{section: {setting: f"127.0.0.1:{taken}"}})
    with pytest.raises(ListenError) as raised:
        node.startService()
    message = str(raised.value)
    assert message.startswith(f"the {face} face cannot listen on 127.0.0.1:{taken} ("), message
    assert message.endswith(f"): change {key} in chaind.toml{option}") and "\n" not in message
    if face != "grpc":
        assert "Address already in use" in message
    # The faces bind first: nothing else had started (no block, no thread), and the bound faces are closed.
    assert not node.running and node.app.height == 0
    assert not any(child.running for child in node if child not in node.listeners.values())
    node.db.close()


def test_a_taken_abci_port_is_the_same_one_line(tmp_path, taken):
    # The ABCI socket (socket mode) is a listener like the faces: its taken port once crashed the message's
    # lookup of the setting (a KeyError) instead of naming [abci] address.
    node = make_node(tmp_path / "home", abci={"mode": "socket", "address": f"127.0.0.1:{taken}"})
    with pytest.raises(ListenError) as raised:
        node.startService()
    assert str(raised.value) == (f"the abci face cannot listen on 127.0.0.1:{taken} (Address already in use): "
                                 f"change [abci] address in chaind.toml or give --abci-address")
    node.db.close()


def test_twistd_options_override_the_configured_addresses():
    options = Options()
    options.parseOptions(["--json-rpc-address", "127.0.0.1:18545", "--ws-address", "0.0.0.0:18546",
                          "--cometbft-address", "127.0.0.1:36657", "--grpc-address", "127.0.0.1:19090",
                          "--rest-address", "127.0.0.1:19091"])
    assert options.addresses() == {"json-rpc": "127.0.0.1:18545", "websocket": "0.0.0.0:18546",
                                   "cometbft": "127.0.0.1:36657", "grpc": "127.0.0.1:19090",
                                   "rest": "127.0.0.1:19091"}
    with pytest.raises(Exception, match="--grpc-address must be host:port"):
        Options().parseOptions(["--grpc-address", "9090x"])


@pytest.mark.slow
def test_twistd_stops_with_one_line_when_a_port_is_taken_and_runs_on_the_given_ones(tmp_path, taken):
    home = tmp_path / "home"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    subprocess.run([sys.executable, "-m", "chaind.cli.main", "init", "me", "--home", home, "--dev"], check=True,
                   env=env)
    free = ["--json-rpc-address", "127.0.0.1:0", "--ws-address", "127.0.0.1:0", "--grpc-address", "127.0.0.1:0",
            "--rest-address", "127.0.0.1:0"]
    command = [sys.executable, "-c", "from twisted.scripts.twistd import run; run()", "-n", "--pidfile=",
               "chaind", "--home", str(home)]
    stopped = subprocess.run(command + free + ["--cometbft-address", f"127.0.0.1:{taken}"], env=env,
                             capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert stopped.returncode != 0
    assert "Traceback" not in stopped.stdout + stopped.stderr
    # twistd logs what is written to stderr: the last log line is the node's one line.
    assert stopped.stdout.strip().splitlines()[-1].endswith(
        f" [stderr#error] chaind: the cometbft face cannot listen on 127.0.0.1:{taken} (Address already in use): "
        "change [cometbft-rpc] address in chaind.toml or give --cometbft-address")
    # With every face moved, it starts and says where each listens.
    running = subprocess.Popen(command + free + ["--cometbft-address", "127.0.0.1:0"], env=env, cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines = []
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and not any(line.startswith("rest: ") for line in lines):
            line = running.stdout.readline()
            if not line:
                break
            lines.append(line)
        faces = {line.split(":")[0]: line.split("//")[1].strip() for line in lines if "://127.0.0.1:" in line}
        assert set(faces) >= {"json-rpc", "websocket", "cometbft", "grpc", "rest"}, lines
        assert all(not address.endswith(":0") for address in faces.values())
    finally:
        running.terminate()
        running.wait(timeout=60)
