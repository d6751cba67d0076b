"""x/nft (cosmossdk.io/x/nft, as SDK v0.50 apps mount it): classes and NFTs from genesis or the keeper, MsgSend,
cosmos.nft.v1beta1.Query."""

from chaind.chain.module import Module, QueryService
from chaind.chain.modules.nft.genesis import GENESIS
from chaind.chain.modules.nft.keeper import NAME, NftKeeper
from chaind.chain.modules.nft.msgs import MESSAGES
from chaind.chain.modules.nft.query import NftQuery
from chaind.pb.cosmos.nft.v1beta1 import query_pb2, query_pb2_grpc

__all__ = ("MODULE", "NftKeeper")

MODULE = Module(
    name=NAME,
    keeper=lambda app: NftKeeper(app.keepers["bank"]),
    messages=MESSAGES,
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: NftQuery(app)),),
    genesis=GENESIS,
    cli="chaind.chain.modules.nft.cli",
)
