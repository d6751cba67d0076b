"""ibc.core.connection.v1.Query as ibc-go v8's 03-connection gRPC querier answers: connection ends, a client's
connection ids, a connection's client and consensus states and the params (without proofs over gRPC, as ibc-go;
a relayer proves them with abci_query /store/ibc/key). proof_height is this chain's height the answer was read at."""

from chaind import errors
from chaind.chain.errors import TxError
from chaind.chain.modules.ibc_client import host
from chaind.chain.modules.ibc_client import tendermint as tmc
from chaind.chain.modules.ibc_client.keeper import height_proto, pack
from chaind.chain.modules.ibc_connection.keeper import NAME, check_connection_id
from chaind.chain.queries import Reader, paginate, query
from chaind.pb.ibc.core.client.v1 import client_pb2
from chaind.pb.ibc.core.connection.v1 import connection_pb2, query_pb2, query_pb2_grpc


def _checked(check, identifier):
    try:
        check(identifier)
    except TxError as error:
        raise errors.invalid_argument(error.log) from None


class ConnectionQuery(Reader, query_pb2_grpc.QueryServicer):
    def __init__(self, app):
        super().__init__(app)
        self.keeper = app.keepers[NAME]
        self.chain_id = app.genesis.chain_id

    def _height(self, view):
        return height_proto(host.self_height(self.chain_id, view.height))

    def _connection(self, view, connection_id, detail):
        _checked(check_connection_id, connection_id)
        end = self.keeper.connection(view, connection_id)
        if end is None:
            raise errors.not_found(f"{detail}{connection_id}: connection not found")
        return end

    @query(inline=True)
    def Connection(self, request, view):
        end = self._connection(view, request.connection_id, "")
        return query_pb2.QueryConnectionResponse(connection=end, proof_height=self._height(view))

    @query
    def Connections(self, request, view):
        items = [(connection_id.encode(), connection_pb2.IdentifiedConnection(
            id=connection_id, client_id=end.client_id, versions=end.versions, state=end.state,
            counterparty=end.counterparty, delay_period=end.delay_period))
            for connection_id, end in self.keeper.connections(view)]
        taken, page = paginate(items, request.pagination)
        return query_pb2.QueryConnectionsResponse(connections=taken, pagination=page, height=self._height(view))

    @query(inline=True)
    def ClientConnections(self, request, view):
        _checked(host.check_client_id, request.client_id)
        paths = self.keeper.client_connection_paths(view, request.client_id)
        if paths is None:
            raise errors.not_found(f"{request.client_id}: light client connection paths not found")
        return query_pb2.QueryClientConnectionsResponse(connection_paths=paths, proof_height=self._height(view))

    def _client_state(self, view, end):
        cs = self.keeper.clients.client_state(view, end.client_id)
        if cs is None:
            raise errors.not_found(f"client-id: {end.client_id}: light client not found")
        return cs

    @query(inline=True)
    def ConnectionClientState(self, request, view):
        end = self._connection(view, request.connection_id, "connection-id: ")
        cs = self._client_state(view, end)
        return query_pb2.QueryConnectionClientStateResponse(
            identified_client_state=client_pb2.IdentifiedClientState(
                client_id=end.client_id, client_state=pack(tmc.CLIENT_STATE_URL, cs)),
            proof_height=self._height(view))

    @query(inline=True)
    def ConnectionConsensusState(self, request, view):
        end = self._connection(view, request.connection_id, "connection-id: ")
        height = (request.revision_number, request.revision_height)
        cons = self.keeper.clients.store(view, end.client_id).consensus_state(height)
        if cons is None:
            raise errors.not_found(f"client-id: {end.client_id}: consensus state not found")
        return query_pb2.QueryConnectionConsensusStateResponse(
            consensus_state=pack(tmc.CONSENSUS_STATE_URL, cons), client_id=end.client_id,
            proof_height=self._height(view))

    @query(inline=True)
    def ConnectionParams(self, request, view):
        return query_pb2.QueryConnectionParamsResponse(params=self.keeper.params(view))
