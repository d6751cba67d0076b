"""cosmos.evidence.v1beta1.Query: the equivocations handled, by hash or all of them."""

from chaind import errors
from chaind.chain.queries import Reader, paginate, query
from chaind.pb.cosmos.evidence.v1beta1 import query_pb2, query_pb2_grpc


class EvidenceQuery(Reader, query_pb2_grpc.QueryServicer):
    @query(inline=True)
    def Evidence(self, request, view):
        if not request.hash:
            raise errors.invalid_argument("invalid request; hash is empty")
        try:
            wanted = bytes.fromhex(request.hash)
        except ValueError:
            raise errors.invalid_argument(f"invalid evidence hash: encoding/hex: invalid byte in {request.hash!r}") \
                from None
        found = self.app.keepers["evidence"].evidence(view, wanted)
        if found is None:
            raise errors.not_found(f"evidence {request.hash} not found")
        return query_pb2.QueryEvidenceResponse(evidence=found)

    @query
    def AllEvidence(self, request, view):
        found, page = paginate(self.app.keepers["evidence"].all_evidence(view), request.pagination)
        return query_pb2.QueryAllEvidenceResponse(evidence=found, pagination=page)
