"""evmos.epochs.v1.Query: EpochInfos and CurrentEpoch, as Evmos' x/epochs answers them."""

from chaind import errors
from chaind.chain.queries import Reader, paginate, query
from chaind.pb.evmos.epochs.v1 import genesis_pb2, query_pb2, query_pb2_grpc


def epoch_proto(info):
    proto = genesis_pb2.EpochInfo(identifier=info.identifier, current_epoch=info.current_epoch,
                                  epoch_counting_started=info.epoch_counting_started,
                                  current_epoch_start_height=info.current_epoch_start_height)
    proto.start_time.FromNanoseconds(info.start_time_ns)
    proto.duration.FromNanoseconds(info.duration_ns)
    proto.current_epoch_start_time.FromNanoseconds(info.current_epoch_start_time_ns)
    return proto


class EpochsQuery(Reader, query_pb2_grpc.QueryServicer):
    @query
    def EpochInfos(self, request, view):
        items = [(info.identifier.encode(), epoch_proto(info)) for info in self.app.keepers["epochs"].epoch_infos(view)]
        found, page = paginate(items, request.pagination)
        return query_pb2.QueryEpochsInfoResponse(epochs=found, pagination=page)

    @query(inline=True)
    def CurrentEpoch(self, request, view):
        info = self.app.keepers["epochs"].epoch_info(view, request.identifier)
        if info is None:
            raise errors.not_found(f"epoch info not found: {request.identifier}")
        return query_pb2.QueryCurrentEpochResponse(current_epoch=info.current_epoch)
