"""cosmos.params.v1beta1.Query: a module's current param by the legacy subspace and key, and every subspace."""

from chaind import errors
from chaind.chain.modules.params.subspaces import SUBSPACES
from chaind.chain.queries import Reader, query
from chaind.pb.cosmos.params.v1beta1 import params_pb2, query_pb2, query_pb2_grpc


class ParamsQuery(Reader, query_pb2_grpc.QueryServicer):
    def _subspaces(self):
        names = {m.name for m in self.app.modules}
        return {name: read for name, read in SUBSPACES.items() if name in names}

    @query(inline=True)
    def Params(self, request, view):
        if not request.subspace or not request.key:
            raise errors.invalid_argument("invalid request")
        read = self._subspaces().get(request.subspace)
        if read is None:
            raise errors.invalid_argument(f"{request.subspace}: unknown subspace")
        # A key the subspace does not have reads as nothing, as the SDK's GetRaw does.
        value = read(self.app, view).get(request.key, "")
        return query_pb2.QueryParamsResponse(param=params_pb2.ParamChange(
            subspace=request.subspace, key=request.key, value=value))

    @query(inline=True)
    def Subspaces(self, request, view):
        return query_pb2.QuerySubspacesResponse(subspaces=[
            query_pb2.Subspace(subspace=name, keys=list(read(self.app, view)))
            for name, read in self._subspaces().items()])
