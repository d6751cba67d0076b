"""x/bank: balances per denom, supply and denom metadata; MsgSend and MsgMultiSend; cosmos.bank.v1beta1.Query."""

from chaind.chain.module import Module, QueryService, Store
from chaind.chain.modules.bank import precompile, store_layout
from chaind.chain.modules.bank.genesis import GENESIS
from chaind.chain.modules.bank.invariants import INVARIANTS
from chaind.chain.modules.bank.keeper import BankKeeper, format_coins, validate_coins
from chaind.chain.modules.bank.msgs import AMINO_SHAPES, MESSAGES
from chaind.chain.modules.bank.query import BankQuery
from chaind.chain.modules.bank.update_params import UPDATE_PARAMS
from chaind.pb.cosmos.bank.v1beta1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "BankKeeper", "format_coins", "validate_coins")

MODULE = Module(
    name="bank",
    # auth's keeper is built first (the registry lists auth before bank, and upgrade, before both, takes neither).
    keeper=lambda app: BankKeeper(app.keepers["auth"], app.genesis.base_denom, app.genesis.bech32_prefix,
                                  app.genesis.denom_metadata),
    messages=MESSAGES + UPDATE_PARAMS,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: BankQuery(app)),),
    genesis=GENESIS,
    amino_shapes=AMINO_SHAPES,
    invariants=INVARIANTS,
    store=Store(store_layout.STORE, mounted=True, layout=store_layout.layout),
    precompiles={precompile.ADDRESS: precompile.run},
    cli="chaind.chain.modules.bank.cli",
)
