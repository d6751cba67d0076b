"""epochs' genesis: app_state.epochs.epochs (Evmos' day and week by default); a zero start time starts at genesis."""

import attrs
from google.protobuf import json_format

from chaind.chain.module_genesis import ModuleGenesis, to_json
from chaind.chain.modules.epochs.keeper import EpochInfo
from chaind.chain.modules.epochs.query import epoch_proto
from chaind.pb.evmos.epochs.v1 import genesis_pb2

GO_ZERO_TIME_NS = -62135596800 * 10**9
DAY_NS = 24 * 3600 * 10**9
_DEFAULT = [{"identifier": "week", "duration": f"{7 * 24 * 3600}s"}, {"identifier": "day", "duration": "86400s"}]
_ZERO = "0001-01-01T00:00:00Z"


def parse_epochs(section):
    """EpochInfos of the genesis section (Evmos JSON); raises ValueError naming what is wrong (Validate)."""
    entries = section.get("epochs", _DEFAULT) if section is not None else _DEFAULT
    infos, seen = [], set()
    for entry in entries:
        doc = {"start_time": _ZERO, "current_epoch_start_time": _ZERO, **entry}
        try:
            proto = json_format.ParseDict(doc, genesis_pb2.EpochInfo())
        except json_format.ParseError as e:
            raise ValueError(f"epochs: {e}") from None
        if not proto.identifier.strip():
            raise ValueError("epoch identifier cannot be blank")
        if proto.identifier in seen:
            raise ValueError(f"duplicated epoch entry {proto.identifier}")
        seen.add(proto.identifier)
        if proto.duration.ToNanoseconds() == 0:
            raise ValueError("epoch duration cannot be 0")
        if proto.current_epoch < 0:
            raise ValueError(f"current epoch cannot be negative: {proto.current_epoch_start_height}")
        if proto.current_epoch_start_height < 0:
            raise ValueError(f"current epoch start height cannot be negative: {proto.current_epoch_start_height}")
        infos.append(EpochInfo(proto.identifier, proto.start_time.ToNanoseconds(), proto.duration.ToNanoseconds(),
                               proto.current_epoch, proto.current_epoch_start_time.ToNanoseconds(),
                               proto.epoch_counting_started, proto.current_epoch_start_height))
    return infos


def validate(section, context):
    unknown = set(section or {}) - {"epochs"}
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)}")
    return parse_epochs(section)


def init_genesis(app, ctx, infos):
    """Evmos' InitGenesis: a zero start time starts at genesis; every epoch's current one starts at this height."""
    g = app.genesis
    # InitChain's height: 0 on a chain starting at 1, else its initial height (baseapp).
    height = g.initial_height if g.initial_height > 1 else 0
    keeper = app.keepers["epochs"]
    for info in infos:
        start = g.genesis_time_ns if info.start_time_ns == GO_ZERO_TIME_NS else info.start_time_ns
        keeper.set_epoch_info(ctx, attrs.evolve(info, start_time_ns=start, current_epoch_start_height=height))


def default(context):
    return {"epochs": [dict(e) for e in _DEFAULT]}


def export_genesis(app, view):
    return {"epochs": [to_json(epoch_proto(info)) for info in app.keepers["epochs"].epoch_infos(view)]}



GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis)
