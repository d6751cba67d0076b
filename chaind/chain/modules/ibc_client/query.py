"""ibc.core.client.v1.Query as ibc-go v8's 02-client gRPC querier answers: client and consensus states (without
proofs over gRPC, as ibc-go; a relayer proves them with abci_query /store/ibc/key), their heights, a client's
status and the params. proof_height is this chain's height the answer was read at."""

from chaind import errors
from chaind.chain.errors import TxError
from chaind.chain.modules.ibc_client import host
from chaind.chain.modules.ibc_client import tendermint as tmc
from chaind.chain.modules.ibc_client.keeper import NAME, ClientStore, height_proto, pack
from chaind.chain.queries import Reader, paginate, query
from chaind.pb.ibc.core.client.v1 import client_pb2, query_pb2, query_pb2_grpc


class ClientQuery(Reader, query_pb2_grpc.QueryServicer):
    def __init__(self, app):
        super().__init__(app)
        self.keeper = app.keepers[NAME]
        self.chain_id = app.genesis.chain_id

    @staticmethod
    def _client_id(client_id):
        try:
            host.check_client_id(client_id)
        except TxError as error:
            raise errors.invalid_argument(error.log) from None

    def _client_state(self, view, client_id):
        self._client_id(client_id)
        cs = self.keeper.client_state(view, client_id)
        if cs is None:
            raise errors.not_found(f"{client_id}: light client not found")
        return cs

    def _proof_height(self, view):
        return height_proto(host.self_height(self.chain_id, view.height))

    def _now(self, view):
        if view.height < 1:
            return self.app.genesis.genesis_time_ns
        return self.app.block_at(view.height)[0].time_ns

    @query(inline=True)
    def ClientState(self, request, view):
        cs = self._client_state(view, request.client_id)
        return query_pb2.QueryClientStateResponse(client_state=pack(tmc.CLIENT_STATE_URL, cs),
                                                  proof_height=self._proof_height(view))

    @query
    def ClientStates(self, request, view):
        items = [(f"{client_id}/clientState".encode(), client_id) for client_id in self.keeper.client_ids(view)]
        taken, page = paginate(sorted(items), request.pagination)
        states = [client_pb2.IdentifiedClientState(
            client_id=client_id, client_state=pack(tmc.CLIENT_STATE_URL, self.keeper.client_state(view, client_id)))
            for client_id in taken]
        return query_pb2.QueryClientStatesResponse(client_states=sorted(states, key=lambda s: s.client_id),
                                                   pagination=page)

    @query(inline=True)
    def ConsensusState(self, request, view):
        if request.latest_height:
            height = host.height_of(self._client_state(view, request.client_id).latest_height)
        else:
            self._client_id(request.client_id)
            if request.revision_height == 0:
                raise errors.invalid_argument("consensus state height cannot be 0")
            height = (request.revision_number, request.revision_height)
        cons = ClientStore(view, request.client_id).consensus_state(height)
        if cons is None:
            raise errors.not_found(f"client-id: {request.client_id}, height: {host.height_text(height)}: consensus "
                                   "state not found")
        return query_pb2.QueryConsensusStateResponse(consensus_state=pack(tmc.CONSENSUS_STATE_URL, cons),
                                                     proof_height=self._proof_height(view))

    def _heights_page(self, view, request):
        """The page of a client's consensus state heights, in ibc-go's store order (their paths' text)."""
        self._client_id(request.client_id)
        heights = ClientStore(view, request.client_id).heights()
        items = sorted((host.height_text(h).encode(), h) for h in heights)
        return paginate(items, request.pagination)

    @query
    def ConsensusStates(self, request, view):
        heights, page = self._heights_page(view, request)
        store = ClientStore(view, request.client_id)
        return query_pb2.QueryConsensusStatesResponse(consensus_states=[
            client_pb2.ConsensusStateWithHeight(height=height_proto(h), consensus_state=pack(
                tmc.CONSENSUS_STATE_URL, store.consensus_state(h))) for h in heights], pagination=page)

    @query
    def ConsensusStateHeights(self, request, view):
        heights, page = self._heights_page(view, request)
        return query_pb2.QueryConsensusStateHeightsResponse(
            consensus_state_heights=[height_proto(h) for h in heights], pagination=page)

    @query(inline=True)
    def ClientStatus(self, request, view):
        cs = self._client_state(view, request.client_id)
        return query_pb2.QueryClientStatusResponse(
            status=self.keeper.status(view, request.client_id, self._now(view), cs))

    @query(inline=True)
    def ClientParams(self, request, view):
        return query_pb2.QueryClientParamsResponse(params=self.keeper.params(view))
