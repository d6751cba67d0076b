"""cosmos.feegrant.v1beta1.Query: one allowance, a grantee's allowances, a granter's, as x/feegrant answers them."""

from chaind import errors
from chaind.chain.modules.feegrant.keeper import NAME
from chaind.chain.queries import Reader, address_bytes, paginate, query
from chaind.pb.cosmos.feegrant.v1beta1 import query_pb2, query_pb2_grpc


class FeegrantQuery(Reader, query_pb2_grpc.QueryServicer):
    def __init__(self, app):
        super().__init__(app)
        self.keeper = app.keepers[NAME]
        self.prefix = app.genesis.bech32_prefix

    def address(self, text):
        try:
            return address_bytes(text, self.prefix)
        except ValueError as e:
            raise errors.invalid_argument(str(e)) from None

    @query(inline=True)
    def Allowance(self, request, view):
        granter, grantee = self.address(request.granter), self.address(request.grantee)
        found = self.keeper.grant(view, granter, grantee)
        if found is None:
            raise errors.failed("allowance does not exist: fee-grant not found")
        return query_pb2.QueryAllowanceResponse(allowance=found)

    @query
    def Allowances(self, request, view):
        grants, page = paginate(self.keeper.grants(view, self.address(request.grantee)), request.pagination)
        return query_pb2.QueryAllowancesResponse(allowances=grants, pagination=page)

    @query
    def AllowancesByGranter(self, request, view):
        granter = self.keeper.bank.bech32(self.address(request.granter))
        # As the SDK: every grant walked, the granter's kept (grants are stored by grantee).
        items = [(key, g) for key, g in self.keeper.grants(view) if g.granter == granter]
        grants, page = paginate(items, request.pagination)
        return query_pb2.QueryAllowancesByGranterResponse(allowances=grants, pagination=page)
