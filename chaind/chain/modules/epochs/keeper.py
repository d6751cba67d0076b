"""epochs' keeper and state: one EpochInfo record per identifier, kept in identifier order (as the SDK's prefix
store)."""

import functools

import attrs
import orjson

from chaind.store.keys import compose

_PREFIX = compose("epochs", "info")


@attrs.define
class EpochInfo:
    identifier: str
    start_time_ns: int
    duration_ns: int
    current_epoch: int = 0
    current_epoch_start_time_ns: int = 0
    epoch_counting_started: bool = False
    current_epoch_start_height: int = 0

    # Times as strings: Go's zero time, in nanoseconds, is beyond 64 bits.
    def to_record(self):
        return orjson.dumps({k: str(v) if k.endswith("_ns") else v for k, v in attrs.asdict(self).items()})

    @classmethod
    def from_record(cls, raw):
        return cls(**{k: int(v) if k.endswith("_ns") else v for k, v in orjson.loads(raw).items()})


def _key(identifier):
    # The identifier unprefixed: iteration runs in identifier order, as the SDK's store does.
    return _PREFIX + identifier.encode()


@functools.lru_cache(maxsize=64)
def peek(raw):
    """The EpochInfo of a record, shared by every reader: not to be changed (from_record makes one to change).
    Every block looks at each epoch, and most find nothing to do: each record is decoded once for that."""
    return EpochInfo.from_record(raw)


class EpochsKeeper:
    """x/epochs' keeper: reads take a state (a view or a block's context), writes a block's context."""

    def epoch_info(self, state, identifier):
        raw = state.store.get(_key(identifier))
        return None if raw is None else EpochInfo.from_record(raw)

    def epoch_infos(self, state):
        return [EpochInfo.from_record(raw) for _, raw in state.store.iterate(_PREFIX)]

    def epoch_records(self, state):
        """The stored record of each EpochInfo, in identifier order."""
        return [raw for _, raw in state.store.iterate(_PREFIX)]

    def set_epoch_info(self, ctx, info):
        ctx.store.set(_key(info.identifier), info.to_record())
