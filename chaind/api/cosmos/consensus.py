"""cosmos.consensus.v1.Query: the chain's consensus params (block, evidence, validator, version, abci),
as x/consensus answers them from what InitChain stored; cosmpy's gas estimate reads block.max_gas here."""

from google.protobuf import duration_pb2

from chaind.chain.queries import Reader, query
from chaind.pb.cosmos.consensus.v1 import query_pb2, query_pb2_grpc
from chaind.pb.tendermint.types import params_pb2


def consensus_params(document):
    """The genesis document's consensus_params (CometBFT's JSON: int64s as strings, durations in
    nanoseconds) as tendermint.types.ConsensusParams."""
    params = document["consensus_params"]
    block, evidence = params["block"], params["evidence"]
    seconds, nanos = divmod(int(evidence["max_age_duration"]), 10**9)
    return params_pb2.ConsensusParams(
        block=params_pb2.BlockParams(max_bytes=int(block["max_bytes"]), max_gas=int(block["max_gas"])),
        evidence=params_pb2.EvidenceParams(max_age_num_blocks=int(evidence["max_age_num_blocks"]),
                                           max_age_duration=duration_pb2.Duration(seconds=seconds, nanos=nanos),
                                           max_bytes=int(evidence.get("max_bytes", 0))),
        validator=params_pb2.ValidatorParams(pub_key_types=params["validator"]["pub_key_types"]),
        version=params_pb2.VersionParams(app=int(params.get("version", {}).get("app", 0))),
        abci=params_pb2.ABCIParams(vote_extensions_enable_height=int(
            params.get("abci", {}).get("vote_extensions_enable_height", 0))))


class ConsensusQuery(Reader, query_pb2_grpc.QueryServicer):
    def __init__(self, app):
        super().__init__(app)
        # No message changes them on this chain (no x/gov): genesis' params hold at every height.
        self.params = consensus_params(app.genesis.document)

    @query(inline=True)
    def Params(self, request, view):
        return query_pb2.QueryParamsResponse(params=self.params)
