"""cosmos.bank.v1beta1.Query: balances, supply, params and denom metadata, as x/bank's gRPC querier answers."""

from google.protobuf import json_format

from chaind import errors
from chaind.chain.queries import DEFAULT_LIMIT, Reader, address_bytes, check_denom, paginate, query
from chaind.pb.cosmos.bank.v1beta1 import bank_pb2, query_pb2, query_pb2_grpc
from chaind.pb.cosmos.base.query.v1beta1 import pagination_pb2
from chaind.pb.cosmos.base.v1beta1 import coin_pb2


def _coin(denom, amount):
    return coin_pb2.Coin(denom=denom, amount=str(amount))


class BankQuery(Reader, query_pb2_grpc.QueryServicer):
    def __init__(self, app):
        super().__init__(app)
        self.bank = app.keepers["bank"]
        self.prefix = app.genesis.bech32_prefix
        # Genesis' metadata, parsed once; registered ERC-20 coins add theirs in state (read at the height asked).
        self.genesis_metadata = {m["base"]: json_format.ParseDict(m, bank_pb2.Metadata())
                                 for m in self.bank.denom_metadata}

    def _address(self, text):
        try:
            return address_bytes(text, self.prefix)
        except ValueError as e:
            raise errors.invalid_argument(f"invalid address: {e}") from None

    def _balances(self, view, request):
        """The page of (denom, amount) of the address' balances, and its PageResponse."""
        balances = self.bank.all_balances(view, self._address(request.address))
        if len(balances) <= DEFAULT_LIMIT and not request.HasField("pagination"):
            # The default page holds them all: paginate's answer, without pairing each with its key.
            return balances, pagination_pb2.PageResponse(total=len(balances))
        return paginate([(d.encode(), (d, a)) for d, a in balances], request.pagination)

    @query(inline=True)
    def Balance(self, request, view):
        check_denom(request.denom)
        address = self._address(request.address)
        return query_pb2.QueryBalanceResponse(
            balance=_coin(request.denom, self.bank.balance(view, address, request.denom)))

    @query(inline=True)
    def AllBalances(self, request, view):
        balances, page = self._balances(view, request)
        response = query_pb2.QueryAllBalancesResponse(pagination=page)
        # Coins made in place: a Coin passed to the constructor would be made, then copied.
        add, resolve = response.balances.add, request.resolve_denom
        for denom, amount in balances:
            if resolve:
                found = self._metadata(view, denom)
                if found is not None and found.display:
                    denom = found.display
            add(denom=denom, amount=str(amount))
        return response

    def _now(self, view):
        """The unix time of the block at the view's height: what a vesting account has locked is as of then."""
        return self.app.block_at(view.height)[0].time_ns // 10**9

    @query(inline=True)
    def SpendableBalances(self, request, view):
        address = self._address(request.address)
        locked = self.bank.auth.locked_coins(view, address, self._now(view))
        spendable = [(d, a - locked.get(d, 0)) for d, a in self.bank.all_balances(view, address)]
        # The SDK's SpendableCoins lists the denoms held, each less what is locked (zero kept, never negative).
        items = [(d.encode(), _coin(d, max(0, a))) for d, a in spendable]
        balances, page = paginate(items, request.pagination)
        return query_pb2.QuerySpendableBalancesResponse(balances=balances, pagination=page)

    @query(inline=True)
    def SpendableBalanceByDenom(self, request, view):
        address = self._address(request.address)
        check_denom(request.denom)
        return query_pb2.QuerySpendableBalanceByDenomResponse(
            balance=_coin(request.denom, self.bank.spendable(view, address, request.denom, self._now(view))))

    @query
    def TotalSupply(self, request, view):
        items = [(d.encode(), _coin(d, a)) for d, a in self.bank.total_supply(view)]
        supply, page = paginate(items, request.pagination)
        return query_pb2.QueryTotalSupplyResponse(supply=supply, pagination=page)

    @query(inline=True)
    def SupplyOf(self, request, view):
        check_denom(request.denom)
        return query_pb2.QuerySupplyOfResponse(amount=_coin(request.denom, self.bank.supply(view, request.denom)))

    @query(inline=True)
    def Params(self, request, view):
        return query_pb2.QueryParamsResponse(params=bank_pb2.Params(
            default_send_enabled=self.bank.default_send_enabled(view)))

    def _metadata(self, view, denom):
        found = self.genesis_metadata.get(denom)
        if found is None:
            stored = self.bank.metadata(view, denom)
            found = None if stored is None else json_format.ParseDict(stored, bank_pb2.Metadata())
        return found

    @query(inline=True)
    def DenomMetadata(self, request, view):
        check_denom(request.denom)
        found = self._metadata(view, request.denom)
        if found is None:
            raise errors.not_found(f"client metadata for denom {request.denom}")
        return query_pb2.QueryDenomMetadataResponse(metadata=found)

    @query
    def DenomsMetadata(self, request, view):
        everything = dict(self.genesis_metadata)
        for stored in self.bank.stored_metadata(view):
            everything.setdefault(stored["base"], json_format.ParseDict(stored, bank_pb2.Metadata()))
        # Sorted by base denom, as the SDK's store keeps them.
        items = [(base.encode(), m) for base, m in sorted(everything.items())]
        metadatas, page = paginate(items, request.pagination)
        return query_pb2.QueryDenomsMetadataResponse(metadatas=metadatas, pagination=page)
