"""x/auth: account numbers and public keys, vesting accounts, module accounts; cosmos.auth.v1beta1.Query.

Its keeper (AuthKeeper, app.keepers["auth"]) is this package's API for the app and the other modules.
"""

from chaind.chain.module import Module, QueryService, Store
from chaind.chain.modules.auth import store_layout
from chaind.chain.modules.auth.genesis import GENESIS
from chaind.chain.modules.auth.keeper import FEE_COLLECTOR, AuthKeeper, account_of
from chaind.chain.modules.auth.query import AuthQuery
from chaind.pb.cosmos.auth.v1beta1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "FEE_COLLECTOR", "AuthKeeper", "account_of")

MODULE = Module(
    name="auth",
    keeper=lambda app: AuthKeeper(app.genesis.bech32_prefix, app.genesis.auth_params, app.module_accounts),
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: AuthQuery(app)),),
    genesis=GENESIS,
    module_accounts={"fee_collector": (FEE_COLLECTOR, ())},
    store=Store(store_layout.STORE, mounted=True, layout=store_layout.layout),
    cli="chaind.chain.modules.auth.cli",
)
