"""cosmos.auth.v1beta1.Query: accounts, params and bech32 conversions, as x/auth's gRPC querier answers."""

from chaind import errors
from chaind.chain.queries import Reader, address_bytes, paginate, query
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.auth.v1beta1 import query_pb2, query_pb2_grpc


class AuthQuery(Reader, query_pb2_grpc.QueryServicer):
    def __init__(self, app):
        super().__init__(app)
        self.auth = app.keepers["auth"]
        self.prefix = self.auth.prefix

    def _parse(self, text):
        try:
            return address_bytes(text, self.prefix)
        except ValueError as e:
            # x/auth returns the codec's error as it is: status Unknown.
            raise errors.failed(str(e)) from None


    @query(inline=True)
    def Account(self, request, view):
        if not request.address:
            raise errors.invalid_argument("Address cannot be empty")
        address = self._parse(request.address)
        if self.auth.account(view, address) is None:
            raise errors.not_found(f"account {request.address} not found")
        return query_pb2.QueryAccountResponse(account=self.auth.account_any(view, address))

    @query
    def Accounts(self, request, view):
        # Keys are the raw account addresses, in byte order, as x/auth's accounts collection keeps them.
        taken, page = paginate([(a, a) for a in self.auth.all_addresses(view)], request.pagination)
        return query_pb2.QueryAccountsResponse(accounts=[self.auth.account_any(view, a) for a in taken],
                                               pagination=page)

    @query(inline=True)
    def AccountInfo(self, request, view):
        if not request.address:
            raise errors.invalid_argument("address cannot be empty")
        address = self._parse(request.address)
        account = self.auth.base_account(view, address)
        if account is None:
            raise errors.not_found(f"account {request.address} not found")
        return query_pb2.QueryAccountInfoResponse(info=account)

    @query
    def ModuleAccounts(self, request, view):
        return query_pb2.QueryModuleAccountsResponse(
            accounts=[self.auth.module_account(view, name) for name in sorted(self.auth.module_accounts)])

    @query(inline=True)
    def ModuleAccountByName(self, request, view):
        if not request.name:
            raise errors.invalid_argument("module name is empty")
        if request.name not in self.auth.module_accounts:
            raise errors.not_found(f"account {request.name} not found")
        return query_pb2.QueryModuleAccountByNameResponse(account=self.auth.module_account(view, request.name))

    @query(inline=True)
    def Params(self, request, view):
        return query_pb2.QueryParamsResponse(params=self.auth.params)

    @query(inline=True)
    def Bech32Prefix(self, request, view):
        return query_pb2.Bech32PrefixResponse(bech32_prefix=self.prefix)

    @query(inline=True)
    def AddressBytesToString(self, request, view):
        if not request.address_bytes:
            raise errors.invalid_argument("empty address bytes is not allowed")
        if len(request.address_bytes) > 255:
            raise errors.failed(f"address max length is 255, got {len(request.address_bytes)}: unknown address")
        return query_pb2.AddressBytesToStringResponse(address_string=to_bech32(self.prefix, request.address_bytes))

    @query(inline=True)
    def AddressStringToBytes(self, request, view):
        if not request.address_string.strip():
            raise errors.invalid_argument("empty address string is not allowed")
        return query_pb2.AddressStringToBytesResponse(address_bytes=self._parse(request.address_string))
