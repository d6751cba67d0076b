"""anvil_mine's block times as Anvil's: a run goes at the clock's time (blocks mined within one second share
its timestamp) and leaves the clock where it was; an interval puts each block that far after the one before."""

import time

import pytest
import pytest_twisted

from anvil_process import post
from helpers import in_thread, url


def _head(address):
    block = post(address, "eth_getBlockByNumber", "latest", False)["result"]
    return int(block["number"], 16), int(block["timestamp"], 16)


def _timestamps(address, first, last):
    return [int(post(address, "eth_getBlockByNumber", hex(h), False)["result"]["timestamp"], 16)
            for h in range(first, last + 1)]


def mine_session(address):
    """The same mining on the node at `address`: each run's timestamps after the block before it, and the
    head's timestamp after the runs against the wall clock."""
    post(address, "evm_mine")
    height, before = _head(address)
    post(address, "anvil_mine", "0x5")
    plain = [t - before for t in _timestamps(address, height + 1, height + 5)]
    height, before = _head(address)
    post(address, "anvil_mine", "0x3", "0x10")
    spaced = [t - before for t in _timestamps(address, height + 1, height + 3)]
    post(address, "anvil_mine", "0x40")
    post(address, "evm_mine")
    ahead = _head(address)[1] - int(time.time())
    return plain, spaced, ahead


@pytest_twisted.inlineCallbacks
def test_a_long_run_goes_at_the_clocks_time_and_leaves_the_clock_alone(node):
    first = node.app.height + 1
    began = time.time_ns()
    answer = yield in_thread(post, url(node), "anvil_mine", hex(3000))
    took = time.time_ns() - began
    assert answer == {"jsonrpc": "2.0", "id": 1, "result": None}
    times = [node.app.block_at(h)[0].time_ns for h in range(first, node.app.height + 1)]
    assert len(times) == 3000
    # The run's blocks are at the clock's time, not 1 ms apart each whatever the clock says: the run spans no
    # more than the call took (3 s ahead of the clock, before).
    assert times[-1] - times[0] <= took, (times[-1] - times[0], took)
    gaps = sorted(b - a for a, b in zip(times, times[1:], strict=False))
    assert gaps[len(gaps) // 2] < 1_000_000
    assert all(gap > 0 for gap in gaps)
    # The block after the run is at the clock's time again.
    yield in_thread(post, url(node), "evm_mine")
    assert node.app.head[0].time_ns <= time.time_ns()


@pytest.mark.external
@pytest_twisted.inlineCallbacks
def test_anvil_mine_times_as_anvils(node, anvil):  # noqa: F811 (the fixture imported above)
    ours = yield in_thread(mine_session, url(node))
    theirs = yield in_thread(mine_session, anvil)
    # Five blocks in a row share the clock's second (or reach the next one, if it turns meanwhile).
    assert max(ours[0]) <= 1 and max(theirs[0]) <= 1, (ours, theirs)
    assert ours[1] == theirs[1] == [16, 32, 48]
    # After the runs, both heads are ahead of the wall clock by the intervals alone (48 s).
    assert abs(ours[2] - theirs[2]) <= 1, (ours, theirs)
    assert 47 <= ours[2] <= 49
