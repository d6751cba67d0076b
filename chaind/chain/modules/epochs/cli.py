"""epochs' CLI table: the epoch timers and one timer's current epoch."""

from chaind.chain.cli_table import Arg, Queries, Query

QUERY = Queries("chaind.pb.evmos.epochs.v1.query_pb2", "Epoch timers (day, week, ...) and their current epochs.", (
    Query("epoch-infos", "EpochInfos", "Every epoch timer: its start, duration and current epoch."),
    Query("current-epoch", "CurrentEpoch", "The current epoch of the timer IDENTIFIER (e.g. day).",
          args=(Arg("identifier"),)),
))
