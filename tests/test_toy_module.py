"""A module registered through the module list alone (tests/toy_module) is served by every face: its query
over gRPC (a generated stub), REST (its own route), CometBFT's abci_query and the CLI (its table), at the latest
and a past height, and its errors mapped as the built-in modules' are. No face knows of it."""

import base64
import json

import pytest
import pytest_twisted
from click.testing import CliRunner
from twisted.internet import threads

import toy_module
from chaind.chain import registry
from chaind.cli.main import make_cli
from chaind.store.keys import compose
from cometbft_client import post
from helpers import call, rest, until_height


@pytest.fixture
def toy_node(node_factory):
    return node_factory(modules=(*registry.MODULES, toy_module.MODULE),
                        chain={"block_interval": 0.05, "empty_blocks": True})


def _abci(node, path, request, height=None):
    params = {"path": path, "data": request.SerializeToString().hex()}
    if height is not None:
        params["height"] = str(height)
    return post(node, "abci_query", params)


@pytest_twisted.inlineCallbacks
def test_a_toy_module_is_served_over_grpc_rest_and_abci_query(toy_node):
    node = toy_node
    pb, stubs = toy_module.query_pb2, toy_module.query_pb2_grpc
    yield until_height(node, node.genesis.initial_height + 3)
    past = node.genesis.initial_height + 1
    # Genesis is height initial_height - 1; the end blocker has counted one block per height since.
    blocks_at_past = past - node.genesis.initial_height + 1

    # gRPC: the generated stub on the node's own port; the height header in and out.
    response, header = yield call(node, stubs.QueryStub, "Greeting", pb.QueryGreetingRequest(name="alice"), past)
    assert response.greeting == f"hello, alice (block {blocks_at_past})" and response.blocks == blocks_at_past
    assert header["x-cosmos-block-height"] == str(past)
    latest, header = yield call(node, stubs.QueryStub, "Greeting", pb.QueryGreetingRequest(name="alice"))
    assert latest.blocks == int(header["x-cosmos-block-height"]) - node.genesis.initial_height + 1 > blocks_at_past
    _, error = yield call(node, stubs.QueryStub, "Greeting", pb.QueryGreetingRequest(name="Bob!"))
    assert error[0].name == "INVALID_ARGUMENT" and error[1] == "invalid name 'Bob!': want 1 to 32 lowercase letters"

    # REST: the module's own route, JSON as the gateway writes every answer.
    status, headers, body = yield rest(node, "/toy/v1/greeting/alice", height=past)
    assert status == 200 and body == {"greeting": f"hello, alice (block {blocks_at_past})",
                                      "blocks": str(blocks_at_past)}
    assert headers["Grpc-Metadata-X-Cosmos-Block-Height"] == str(past)
    status, _, body = yield rest(node, "/toy/v1/greeting/bob1")
    assert status == 400 and body == {"code": 3, "message": "invalid name 'bob1': want 1 to 32 lowercase letters",
                                      "details": []}

    # abci_query over CometBFT's RPC: the path is the full method name, the data the request bytes.
    path = "/toy.v1.Query/Greeting"
    _, reply = yield _abci(node, path, pb.QueryGreetingRequest(name="alice"), past)
    answer = reply["result"]["response"]
    assert answer["code"] == 0 and answer["height"] == str(past)
    assert pb.QueryGreetingResponse.FromString(base64.b64decode(answer["value"])).blocks == blocks_at_past
    _, reply = yield _abci(node, path, pb.QueryGreetingRequest(name=""))
    answer = reply["result"]["response"]
    assert answer["code"] == 18 and answer["codespace"] == "sdk"
    assert answer["log"] == ("rpc error: code = InvalidArgument desc = invalid name '': want 1 to 32 lowercase "
                             "letters: invalid request")


@pytest_twisted.inlineCallbacks
def test_a_node_without_the_toy_module_does_not_serve_it(node):
    pb, stubs = toy_module.query_pb2, toy_module.query_pb2_grpc
    _, error = yield call(node, stubs.QueryStub, "Greeting", pb.QueryGreetingRequest(name="alice"))
    assert error[0].name == "UNIMPLEMENTED"
    status, _, body = yield rest(node, "/toy/v1/greeting/alice")
    assert status == 501 and body["message"] == "Not Implemented"
    _, reply = yield _abci(node, "/toy.v1.Query/Greeting", pb.QueryGreetingRequest(name="alice"))
    assert reply["result"]["response"]["code"] == 6
    assert node.app.view().store.get(compose("toy", "motto")) is None


@pytest_twisted.inlineCallbacks
def test_a_toy_module_is_served_by_the_cli(toy_node):
    node = toy_node
    yield until_height(node, node.genesis.initial_height + 3)
    past = node.genesis.initial_height + 1
    blocks_at_past = past - node.genesis.initial_height + 1
    cli = make_cli((*registry.MODULES, toy_module.MODULE))
    n = f"--node=tcp://127.0.0.1:{node.port_of('cometbft')}"

    def run(*args):         # the CLI blocks on HTTP: off the reactor, as a client process would
        return threads.deferToThread(CliRunner().invoke, cli, ["query", "toy", *args, n])

    result = yield run("greeting", "alice", "--height", str(past), "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"greeting": f"hello, alice (block {blocks_at_past})",
                                         "blocks": str(blocks_at_past)}
    result = yield run("greeting", "alice", "--height", str(past))
    assert result.stdout == f'blocks: "{blocks_at_past}"\ngreeting: hello, alice (block {blocks_at_past})\n'
    result = yield run("greeting", "Bob")
    # The node's log is a gRPC status text already (as baseapp writes it): printed once, not wrapped again.
    assert result.exit_code == 1 and result.stderr == (
        "Error: rpc error: code = InvalidArgument desc = invalid name 'Bob': "
        "want 1 to 32 lowercase letters: invalid request\n")
    # The built-in CLI (no module list given) knows nothing of it.
    result = yield threads.deferToThread(CliRunner().invoke, make_cli(), ["query", "toy", "greeting", "alice", n])
    assert result.exit_code == 2 and "No such command 'toy'" in result.stderr
