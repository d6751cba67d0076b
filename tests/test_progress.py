"""Progress of long work (chaind/progress.py) and `chaind replay`'s use of it."""

import io

import pytest_twisted
from click.testing import CliRunner

from chaind.cli.main import main
from chaind.progress import Progress
from evm_client import OTHER, send, w3
from helpers import chaind_process, in_thread


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_without_a_terminal_a_plain_line_every_interval_and_a_last_one():
    out, clock = io.StringIO(), Clock()
    progress = Progress("replay", out, tty=False, interval=10.0, clock=clock)
    for height in range(1, 101):
        clock.now += 0.5            # 2 blocks/s
        progress.update(height, 100)
    lines = out.getvalue().splitlines()
    # A line each 10 s (20 blocks), the last one when the work is done.
    assert lines == [f"replay: height {h}/100 ({h}%), 2.0 blocks/s, time left 0:00:{(100 - h) // 2:02d}"
                     for h in (20, 40, 60, 80)] + ["replay: height 100/100 (100%), 2.0 blocks/s, done"]
    assert "\r" not in out.getvalue() and "\x1b" not in out.getvalue()


def test_work_of_unknown_size_counts_what_is_done_then_says_done():
    out, clock = io.StringIO(), Clock()
    progress = Progress("anvil_dumpState", out, tty=False, interval=10.0, clock=clock, unit="entries", start=0)
    for done in range(1000, 31000, 1000):
        clock.now += 1.0            # 1,000 entries/s
        progress.update(done, None)
    progress.update(30500, 30500)
    assert out.getvalue().splitlines() == [
        "anvil_dumpState: 10,000 entries, 1,000.0 entries/s", "anvil_dumpState: 20,000 entries, 1,000.0 entries/s",
        "anvil_dumpState: 30,000 entries, 1,000.0 entries/s",
        "anvil_dumpState: 30,500/30,500 entries (100%), 1,016.7 entries/s, done"]


def test_on_a_terminal_one_line_is_redrawn():
    out, clock = io.StringIO(), Clock()
    progress = Progress("replay", out, tty=True, clock=clock)
    for height in range(1, 4):
        clock.now += 1
        progress.update(height, 3)
    text = out.getvalue()
    assert text.count("\r") == 3 and text.count("\n") == 1 and text.endswith("done\x1b[K\n")


def test_work_that_stops_early_ends_the_terminal_line():
    out = io.StringIO()
    clock = Clock()
    progress = Progress("replay", out, tty=True, clock=clock)
    clock.now += 1
    progress.update(1, 10)
    progress.end()
    assert out.getvalue().startswith("\rreplay: height 1/10") and out.getvalue().endswith("\x1b[K\n")


@pytest_twisted.inlineCallbacks
def test_chaind_replay_prints_plain_progress_lines_when_not_a_terminal(node):
    for nonce in range(3):
        yield in_thread(send, w3(node), {"to": OTHER, "value": 1, "nonce": nonce})
    head = node.app.height
    yield node.stopService()
    result = CliRunner().invoke(main, ["replay", "--home", str(node.home.path)])
    assert result.exit_code == 0, result.output
    assert f"replay: height {head}/{head} (100%)" in result.output
    assert "blocks/s, done" in result.output and "\r" not in result.output
    assert "every block hash and app hash matches" in result.output


@pytest_twisted.inlineCallbacks
def test_chaind_replay_ends_with_a_clean_stderr(node):
    """No `Error in sys.excepthook` at exit: a plyvel handle left to the interpreter's teardown used to print it."""
    yield in_thread(send, w3(node), {"to": OTHER, "value": 1, "nonce": 0})
    head = node.app.height
    yield node.stopService()
    result = yield in_thread(chaind_process, "replay", "--home", node.home.path)
    assert result.returncode == 0, result.stderr
    assert "every block hash and app hash matches" in result.stdout
    # Only the progress lines.
    lines = result.stderr.splitlines()
    assert lines and all(line.startswith("replay: height ") for line in lines), result.stderr
    assert f"replay: height {head}/{head} (100%)" in lines[-1]
