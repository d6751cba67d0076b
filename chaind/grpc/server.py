"""grpcio's asyncio server as a Twisted service: bound when the node starts, drained when it stops.

Every call goes through the QueryRouter, as ABCI Query and REST do: the server serves the services the router
holds (the modules' and the node's own). Reads marked inline (chain/queries.query)
are answered on the server's event loop, where grpcio's per-call cost is lowest; the rest (block and
tx searches, simulation, broadcasts) run on a pool of [grpc] max-workers threads. Nothing here runs on
the reactor thread. Plaintext unless [grpc] tls-cert-file and tls-key-file are set.
"""

import asyncio
from concurrent import futures

import grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc
from twisted.application import service
from twisted.internet import reactor as default_reactor
from twisted.logger import Logger

from chaind.config import ConfigError
from chaind.grpc import event_loop, header
from chaind.grpc.router import HEIGHT_HEADER
from chaind.grpc.status import status_of

log = Logger()


class GrpcBindError(Exception):
    """grpcio could not bind the configured address (in use, or not this host's)."""


class _Table(grpc.GenericRpcHandler):
    """Every method's handler by its full path."""

    def __init__(self, handlers):
        self.handlers = handlers

    def service(self, handler_call_details):
        return self.handlers.get(handler_call_details.method)


class _Collected:
    """Stands for the server where a generated add_*Servicer_to_server registers a service: its handlers go
    into `handlers` instead."""

    def __init__(self, handlers):
        self.handlers = handlers

    def add_generic_rpc_handlers(self, generic_handlers):
        pass        # the same handlers come again, by path, through add_registered_method_handlers

    def add_registered_method_handlers(self, service_name, method_handlers):
        self.handlers.update((f"/{service_name}/{name}", handler) for name, handler in method_handlers.items())


class GrpcServer(service.Service):
    def __init__(self, router, settings, reactor=default_reactor, timed=None):
        self.router = router
        self.settings = settings
        self.reactor = reactor
        self.timed = timed          # timed(answer, path) wraps each handler when metrics are on
        self.server = self.pool = None
        self.host = self.port = None
        # Read now, so a bad file stops the node before anything starts.
        self.credentials = self._credentials() if settings.tls_cert_file else None

    def startService(self):
        self.pool = futures.ThreadPoolExecutor(max_workers=self.settings.max_workers, thread_name_prefix="chaind-grpc")
        # Raises GrpcBindError when the address cannot be bound, so the node fails to start, as for TCP faces.
        try:
            event_loop.submit(self._start()).result()
        except GrpcBindError:
            self.pool.shutdown(wait=False)
            raise
        # As twisted logs "Site starting on 9091" for the TCP faces.
        log.info("gRPC server starting on {port}{tls}", port=self.port,
                 tls=" (TLS)" if self.credentials is not None else "")
        super().startService()

    async def _start(self):
        s = self.settings
        header.install()
        self.server = grpc.aio.server(options=[("grpc.max_receive_message_length", s.max_recv_msg_size),
                                               ("grpc.max_send_message_length", s.max_send_msg_size),
                                               ("grpc.so_reuseport", 0)])
        handlers = {}
        for entry in self.router.services:
            handlers.update((f"/{entry.full_name}/{method.name}", self._handler(f"/{entry.full_name}/{method.name}"))
                            for method in entry.descriptor.methods)
        names = [entry.full_name for entry in self.router.services] + [reflection.SERVICE_NAME]
        reflection_pb2_grpc.add_ServerReflectionServicer_to_server(reflection.aio.ReflectionServicer(names),
                                                                   _Collected(handlers))
        # One generic handler over every path, and no registered methods: grpcio's asyncio server keeps a pending
        # request per registered method and asyncio.wait()s on all of them for every call, a cost that grows with
        # the node's hundreds of methods (about 110 us a call); one dict lookup here costs about 1 us.
        self.server.add_generic_rpc_handlers((_Table(handlers),))
        host, _, port = s.address.rpartition(":")
        self.host = host or "127.0.0.1"
        try:
            if self.credentials is not None:
                self.port = self.server.add_secure_port(f"{self.host}:{port}", self.credentials)
            else:
                self.port = self.server.add_insecure_port(f"{self.host}:{port}")
        except RuntimeError as e:
            raise GrpcBindError(str(e)) from None
        await self.server.start()

    def _handler(self, path):
        router = self.router
        method = router.methods[path]

        async def answer(request, context):
            metadata = context.invocation_metadata() or ()
            try:
                if method.inline:
                    result = router.answer(path, request, metadata)
                else:
                    result = await asyncio.get_running_loop().run_in_executor(
                        self.pool, router.answer, path, request, metadata)
            except Exception:  # noqa: BLE001 (a top-level guard: logged, the client gets INTERNAL)
                log.failure("gRPC {path} failed", path=path)
                await context.abort(grpc.StatusCode.INTERNAL, "internal error")
            if result.height is not None:
                metadata = ((HEIGHT_HEADER, str(result.height)),)
                if not header.defer(metadata):
                    await context.send_initial_metadata(metadata)
            if result.error is not None:
                await context.abort(status_of(result.error), result.error.message)
            return result.response

        if self.timed is not None:
            answer = self.timed(answer, path)
        return grpc.unary_unary_rpc_method_handler(answer, request_deserializer=method.request_class.FromString,
                                                   response_serializer=method.response_class.SerializeToString)

    def _credentials(self):
        s = self.settings
        try:
            with open(s.tls_key_file, "rb") as key, open(s.tls_cert_file, "rb") as cert:
                return grpc.ssl_server_credentials([(key.read(), cert.read())])
        except OSError as e:
            raise ConfigError(f"[grpc] cannot read the TLS key or certificate: {e}") from None

    def stopService(self):
        super().stopService()
        if self.server is None:
            # Never started: a face bound before it could not listen, and the node closes those it holds.
            return None
        # Calls in flight get the grace period; then the pool's threads finish what they hold.
        d = event_loop.deferred(self.reactor, self.server.stop(self.settings.shutdown_grace))
        d.addCallback(lambda _: self.pool.shutdown(wait=False))
        d.addCallback(lambda _: log.info("(gRPC port {port} Closed)", port=self.port))
        return d
