"""The latest block time a chain can run at: its time keys are 8-byte nanoseconds since 1970, which end in 2554
(long before the proto Timestamp's year 9999), a block writes them up to the longest period a module adds, and the
chain must go on after it.
"""

import attrs

from chaind import gocompat

# The last time an 8-byte time key holds: staking's and gov's queues, authz's and feegrant's expirations.
TIME_KEYS_END_NS = 2**64 - 1        # 2554-07-21T23:34:33.709551615Z
# Room for the blocks after the latest time: the producer holds block times there and the app then adds 1 ms a
# block, so a year is 3 * 10**10 blocks, each of which may still queue a module's longest period.
HEADROOM_NS = 365 * 24 * 3600 * 10**9


@attrs.frozen
class BlockTimeBound:
    """latest_ns: the latest block time the producer makes: the time keys' end, less reach_ns, the longest period
    a module adds to a block's time (module: which one), less HEADROOM_NS."""

    latest_ns: int
    reach_ns: int
    module: str | None

    def explain(self):
        """Why the bound is where it is, for an error message."""
        end = gocompat.format_time_seconds(TIME_KEYS_END_NS)
        if self.module is None:
            return f"the chain's time keys end at {end}, less a year for the blocks after it"
        return (f"the chain's time keys end at {end}, less the longest period a module adds to a block's time "
                f"({self.module}'s {gocompat.go_duration(self.reach_ns / 10**9)}) and a year for the blocks after it")


def bound(modules, view):
    """The BlockTimeBound of a chain of `modules` at the params of `view`."""
    reach, module = 0, None
    for m in modules:
        if m.time_reach is not None:
            found = m.time_reach(view)
            if found > reach:
                reach, module = found, m.name
    return BlockTimeBound(TIME_KEYS_END_NS - reach - HEADROOM_NS, reach, module)


def check_expiration(time_ns, error):
    """A user-given expiration (authz, feegrant) is kept in a time key: past their end it raises error(message)."""
    if time_ns > TIME_KEYS_END_NS:
        raise error(f"expiration ({time_ns // 10**9} s since 1970) is after the latest time the chain can keep, "
                    f"{gocompat.format_time_seconds(TIME_KEYS_END_NS)}")
