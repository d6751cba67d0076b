"""The services not yet in a module package: servicer(node) builds each (the node serves them beside the modules')."""

from chaind.chain.module import QueryService as Service
from chaind.grpc.consensus import ConsensusQuery
from chaind.grpc.node_service import NodeService
from chaind.grpc.tendermint import TendermintService
from chaind.grpc.tx import TxService
from chaind.pb.cosmos.base.node.v1beta1 import query_pb2 as node_query, query_pb2_grpc as node_grpc
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2 as cmt_query, query_pb2_grpc as cmt_grpc
from chaind.pb.cosmos.consensus.v1 import query_pb2 as consensus_query, query_pb2_grpc as consensus_grpc
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service, service_pb2_grpc as tx_grpc


SERVICES = (
    Service(cmt_query, cmt_grpc, "Service", TendermintService),
    Service(node_query, node_grpc, "Service", NodeService),
    Service(consensus_query, consensus_grpc, "Query", ConsensusQuery),
    Service(tx_service, tx_grpc, "Service", TxService),
)
