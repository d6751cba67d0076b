"""x/erc20 (Evmos v20): token pairs between bank coins and ERC-20 contracts; evmos.erc20.v1.Query.

A native coin's pair (OWNER_MODULE) is served by a precompile (precompile.py; one listed in the params'
native_precompiles is a WERC20, werc20.py); an existing contract's pair (OWNER_EXTERNAL) moves value with
MsgConvertERC20 / MsgConvertCoin through the erc20 module account. Its IBC middleware on ICS-20 (ibc_middleware.py)
gives a new single-hop voucher its pair and precompile on receive, as Evmos v20's does.
Its keeper (app.keepers["erc20"]) is this package's API for the app, the other modules and the services.
"""

from chaind.chain.module import Module, QueryService, Store
from chaind.chain.modules.erc20.genesis import GENESIS
from chaind.chain.modules.erc20.ibc_middleware import Erc20IBCMiddleware
from chaind.chain.modules.erc20.keeper import (
                                               MODULE_ADDRESS,
                                               OWNER_EXTERNAL,
                                               OWNER_MODULE,
                                               PARAMS_KEY,
                                               PRECOMPILE_CODE,
                                               Erc20Keeper,
                                               is_denom,
                                               is_hex_address,
                                               pair_address,
                                               precompile_addresses,
)
from chaind.chain.modules.erc20.msgs import MESSAGES
from chaind.chain.modules.erc20.query import Erc20Query
from chaind.chain.modules.erc20.werc20 import open_state
from chaind.pb.evmos.erc20.v1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "MODULE_ADDRESS", "OWNER_EXTERNAL", "OWNER_MODULE", "PARAMS_KEY", "PRECOMPILE_CODE",
           "Erc20Keeper", "is_denom", "is_hex_address", "open_state", "pair_address", "precompile_addresses")

MODULE = Module(
    name="erc20",
    keeper=lambda app: Erc20Keeper(app.keepers["auth"]),
    messages=MESSAGES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: Erc20Query(app)),),
    genesis=GENESIS,
    module_accounts={"erc20": (MODULE_ADDRESS, ("minter", "burner"))},
    store=Store("erc20", mounted=True),
    ibc_middleware={"transfer": Erc20IBCMiddleware},
    cli="chaind.chain.modules.erc20.cli",
)
