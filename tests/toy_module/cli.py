"""The toy module's CLI table: `query toy greeting NAME` (the query_pb2 its package compiled)."""

from chaind.chain.cli_table import Arg, Queries, Query

QUERY = Queries("toy_query_pb2", "The toy module's greeting.", (
    Query("greeting", "Greeting", "The motto for NAME and the blocks the module has counted.", args=(Arg("name"),)),
))
