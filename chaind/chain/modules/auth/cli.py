"""auth's CLI table: accounts and the module's parameters (`query auth ...`, and `query account`)."""

from chaind.chain.cli_table import Arg, Queries, Query

# The SDK v0.50's x/auth autocli commands, with its names and arguments.
QUERY = Queries("chaind.pb.cosmos.auth.v1beta1.query_pb2", "Accounts and auth parameters.", (
    Query("accounts", "Accounts", "Query all the accounts."),
    Query("account", "Account", "An account by address (bech32 or 0x).", args=(Arg("address", "acc"),),
          root_alias="account"),
    Query("account-info", "AccountInfo", "Query account info which is common to all account types.",
          args=(Arg("address", "acc"),)),
    Query("module-accounts", "ModuleAccounts", "Query all module accounts."),
    Query("module-account", "ModuleAccountByName", "Query module account info by module name (e.g. gov).",
          args=(Arg("name", name="module-name"),)),
    Query("params", "Params", "The auth module's parameters."),
))
