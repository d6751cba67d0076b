"""params' CLI table: subspace, subspaces (the SDK's legacy params queries)."""

from chaind.chain.cli_table import Arg, Queries, Query

QUERY = Queries("chaind.pb.cosmos.params.v1beta1.query_pb2", "A module's params by legacy subspace and key.", (
    Query("subspace", "Params", "The current value (amino JSON) of KEY in SUBSPACE (a module's name), e.g. "
          "staking MaxValidators.", args=(Arg("subspace"), Arg("key"))),
    Query("subspaces", "Subspaces", "Every subspace and its keys."),
))
