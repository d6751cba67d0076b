"""ibc.core.channel.v1.Query, handshake slice, as ibc-go v8's 04-channel gRPC querier answers: channel ends, a
connection's channels, a channel's client state and its next receive sequence (without proofs over gRPC, as
ibc-go; a relayer proves them with abci_query /store/ibc/key). proof_height is this chain's height read at."""

from chaind import errors
from chaind.chain.errors import TxError
from chaind.chain.modules.ibc_channel.keeper import NAME, UNORDERED, check_channel_id, check_port_id
from chaind.chain.modules.ibc_client import host
from chaind.chain.modules.ibc_client import tendermint as tmc
from chaind.chain.modules.ibc_client.keeper import height_proto, pack
from chaind.chain.modules.ibc_connection.keeper import check_connection_id
from chaind.chain.queries import Reader, paginate, query
from chaind.pb.ibc.core.channel.v1 import channel_pb2, query_pb2, query_pb2_grpc
from chaind.pb.ibc.core.client.v1 import client_pb2


def _checked(check, identifier):
    try:
        check(identifier)
    except TxError as error:
        raise errors.invalid_argument(error.log) from None


def identified(port_id, channel_id, end):
    return channel_pb2.IdentifiedChannel(
        state=end.state, ordering=end.ordering, counterparty=end.counterparty, connection_hops=end.connection_hops,
        version=end.version, port_id=port_id, channel_id=channel_id, upgrade_sequence=end.upgrade_sequence)


class ChannelQuery(Reader, query_pb2_grpc.QueryServicer):
    def __init__(self, app):
        super().__init__(app)
        self.keeper = app.keepers[NAME]
        self.chain_id = app.genesis.chain_id

    def _height(self, view):
        return height_proto(host.self_height(self.chain_id, view.height))

    def _channel(self, view, request, separator):
        """validategRPCRequest, then the end or NotFound (ibc-go words it with and without a colon)."""
        _checked(check_port_id, request.port_id)
        _checked(check_channel_id, request.channel_id)
        end = self.keeper.channel(view, request.port_id, request.channel_id)
        if end is None:
            raise errors.not_found(f"port-id: {request.port_id}, channel-id{separator} {request.channel_id}: "
                                   "channel not found")
        return end

    @query(inline=True)
    def Channel(self, request, view):
        return query_pb2.QueryChannelResponse(channel=self._channel(view, request, ""),
                                              proof_height=self._height(view))

    @query
    def Channels(self, request, view):
        items = [(f"{port_id}/channels/{channel_id}".encode(), identified(port_id, channel_id, end))
                 for port_id, channel_id, end in self.keeper.channels(view)]
        taken, page = paginate(items, request.pagination)
        return query_pb2.QueryChannelsResponse(channels=taken, pagination=page, height=self._height(view))

    @query
    def ConnectionChannels(self, request, view):
        _checked(check_connection_id, request.connection)
        items = [(f"{port_id}/channels/{channel_id}".encode(), identified(port_id, channel_id, end))
                 for port_id, channel_id, end in self.keeper.channels(view)
                 if end.connection_hops[0] == request.connection]
        taken, page = paginate(items, request.pagination)
        return query_pb2.QueryConnectionChannelsResponse(channels=taken, pagination=page, height=self._height(view))

    @query(inline=True)
    def ChannelClientState(self, request, view):
        end = self._channel(view, request, ":")
        connection = self.keeper.connections.connection(view, end.connection_hops[0])
        if connection is None:
            raise errors.not_found(f"connection-id: {end.connection_hops[0]}: connection not found")
        cs = self.keeper.clients.client_state(view, connection.client_id)
        if cs is None:
            raise errors.not_found(f"client-id: {connection.client_id}: light client not found")
        return query_pb2.QueryChannelClientStateResponse(
            identified_client_state=client_pb2.IdentifiedClientState(
                client_id=connection.client_id, client_state=pack(tmc.CLIENT_STATE_URL, cs)),
            proof_height=self._height(view))

    @query(inline=True)
    def NextSequenceReceive(self, request, view):
        """An UNORDERED channel answers 0: it receives in any order."""
        end = self._channel(view, request, "")
        sequence = 0
        if end.ordering != UNORDERED:
            sequence = self.keeper.next_sequence_recv(view, request.port_id, request.channel_id)
            if sequence is None:
                raise errors.not_found(f"port-id: {request.port_id}, channel-id {request.channel_id}: sequence "
                                       "receive not found")
        return query_pb2.QueryNextSequenceReceiveResponse(next_sequence_receive=sequence,
                                                          proof_height=self._height(view))
