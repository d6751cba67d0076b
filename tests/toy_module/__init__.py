"""A toy module for the tests: registered through a module list, served by every face with no face code of
its own. Its .proto is compiled here (grpc_tools) into a temp dir, as setup.py compiles protos/.

State: a motto its genesis stores and a block count its end blocker raises. Query: toy.v1.Query/Greeting,
also at GET /toy/v1/greeting/{name} (its own REST route).
"""

import atexit
import importlib
import pathlib
import re
import shutil
import sys
import tempfile

from grpc_tools import protoc

from chaind import errors
from chaind.chain.module import Module, QueryService
from chaind.chain.module_genesis import ModuleGenesis
from chaind.chain.queries import Reader, query
from chaind.store.keys import compose

MOTTO = b"hello"
_MOTTO_KEY = compose("toy", "motto")
_BLOCKS_KEY = compose("toy", "blocks")
_NAME = re.compile(r"^[a-z]{1,32}$")


def _compile():
    out = tempfile.mkdtemp(prefix="chaind-toy-pb-")
    atexit.register(shutil.rmtree, out, True)
    here = pathlib.Path(__file__).parent
    include = pathlib.Path(protoc.__file__).parent / "_proto"
    code = protoc.main(["protoc", f"-I{here}", f"-I{include}", f"--python_out={out}", f"--grpc_python_out={out}",
                        str(here / "toy_query.proto")])
    if code != 0:
        raise RuntimeError(f"protoc failed on the toy module's toy_query.proto ({code})")
    sys.path.insert(0, out)
    return importlib.import_module("toy_query_pb2"), importlib.import_module("toy_query_pb2_grpc")


query_pb2, query_pb2_grpc = _compile()


def blocks(state):
    raw = state.store.get(_BLOCKS_KEY)
    return int(raw) if raw else 0


def init_genesis(app, ctx, _):
    ctx.store.set(_MOTTO_KEY, MOTTO)


def _validate(section, context):
    if section:
        raise ValueError("the toy module has no genesis section")


def end_block(app, ctx):
    ctx.store.set(_BLOCKS_KEY, str(blocks(ctx) + 1).encode())


class ToyQuery(Reader, query_pb2_grpc.QueryServicer):
    @query(inline=True)
    def Greeting(self, request, view):
        if not _NAME.match(request.name):
            raise errors.invalid_argument(f"invalid name {request.name!r}: want 1 to 32 lowercase letters")
        motto = view.store.get(_MOTTO_KEY).decode()
        count = blocks(view)
        return query_pb2.QueryGreetingResponse(greeting=f"{motto}, {request.name} (block {count})", blocks=count)


MODULE = Module(
    name="toy",
    services=(QueryService(query_pb2, query_pb2_grpc, "Query", lambda app, settings: ToyQuery(app),
                           rest=(("GET", "/toy/v1/greeting/{name}", "Greeting"),)),),
    genesis=ModuleGenesis(default=lambda context: {}, validate=_validate, init=init_genesis),
    end_block=end_block,
    cli="toy_module.cli",
)
