"""grpcio's server as a Twisted service: bound when the node starts, drained when it stops.

grpcio answers calls on its own thread pool; the servicers only read committed state (App.view).
"""

from concurrent import futures

import grpc
from grpc_reflection.v1alpha import reflection
from twisted.application import service
from twisted.internet import threads

from chaind.grpc.auth import AuthQuery
from chaind.grpc.bank import BankQuery
from chaind.grpc.node_service import NodeService
from chaind.grpc.tendermint import TendermintService
from chaind.grpc.tx import TxService
from chaind.pb.cosmos.auth.v1beta1 import query_pb2 as auth_query, query_pb2_grpc as auth_grpc
from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bank_query, query_pb2_grpc as bank_grpc
from chaind.pb.cosmos.base.node.v1beta1 import query_pb2 as node_query, query_pb2_grpc as node_grpc
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2 as cmt_query, query_pb2_grpc as cmt_grpc
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service, service_pb2_grpc as tx_grpc


def _full_name(module, service_name):
    return module.DESCRIPTOR.services_by_name[service_name].full_name


class GrpcServer(service.Service):
    def __init__(self, node, settings):
        self.node = node
        self.settings = settings
        self.server = None
        self.host = self.port = None

    def startService(self):
        s = self.settings
        self.server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=s.max_workers, thread_name_prefix="chaind-grpc"),
            options=[("grpc.max_receive_message_length", s.max_recv_msg_size),
                     ("grpc.max_send_message_length", s.max_send_msg_size),
                     ("grpc.so_reuseport", 0)])
        node = self.node
        bank_grpc.add_QueryServicer_to_server(BankQuery(node.app), self.server)
        auth_grpc.add_QueryServicer_to_server(AuthQuery(node.app), self.server)
        cmt_grpc.add_ServiceServicer_to_server(TendermintService(node), self.server)
        node_grpc.add_ServiceServicer_to_server(NodeService(node), self.server)
        tx_grpc.add_ServiceServicer_to_server(TxService(node), self.server)
        names = [_full_name(bank_query, "Query"), _full_name(auth_query, "Query"),
                 _full_name(cmt_query, "Service"), _full_name(node_query, "Service"),
                 _full_name(tx_service, "Service"), reflection.SERVICE_NAME]
        reflection.enable_server_reflection(names, self.server)
        host, _, port = self.settings.address.rpartition(":")
        self.host = host or "127.0.0.1"
        # Raises RuntimeError when the address cannot be bound, so the node fails to start, as for TCP faces.
        self.port = self.server.add_insecure_port(f"{self.host}:{port}")
        self.server.start()
        super().startService()

    def stopService(self):
        super().stopService()
        # stop() returns at once; calls in flight get the grace period, waited for off the reactor.
        done = self.server.stop(self.settings.shutdown_grace)
        return threads.deferToThread(done.wait)
