"""cosmos.base.node.v1beta1.Service: the node's config and status, as the SDK's node service answers."""

from chaind.chain.queries import Reader, query
from chaind.pb.cosmos.base.node.v1beta1 import query_pb2, query_pb2_grpc


class NodeService(Reader, query_pb2_grpc.ServiceServicer):
    def __init__(self, app, storage):
        super().__init__(app)
        self.storage = storage      # the [storage] settings the node runs with

    @query(inline=True)
    def Config(self, request, view):
        # No minimum gas price is configured: the fee market's base fee is the only floor.
        return query_pb2.ConfigResponse(minimum_gas_price="", pruning_keep_recent=str(self.storage.pruning),
                                        pruning_interval=str(self.storage.prune_interval), halt_height=0)

    @query(inline=True)
    def Status(self, request, view):
        header, _ = self.app.block_at(view.height)
        return query_pb2.StatusResponse(
            earliest_store_height=self.app.oldest_state_height(), height=view.height, timestamp=header.timestamp(),
            app_hash=header.app_hash, validator_hash=header.next_validators_hash)
