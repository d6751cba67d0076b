"""--log-format: twistd's text by default, one JSON object per line with json (chaind/logs.py)."""

import io
import json
import os
import pathlib
import subprocess
import sys
import time

import pytest
from twisted.logger import Logger

from chaind import config, logs
from chaind.home import Home
from chaind.tap import Options

REPO = pathlib.Path(__file__).resolve().parent.parent
PORTS_ZERO = "".join(f'[{section}]\naddress = "127.0.0.1:0"\n' for section in ("cometbft-rpc", "grpc", "rest")) + \
    '[json-rpc]\naddress = "127.0.0.1:0"\nws-address = "127.0.0.1:0"\n'


def test_an_event_is_one_line_of_json_with_its_traceback():
    out = io.StringIO()
    logger = Logger(namespace="chaind.test", observer=logs.json_observer(out))
    logger.info("block {height} made", height=7)
    try:
        1 / 0  # noqa: B018 (the error whose traceback the log carries)
    except ZeroDivisionError:
        logger.failure("it broke at {height}", height=8)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["message"] == "block 7 made" and first["level"] == "info"
    assert first["namespace"] == "chaind.test" and first["time"].endswith("+00:00")
    assert second["level"] == "critical" and second["message"] == "it broke at 8"
    assert "ZeroDivisionError" in second["traceback"]


def test_an_unknown_format_is_refused():
    from twisted.python import usage

    with pytest.raises(usage.UsageError, match="--log-format"):
        Options().parseOptions(["--log-format", "xml"])


def _start(tmp_path, *args):
    home = Home(tmp_path / "home").init("logs", dev=True)
    config = tmp_path / "chaind.toml"
    config.write_text(PORTS_ZERO)
    twistd = pathlib.Path(sys.executable).parent / "twistd"
    return subprocess.Popen([str(twistd), "-n", "--pidfile=", "chaind", "--home", str(home.path),
                             "--config", str(config), *args], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _lines_until(process, marker, timeout=60):
    deadline = time.monotonic() + timeout
    lines = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if marker in line:
            return lines
    raise AssertionError(f"{marker!r} never logged:\n{''.join(lines)}")


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_the_node_logs_in_the_format_asked(tmp_path, fmt):
    process = _start(tmp_path, "--log-format", fmt)
    try:
        lines = _lines_until(process, "dev accounts")
    finally:
        process.terminate()
        process.wait(30)
    if fmt == "json":
        records = [json.loads(line) for line in lines]      # every line is a JSON object
        messages = [r["message"] for r in records]
        assert any(m.startswith("chaind: chain-id chain_9000-1") for m in messages)
        assert any("twistd" in m for m in messages)          # twistd's own start lines too
        assert all({"time", "level", "namespace", "message"} <= r.keys() for r in records)
    else:
        assert any(line.startswith("chaind: chain-id chain_9000-1") for line in lines)
        with pytest.raises(ValueError):
            json.loads(lines[0])


@pytest.mark.slow
def test_a_line_per_block_the_grpc_address_and_quiet(tmp_path):
    process = _start(tmp_path)
    try:
        lines = _lines_until(process, "committed block height=2 ")
    finally:
        process.terminate()
        process.wait(30)
    block = next(line for line in lines if "committed block height=2 " in line)
    assert "[chaind.consensus#info]" in block and " txs=0 gas=0 took=" in block and "ms (execute " in block
    grpc_line = next(line for line in lines if "gRPC server starting on " in line)
    assert grpc_line.split()[-1] == next(line for line in lines if line.startswith("grpc: ")).rsplit(":", 1)[1].strip()
    # --quiet: warnings and errors only; the banner still prints.
    quiet = _start(tmp_path / "quiet", "--quiet")
    try:
        lines = _lines_until(quiet, "dev accounts")
        time.sleep(2.5)             # two or three blocks' time
    finally:
        quiet.terminate()
        rest, _ = quiet.communicate(timeout=30)
    logged = "".join(lines) + rest
    assert "committed block" not in logged and "#info]" not in logged and "starting on" not in logged
    assert "chaind: chain-id chain_9000-1" in logged


def test_log_level_from_the_config_and_the_command_line():
    out = io.StringIO()
    observer = logs.json_observer(out)
    logger = Logger(namespace="chaind.test", observer=logs.filtered(observer, "warn"))
    logger.info("block {height} made", height=1)
    logger.warn("disk nearly full")
    Logger(namespace=logs.BANNER, observer=logs.filtered(observer, "error")).info("chaind: chain-id x")
    assert "block 1 made" not in out.getvalue() and "disk nearly full" in out.getvalue()
    assert "chaind: chain-id x" in out.getvalue()
    assert config.load(text='[node]\nlog-level = "warn"\n').node.log_level == "warn"
    with pytest.raises(config.ConfigError, match="log-level must be one of debug, info, warn, error"):
        config.load(text='[node]\nlog-level = "loud"\n')
    from twisted.python import usage

    with pytest.raises(usage.UsageError, match="--log-level must be one of"):
        Options().parseOptions(["--log-level", "loud"])
    with pytest.raises(usage.UsageError, match="not both"):
        Options().parseOptions(["--log-level", "info", "--quiet"])
