"""evidence's CLI table: evidence (one, by hash), list (all)."""

from chaind.chain.cli_table import Arg, Queries, Query

QUERY = Queries("chaind.pb.cosmos.evidence.v1beta1.query_pb2", "The equivocations the chain has punished.", (
    Query("evidence", "Evidence", "One piece of evidence, by its hash (hex).", args=(Arg("hash", "text"),)),
    Query("list", "AllEvidence", "Every piece of evidence handled."),
))
