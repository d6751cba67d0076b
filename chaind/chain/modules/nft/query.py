"""cosmos.nft.v1beta1.Query: balances, owners, supplies, NFTs and classes, as x/nft's gRPC querier answers."""

from chaind import errors
from chaind.chain.modules.nft.keeper import NAME
from chaind.chain.queries import Reader, address_bytes, paginate, query
from chaind.pb.cosmos.nft.v1beta1 import query_pb2, query_pb2_grpc


class NftQuery(Reader, query_pb2_grpc.QueryServicer):
    def __init__(self, app):
        super().__init__(app)
        self.prefix = app.genesis.bech32_prefix
        self.keeper = app.keepers[NAME]

    def _address(self, text):
        try:
            return address_bytes(text, self.prefix)
        except ValueError as e:
            raise errors.failed(str(e)) from None

    @staticmethod
    def _class_id(text):
        if not text:
            raise errors.failed("empty class id")

    @query(inline=True)
    def Balance(self, request, view):
        self._class_id(request.class_id)
        owner = self._address(request.owner)
        return query_pb2.QueryBalanceResponse(amount=self.keeper.balance(view, owner, request.class_id))

    @query(inline=True)
    def Owner(self, request, view):
        self._class_id(request.class_id)
        if not request.id:
            raise errors.failed("empty nft id")
        found = self.keeper.owner(view, request.class_id, request.id)
        return query_pb2.QueryOwnerResponse(owner=self.keeper.bank.bech32(found) if found else "")

    @query(inline=True)
    def Supply(self, request, view):
        self._class_id(request.class_id)
        return query_pb2.QuerySupplyResponse(amount=self.keeper.supply(view, request.class_id))

    @query
    def NFTs(self, request, view):
        if not request.class_id and not request.owner:
            raise errors.failed("must provide at least one of classID or owner")
        if request.owner:
            owner = self._address(request.owner)
            items = [(key, self.keeper.get_nft(view, cid, nid))
                     for key, cid, nid in self.keeper.owned(view, owner, request.class_id or None)]
        else:
            items = self.keeper.nfts_of_class(view, request.class_id)
        nfts, page = paginate(items, request.pagination)
        return query_pb2.QueryNFTsResponse(nfts=nfts, pagination=page)

    @query(inline=True)
    def NFT(self, request, view):
        self._class_id(request.class_id)
        if not request.id:
            raise errors.failed("empty nft id")
        found = self.keeper.get_nft(view, request.class_id, request.id)
        if found is None:
            raise errors.failed(f"not found nft: class: {request.class_id}, id: {request.id}: nft does not exist")
        return query_pb2.QueryNFTResponse(nft=found)

    @query(inline=True)
    def Class(self, request, view):
        self._class_id(request.class_id)
        found = self.keeper.get_class(view, request.class_id)
        if found is None:
            raise errors.failed(f"not found class: {request.class_id}: nft class does not exist")
        return query_pb2.QueryClassResponse(**{"class": found})

    @query
    def Classes(self, request, view):
        found, page = paginate(self.keeper.classes(view), request.pagination)
        return query_pb2.QueryClassesResponse(classes=found, pagination=page)
