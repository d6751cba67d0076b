"""grpcio's server as a Twisted service: bound when the node starts, drained when it stops.

grpcio answers calls on its own thread pool; the servicers only read committed state (App.view).
Plaintext unless [grpc] tls-cert-file and tls-key-file are set.
"""

from concurrent import futures

import grpc
from grpc_reflection.v1alpha import reflection
from twisted.application import service
from twisted.internet import threads

from chaind.config import ConfigError
from chaind.grpc import header
from chaind.grpc.services import SERVICES


class GrpcServer(service.Service):
    def __init__(self, node, settings):
        self.node = node
        self.settings = settings
        self.server = None
        self.host = self.port = None
        # Read now, so a bad file stops the node before anything starts.
        self.credentials = self._credentials() if settings.tls_cert_file else None

    def startService(self):
        s = self.settings
        header.install()
        self.server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=s.max_workers, thread_name_prefix="chaind-grpc"),
            options=[("grpc.max_receive_message_length", s.max_recv_msg_size),
                     ("grpc.max_send_message_length", s.max_send_msg_size),
                     ("grpc.so_reuseport", 0)])
        for service_entry in SERVICES:
            service_entry.add_to_server(service_entry.servicer(self.node), self.server)
        names = [service_entry.full_name for service_entry in SERVICES] + [reflection.SERVICE_NAME]
        reflection.enable_server_reflection(names, self.server)
        host, _, port = self.settings.address.rpartition(":")
        self.host = host or "127.0.0.1"
        # Raises RuntimeError when the address cannot be bound, so the node fails to start, as for TCP faces.
        if self.credentials is not None:
            self.port = self.server.add_secure_port(f"{self.host}:{port}", self.credentials)
        else:
            self.port = self.server.add_insecure_port(f"{self.host}:{port}")
        self.server.start()
        super().startService()

    def _credentials(self):
        s = self.settings
        try:
            with open(s.tls_key_file, "rb") as key, open(s.tls_cert_file, "rb") as cert:
                return grpc.ssl_server_credentials([(key.read(), cert.read())])
        except OSError as e:
            raise ConfigError(f"[grpc] cannot read the TLS key or certificate: {e}") from None

    def stopService(self):
        super().stopService()
        # stop() returns at once; calls in flight get the grace period, waited for off the reactor.
        done = self.server.stop(self.settings.shutdown_grace)
        return threads.deferToThread(done.wait)
