"""The ceilings of the gRPC and REST bars: the node's own gRPC server and REST gateway, answering no query.

Run by grpc_rest_throughput.py in a process of its own, as the node runs: GrpcServer (chaind/grpc/server.py,
the same grpc.aio server, options and per-call handler) over a QueryRouter holding bank's Query service, every
method of which answers an empty response inline (SpendableBalances with the height header too); and the
RestGateway's klein app (chaind/rest/gateway.py, bank's routes in place) with one more route that returns a
constant body, behind a twisted.web Site set up as chaind/node.py sets up the gateway's.
Prints "grpc: HOST:PORT" and "rest: HOST:PORT" once both listen; SIGTERM stops it.
"""

import argparse
import base64
import sys
import types

from google.protobuf import message_factory
from twisted.application import service
from twisted.internet import reactor
from twisted.web import server

from chaind import config
from chaind.chain.module import QueryService
from chaind.grpc.router import QueryRouter
from chaind.grpc.server import GrpcServer
from chaind.pb.cosmos.bank.v1beta1 import query_pb2, query_pb2_grpc
from chaind.rest.gateway import RestGateway

CONSTANT_ROUTE = "/ceiling/constant/<path:rest>"
BANK = QueryService(query_pb2, query_pb2_grpc, "Query", servicer=None)


# Answers also with the x-cosmos-block-height header, as every query that reads state does (a second batch of
# grpcio's: the header goes out before the answer), to show what the header alone costs.
WITH_HEADER = "SpendableBalances"


def empty_servicer(descriptor):
    """A servicer of `descriptor` whose every method answers an empty response, inline (WITH_HEADER's says it
    read height 1)."""
    servicer = types.SimpleNamespace()
    for rpc in descriptor.methods:
        def answer(request, context, response_class=message_factory.GetMessageClass(rpc.output_type),  # noqa: B008 (bound per rpc)
                   header=rpc.name == WITH_HEADER):
            if header:
                context.answered_at(1)
            return response_class()
        answer.inline = True
        setattr(servicer, rpc.name, answer)
    return servicer


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--body", required=True, help="the constant REST body, base64")
    args = parser.parse_args()
    body = base64.b64decode(args.body)

    settings = config.Settings().evolve(grpc={"address": "127.0.0.1:0"})
    root = service.MultiService()
    router = QueryRouter(None, [(BANK, empty_servicer(BANK.descriptor))])
    grpc_server = GrpcServer(router, settings.grpc, reactor)
    grpc_server.setServiceParent(root)

    gateway = RestGateway(router, None, reactor)

    @gateway.app.route(CONSTANT_ROUTE, methods=["GET"], branch=False)
    def constant(request, rest):
        request.setHeader(b"content-type", b"application/json")
        return body

    # As chaind/node.py serves the gateway.
    site = server.Site(gateway.resource())
    site.displayTracebacks = False
    site.noisy = False
    site.log = lambda request: None
    root.startService()
    rest_port = reactor.listenTCP(0, site, interface="127.0.0.1")
    print(f"grpc: {grpc_server.host}:{grpc_server.port}", flush=True)
    print(f"rest: 127.0.0.1:{rest_port.getHost().port}", flush=True)
    reactor.addSystemEventTrigger("before", "shutdown", root.stopService)
    reactor.run()


if __name__ == "__main__":
    sys.exit(main())
