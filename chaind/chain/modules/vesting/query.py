"""evmos.vesting.v2.Query/Balances (`query vesting balances`, as our interface document lists it) for the SDK's
vesting accounts: locked is LockedCoins, unvested GetVestingCoins and vested GetVestedCoins, at the height's
block time."""

from chaind import errors
from chaind.chain.modules.auth import vesting
from chaind.chain.queries import Reader, address_bytes, query
from chaind.pb.evmos.vesting.v2 import query_pb2, query_pb2_grpc


class VestingQuery(Reader, query_pb2_grpc.QueryServicer):
    @query(inline=True)
    def Balances(self, request, view):
        try:
            address = address_bytes(request.address, self.app.genesis.bech32_prefix)
        except ValueError:
            raise errors.invalid_argument(f"invalid address '{request.address}'") from None
        auth = self.app.keepers["auth"]
        if auth.account(view, address) is None:
            raise errors.not_found(f"account for address '{request.address}'")
        found = auth.vesting_account(view, address)
        if found is None:
            raise errors.invalid_argument(f"account at address '{request.address}' is not a vesting account")
        url, account = found
        now = self.app.block_at(view.height)[0].time_ns // 10**9
        return query_pb2.QueryBalancesResponse(locked=vesting.coin_protos(vesting.locked(url, account, now)),
                                               unvested=vesting.coin_protos(vesting.vesting(url, account, now)),
                                               vested=vesting.coin_protos(vesting.vested(url, account, now)))
