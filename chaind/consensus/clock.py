"""The producer's block clock: wall time, moved by a dev node's time controls.

Block times stay monotonic whatever is asked: the app keeps each block at least 1 ms after its parent.
They stay within what the chain can encode (chain/block_time.py).
"""

import time

import attrs


@attrs.define
class BlockClock:
    offset_ns: int = 0              # added to wall time (evm_increaseTime, anvil_mine's interval)
    next_ns: int = None             # the exact time of the next block (evm_setNextBlockTimestamp)
    interval_ns: int = None         # each block this long after its parent (anvil_setBlockTimestampInterval)

    def block_time(self, parent_ns, latest_ns):
        """The time of the block after one made at `parent_ns`; an exact next time is used once, and
        time goes on from it. Never after `latest_ns` (chain/block_time.py): the dev methods refuse to set
        a later time, and one reached as time goes on is held there (the app adds 1 ms a block)."""
        now = time.time_ns()
        chosen = self._chosen(parent_ns, now)
        if self.next_ns is not None:
            self.next_ns = None
            self.offset_ns = chosen - now
        return min(chosen, latest_ns)

    def peek(self, parent_ns, latest_ns):
        """What block_time would answer now, the clock left as it is: the pending block's time."""
        return min(self._chosen(parent_ns, time.time_ns()), latest_ns)

    def _chosen(self, parent_ns, now):
        if self.next_ns is not None:
            return self.next_ns
        if self.interval_ns is not None:
            return parent_ns + self.interval_ns
        return now + self.offset_ns

    def state(self):
        return (self.offset_ns, self.next_ns, self.interval_ns)

    def restore(self, state):
        self.offset_ns, self.next_ns, self.interval_ns = state
