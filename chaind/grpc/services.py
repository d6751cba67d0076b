"""The one table of gRPC services: what the gRPC server, ABCI Query and the REST gateway all serve.

Each entry names the generated module, the service in it, and how to build its servicer from the node.
ABCI Query serves them all, as the SDK's gRPC query router does (the tx service included: a client
with only a CometBFT address simulates txs through abci_query).
"""

import attrs

from chaind.grpc.auth import AuthQuery
from chaind.grpc.bank import BankQuery
from chaind.grpc.consensus import ConsensusQuery
from chaind.grpc.erc20 import Erc20Query
from chaind.grpc.evm import EvmQuery, FeeMarketQuery
from chaind.grpc.node_service import NodeService
from chaind.grpc.staking import StakingQuery
from chaind.grpc.tendermint import TendermintService
from chaind.grpc.tx import TxService
from chaind.pb.cosmos.auth.v1beta1 import query_pb2 as auth_query
from chaind.pb.cosmos.auth.v1beta1 import query_pb2_grpc as auth_grpc
from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bank_query
from chaind.pb.cosmos.bank.v1beta1 import query_pb2_grpc as bank_grpc
from chaind.pb.cosmos.base.node.v1beta1 import query_pb2 as node_query
from chaind.pb.cosmos.base.node.v1beta1 import query_pb2_grpc as node_grpc
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2 as cmt_query
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2_grpc as cmt_grpc
from chaind.pb.cosmos.consensus.v1 import query_pb2 as consensus_query
from chaind.pb.cosmos.consensus.v1 import query_pb2_grpc as consensus_grpc
from chaind.pb.cosmos.staking.v1beta1 import query_pb2 as staking_query
from chaind.pb.cosmos.staking.v1beta1 import query_pb2_grpc as staking_grpc
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc
from chaind.pb.ethermint.evm.v1 import query_pb2 as evm_query
from chaind.pb.ethermint.evm.v1 import query_pb2_grpc as evm_grpc
from chaind.pb.ethermint.feemarket.v1 import query_pb2 as feemarket_query
from chaind.pb.ethermint.feemarket.v1 import query_pb2_grpc as feemarket_grpc
from chaind.pb.evmos.erc20.v1 import query_pb2 as erc20_query
from chaind.pb.evmos.erc20.v1 import query_pb2_grpc as erc20_grpc


@attrs.frozen
class Service:
    messages: object          # the generated *_pb2 module
    stubs: object             # the generated *_pb2_grpc module
    name: str                 # service name inside the module ("Query", "Service")
    servicer: object          # servicer(node) -> the servicer instance

    @property
    def full_name(self):
        return self.messages.DESCRIPTOR.services_by_name[self.name].full_name

    def add_to_server(self, servicer, server):
        getattr(self.stubs, f"add_{self.name}Servicer_to_server")(servicer, server)


SERVICES = (
    Service(bank_query, bank_grpc, "Query", lambda node: BankQuery(node.app)),
    Service(auth_query, auth_grpc, "Query", lambda node: AuthQuery(node.app)),
    Service(cmt_query, cmt_grpc, "Service", TendermintService),
    Service(node_query, node_grpc, "Service", NodeService),
    Service(consensus_query, consensus_grpc, "Query", ConsensusQuery),
    Service(evm_query, evm_grpc, "Query", EvmQuery),
    Service(feemarket_query, feemarket_grpc, "Query", FeeMarketQuery),
    Service(erc20_query, erc20_grpc, "Query", lambda node: Erc20Query(node.app)),
    Service(staking_query, staking_grpc, "Query", lambda node: StakingQuery(node.app)),
    Service(tx_service, tx_grpc, "Service", TxService),
)
