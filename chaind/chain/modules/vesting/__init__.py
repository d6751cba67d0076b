"""x/auth/vesting (Cosmos SDK v0.50): MsgCreateVestingAccount (continuous, delayed), MsgCreatePermanentLockedAccount
and MsgCreatePeriodicVestingAccount. The accounts and their locked coins are auth's (its keeper keeps them;
chain/modules/auth/vesting.py has the schedules), which bank, the EVM and the ERC-20 precompiles respect; Evmos'
evmos.vesting.v2.Query/Balances answers them. The module has no keeper of its own."""

from chaind.chain.module import Module, QueryService
from chaind.chain.modules.vesting.msgs import AMINO_SHAPES, MESSAGES
from chaind.chain.modules.vesting.query import VestingQuery
from chaind.pb.evmos.vesting.v2 import query_pb2, query_pb2_grpc

__all__ = ("MODULE",)

MODULE = Module(
    name="vesting",
    messages=MESSAGES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: VestingQuery(app)),),
    amino_shapes=AMINO_SHAPES,
    cli="chaind.chain.modules.vesting.cli",
)
