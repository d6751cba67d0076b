"""auth's CLI table: accounts and the module's parameters (`query auth ...`, and `query account`)."""

from chaind.chain.cli_table import Arg, Queries, Query

QUERY = Queries("chaind.pb.cosmos.auth.v1beta1.query_pb2", "Accounts and auth parameters.", (
    Query("account", "Account", "An account by address (bech32 or 0x).", args=(Arg("address", "acc"),),
          root_alias="account"),
    Query("params", "Params", "The auth module's parameters."),
))
