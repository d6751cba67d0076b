"""`twistd -n chaind` refusing to start, as a user meets it: a taken port, a busy or half-made home, a bad
config value each end the process with one line naming the cause, never a traceback."""

import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time

import pytest

from chaind.home import Home
from chaind.store.db import Database

REPO = pathlib.Path(__file__).resolve().parent.parent
TWISTD = pathlib.Path(sys.executable).parent / "twistd"
# Every face on, each on a port of its own choosing.
ALL_FACES = {
    "json-rpc": {"address": "127.0.0.1:0", "ws-address": "127.0.0.1:0"},
    "cometbft-rpc": {"address": "127.0.0.1:0"},
    "grpc": {"address": "127.0.0.1:0"},
    "rest": {"address": "127.0.0.1:0"},
    "explorer": {"enable": True, "address": "127.0.0.1:0"},
    "instrumentation": {"prometheus": True, "prometheus-listen-addr": "127.0.0.1:0"},
}


def config_text(**changes):
    """ALL_FACES with `changes` ({section: {key: value}}, sections spelled with _ for -) as TOML."""
    sections = {name: dict(values) for name, values in ALL_FACES.items()}
    for name, values in changes.items():
        sections.setdefault(name.replace("_", "-"), {}).update(values)
    return "".join(f"[{name}]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in values.items())
                   for name, values in sections.items())


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return Home(tmp_path_factory.mktemp("refusals") / "home").init("refusals", dev=True)


@pytest.fixture
def taken():
    """A port some other program holds."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    yield sock.getsockname()[1]
    sock.close()


def run_twistd(home_path, config_text, cwd, timeout=120):
    config = pathlib.Path(cwd) / "chaind.toml"
    config.write_text(config_text)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([str(TWISTD), "-n", "--pidfile=", "chaind", "--home", str(home_path), "--config",
                           str(config)], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def the_one_line(done):
    """The one line the node stopped with, on stderr (which twistd -n logs on stdout as [stderr#error])."""
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "Traceback" not in output, output
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    lines += [line.partition(" [stderr#error] ")[2] for line in done.stdout.splitlines() if " [stderr#error] " in line]
    assert len(lines) == 1, output
    return lines[0]


@pytest.mark.slow
@pytest.mark.parametrize("face, section, key, option", [
    ("rest", "rest", "address", " or give --rest-address"),
    ("explorer", "explorer", "address", " or give --explorer-address"),
    ("metrics", "instrumentation", "prometheus-listen-addr", " or give --metrics-address"),
    ("abci", "abci", "address", " or give --abci-address"),
])
def test_a_taken_port_of_a_late_face_is_one_line(home, tmp_path, taken, face, section, key, option):
    # The ABCI socket listens in socket mode (CometBFT drives the chain).
    changes = {section: {key: f"127.0.0.1:{taken}", **({"mode": "socket"} if face == "abci" else {})}}
    done = run_twistd(home.path, config_text(**changes), tmp_path)
    line = the_one_line(done)
    assert line == (f"chaind: the {face} face cannot listen on 127.0.0.1:{taken} (Address already in use): "
                         f"change [{section}] {key} in chaind.toml{option}"), line


@pytest.mark.slow
def test_a_second_node_on_a_home_in_use_is_one_line(home, tmp_path):
    # What a running node holds: its store, open (LevelDB's LOCK taken).
    held = Database(home.data_dir / "chain.db")
    try:
        line = the_one_line(run_twistd(home.path, config_text(), tmp_path))
    finally:
        held.close()
    assert line.startswith("chaind: cannot open the chain's store (") and "LOCK" in line, line
    assert line.endswith("); is the node still running?"), line


@pytest.mark.slow
def test_a_home_without_its_data_directory_gets_one(tmp_path):
    # A home assembled by hand or by a tool: config/ (genesis, keys, chaind.toml) and no data/.
    home = Home(tmp_path / "home").init("assembled", dev=True)
    shutil.rmtree(home.data_dir)
    config = tmp_path / "chaind.toml"
    config.write_text(config_text())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen([str(TWISTD), "-n", "--pidfile=", "chaind", "--home", str(home.path), "--config",
                                str(config)], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    lines = []
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not any("dev accounts" in line for line in lines):
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
    finally:
        process.terminate()
        process.wait(60)
    assert any("dev accounts" in line for line in lines), "".join(lines)
    assert "Traceback" not in "".join(lines)
    assert (home.data_dir / "chain.db").is_dir()
    assert home.data_dir.stat().st_mode & 0o777 == 0o700


@pytest.mark.slow
@pytest.mark.parametrize("section, key, value", [
    ("json-rpc", "address", "localhost"),
    ("explorer", "address", "localhost"),
    ("instrumentation", "prometheus-listen-addr", ":abc"),
    ("abci", "cometbft-rpc", "127.0.0.1:99999"),
])
def test_a_configured_address_that_is_not_host_port_is_one_line(home, tmp_path, section, key, value):
    line = the_one_line(run_twistd(home.path, config_text(**{section: {key: value}}), tmp_path))
    # As the twistd option overriding it says (--json-rpc-address must be host:port (e.g. ...), not '...').
    assert line == f"chaind: [{section}] {key} must be host:port (e.g. 127.0.0.1:8545), not {value!r}", line


@pytest.mark.slow
@pytest.mark.parametrize("section, key, value, message", [
    ("json-rpc", "api", "eth,net,debgu", "[json-rpc] api names an unknown namespace 'debgu'; known: eth, net, web3, "
                                         "txpool, debug, dev"),
    ("chain", "block-interval", -1, "[chain] block-interval must be at least 0, got -1.0"),
    ("chain", "max-block-txs", 0, "[chain] max-block-txs must be at least 1, got 0"),
])
def test_a_configured_value_out_of_range_is_one_line_naming_its_key(home, tmp_path, section, key, value, message):
    line = the_one_line(run_twistd(home.path, config_text(**{section: {key: value}}), tmp_path))
    assert line == f"chaind: {message}", line


def _chaind_start(home_path, config_text, cwd, *args):
    config = pathlib.Path(cwd) / f"{pathlib.Path(home_path).name}.toml"
    config.write_text(config_text)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen([sys.executable, "-m", "chaind.cli.main", "start", "--home", str(home_path), "--config",
                             str(config), *args], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _until_banner(process, timeout=120):
    lines, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline and not any("dev accounts" in line for line in lines):
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
    return "".join(lines)


@pytest.mark.slow
def test_chaind_start_takes_every_faces_address_and_leaves_no_pid_file(tmp_path, taken):
    first = Home(tmp_path / "first").init("first", dev=True)
    second = Home(tmp_path / "second").init("second", dev=True)
    # Every face of the config on a taken port, each moved for this run by its flag.
    busy = {section: {key: f"127.0.0.1:{taken}" for key in values if "addr" in key}
            for section, values in ALL_FACES.items()}
    moved = [arg for option in ("--json-rpc-address", "--ws-address", "--cometbft-address", "--grpc-address",
                                "--rest-address", "--explorer-address", "--metrics-address")
             for arg in (option, "127.0.0.1:0")]
    running = _chaind_start(first.path, config_text(**busy), tmp_path, *moved)
    try:
        banner = _until_banner(running)
        assert "explorer: http://127.0.0.1:" in banner and "metrics: http://127.0.0.1:" in banner, banner
        assert f":{taken}" not in banner
        # A second node started from the same folder (another home) runs too: no twistd.pid holds the folder.
        assert not (tmp_path / "twistd.pid").exists()
        other = _chaind_start(second.path, config_text(), tmp_path)
        try:
            assert "dev accounts" in _until_banner(other)
        finally:
            other.terminate()
            other.wait(60)
    finally:
        running.terminate()
        running.wait(60)
