"""The Cosmos services every node serves beside its modules': cosmos.base.tendermint, cosmos.base.node and
cosmos.tx. They are not modules (no state of their own): they read the chain's blocks, and the node builds each
with what it uses (tendermint.py, node.py, tx.py)."""

from chaind.chain.module import QueryService
from chaind.pb.cosmos.base.node.v1beta1 import query_pb2 as node_query
from chaind.pb.cosmos.base.node.v1beta1 import query_pb2_grpc as node_grpc
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2 as cmt_query
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2_grpc as cmt_grpc
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc

TENDERMINT = QueryService(cmt_query, cmt_grpc, "Service")
NODE = QueryService(node_query, node_grpc, "Service")
TX = QueryService(tx_service, tx_grpc, "Service")
