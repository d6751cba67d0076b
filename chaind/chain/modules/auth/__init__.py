"""x/auth: account numbers and public keys, module accounts; cosmos.auth.v1beta1.Query.

The keeper's reads and writes are this package's API for the app and the other modules.
"""

from chaind.chain.module import Module, QueryService, Store
from chaind.chain.modules.auth import store_layout
from chaind.chain.modules.auth.genesis import GENESIS
from chaind.chain.modules.auth.keeper import (
                                              FEE_COLLECTOR,
                                              account,
                                              account_any,
                                              account_of,
                                              all_addresses,
                                              ensure_account,
                                              key_type,
                                              locked_coins,
                                              record,
                                              sequence,
                                              set_public_key,
                                              set_vesting_account,
                                              vesting_account,
)
from chaind.chain.modules.auth.query import AuthQuery
from chaind.pb.cosmos.auth.v1beta1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "FEE_COLLECTOR", "account", "account_any", "account_of", "all_addresses", "ensure_account",
           "key_type", "locked_coins", "record", "sequence", "set_public_key", "set_vesting_account", "vesting_account")

MODULE = Module(
    name="auth",
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: AuthQuery(app)),),
    genesis=GENESIS,
    module_accounts={"fee_collector": (FEE_COLLECTOR, ())},
    store=Store(store_layout.STORE, mounted=True, layout=store_layout.layout),
    cli="chaind.chain.modules.auth.cli",
)
