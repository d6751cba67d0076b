"""ibc.core.channel.v1.Query as ibc-go v8's 04-channel gRPC querier answers: channel ends, a connection's channels, a
channel's client state, its next receive and send sequences, packet commitments, receipts and acknowledgements and
the unreceived packets and acks a relayer asks for (without proofs over gRPC, as ibc-go; a relayer proves them with
abci_query /store/ibc/key). proof_height is this chain's height read at."""

from chaind import errors
from chaind.chain.errors import TxError
from chaind.chain.modules.ibc_channel.keeper import (
    NAME,
    ORDERED,
    UNORDERED,
    check_channel_id,
    check_port_id,
    order_name,
)
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

    # Packets.

    def _packet_request(self, request):
        _checked(check_port_id, request.port_id)
        _checked(check_channel_id, request.channel_id)
        if request.sequence == 0:
            raise errors.invalid_argument("packet sequence cannot be 0")

    def _states(self, view, request, kind):
        """Paginated PacketStates of one channel's `kind`, in ibc-go's store order (their "/{sequence}" keys)."""
        items = sorted((f"/{sequence}".encode(), channel_pb2.PacketState(
            port_id=request.port_id, channel_id=request.channel_id, sequence=sequence, data=data))
            for sequence, data in self.keeper.packet_states(view, kind, request.port_id, request.channel_id))
        return paginate(items, request.pagination)

    @query(inline=True)
    def PacketCommitment(self, request, view):
        self._packet_request(request)
        found = self.keeper.packet_commitment(view, request.port_id, request.channel_id, request.sequence)
        if found is None:
            raise errors.not_found("packet commitment hash not found")
        return query_pb2.QueryPacketCommitmentResponse(commitment=found, proof_height=self._height(view))

    @query
    def PacketCommitments(self, request, view):
        _checked(check_port_id, request.port_id)
        _checked(check_channel_id, request.channel_id)
        taken, page = self._states(view, request, "commitments")
        return query_pb2.QueryPacketCommitmentsResponse(commitments=taken, pagination=page, height=self._height(view))

    @query(inline=True)
    def PacketReceipt(self, request, view):
        self._packet_request(request)
        return query_pb2.QueryPacketReceiptResponse(
            received=self.keeper.has_packet_receipt(view, request.port_id, request.channel_id, request.sequence),
            proof_height=self._height(view))

    @query(inline=True)
    def PacketAcknowledgement(self, request, view):
        self._packet_request(request)
        found = self.keeper.packet_acknowledgement(view, request.port_id, request.channel_id, request.sequence)
        if found is None:
            raise errors.not_found("packet acknowledgement hash not found")
        return query_pb2.QueryPacketAcknowledgementResponse(acknowledgement=found, proof_height=self._height(view))

    @query
    def PacketAcknowledgements(self, request, view):
        """The acks of the sequences asked for (no pagination then), else every ack of the channel, paginated."""
        _checked(check_port_id, request.port_id)
        _checked(check_channel_id, request.channel_id)
        if request.packet_commitment_sequences:
            acks = []
            for sequence in request.packet_commitment_sequences:
                found = self.keeper.packet_acknowledgement(view, request.port_id, request.channel_id, sequence)
                if found is not None:
                    acks.append(channel_pb2.PacketState(port_id=request.port_id, channel_id=request.channel_id,
                                                        sequence=sequence, data=found))
            return query_pb2.QueryPacketAcknowledgementsResponse(acknowledgements=acks, height=self._height(view))
        taken, page = self._states(view, request, "acks")
        return query_pb2.QueryPacketAcknowledgementsResponse(acknowledgements=taken, pagination=page,
                                                             height=self._height(view))

    @staticmethod
    def _nonzero(sequences):
        for index, sequence in enumerate(sequences):
            if sequence == 0:
                raise errors.invalid_argument(f"packet sequence {index} cannot be 0")

    @query
    def UnreceivedPackets(self, request, view):
        """Of the counterparty's commitments' sequences, those this (receiving) end has not received."""
        _checked(check_port_id, request.port_id)
        _checked(check_channel_id, request.channel_id)
        end = self.keeper.channel(view, request.port_id, request.channel_id)
        if end is None:
            raise errors.not_found(f"port-id: {request.port_id}, channel-id {request.channel_id}: channel not found")
        sequences = list(request.packet_commitment_sequences)
        if end.ordering == UNORDERED:
            self._nonzero(sequences)
            unreceived = [s for s in sequences
                          if not self.keeper.has_packet_receipt(view, request.port_id, request.channel_id, s)]
        elif end.ordering == ORDERED:
            following = self.keeper.next_sequence_recv(view, request.port_id, request.channel_id)
            if following is None:
                raise errors.not_found(f"destination port: {request.port_id}, destination channel: "
                                       f"{request.channel_id}: sequence receive not found")
            self._nonzero(sequences)
            unreceived = [s for s in sequences if s >= following]
        else:
            raise errors.invalid_argument(f"channel order {order_name(end.ordering)} is not supported: invalid "
                                          "channel ordering")
        return query_pb2.QueryUnreceivedPacketsResponse(sequences=unreceived, height=self._height(view))

    @query
    def UnreceivedAcks(self, request, view):
        """Of the counterparty's acks' sequences, those whose packets this (sending) end still commits to."""
        _checked(check_port_id, request.port_id)
        _checked(check_channel_id, request.channel_id)
        self._nonzero(request.packet_ack_sequences)
        pending = [s for s in request.packet_ack_sequences
                   if self.keeper.packet_commitment(view, request.port_id, request.channel_id, s) is not None]
        return query_pb2.QueryUnreceivedAcksResponse(sequences=pending, height=self._height(view))

    @query(inline=True)
    def NextSequenceSend(self, request, view):
        _checked(check_port_id, request.port_id)
        _checked(check_channel_id, request.channel_id)
        sequence = self.keeper.next_sequence_send(view, request.port_id, request.channel_id)
        if sequence is None:
            raise errors.not_found(f"port-id: {request.port_id}, channel-id {request.channel_id}: sequence send "
                                   "not found")
        return query_pb2.QueryNextSequenceSendResponse(next_sequence_send=sequence, proof_height=self._height(view))
