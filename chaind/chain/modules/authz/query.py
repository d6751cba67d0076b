"""cosmos.authz.v1beta1.Query: grants of a granter to a grantee, all of a granter's, all of a grantee's."""

from chaind import errors
from chaind.chain.modules.authz.keeper import NAME
from chaind.chain.queries import Reader, address_bytes, paginate, query
from chaind.pb.cosmos.authz.v1beta1 import authz_pb2, query_pb2, query_pb2_grpc


def _grant_authorization(granter, grantee, g):
    out = authz_pb2.GrantAuthorization(granter=granter, grantee=grantee, authorization=g.authorization)
    if g.HasField("expiration"):
        out.expiration.CopyFrom(g.expiration)
    return out


class AuthzQuery(Reader, query_pb2_grpc.QueryServicer):
    def __init__(self, app):
        super().__init__(app)
        self.keeper = app.keepers[NAME]
        self.prefix = app.genesis.bech32_prefix

    def _address(self, text):
        try:
            return address_bytes(text, self.prefix)
        except ValueError as e:
            # x/authz returns the codec's error as it is: status Unknown.
            raise errors.failed(str(e)) from None

    @query(inline=True)
    def Grants(self, request, view):
        granter, grantee = self._address(request.granter), self._address(request.grantee)
        if request.msg_type_url:
            found = self.keeper.grant(view, granter, grantee, request.msg_type_url)
            if found is None:
                raise errors.failed(f"authorization not found for {request.msg_type_url} type: "
                                    "authorization not found")
            return query_pb2.QueryGrantsResponse(grants=[found])
        grants, page = paginate(self.keeper.grants_between(view, granter, grantee), request.pagination)
        return query_pb2.QueryGrantsResponse(grants=grants, pagination=page)

    @query
    def GranterGrants(self, request, view):
        granter = self._address(request.granter)
        bech32 = self.keeper.bank.bech32
        items = [(key, (grantee, g)) for key, grantee, g in self.keeper.grants_of_granter(view, granter)]
        taken, page = paginate(items, request.pagination)
        return query_pb2.QueryGranterGrantsResponse(
            grants=[_grant_authorization(request.granter, bech32(grantee), g) for grantee, g in taken],
            pagination=page)

    @query
    def GranteeGrants(self, request, view):
        grantee = self._address(request.grantee)
        bech32 = self.keeper.bank.bech32
        items = [(key, (granter, g)) for key, granter, to, g in self.keeper.all_grants(view) if to == grantee]
        taken, page = paginate(items, request.pagination)
        return query_pb2.QueryGranteeGrantsResponse(
            grants=[_grant_authorization(bech32(granter), request.grantee, g) for granter, g in taken],
            pagination=page)
