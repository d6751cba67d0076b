"""CONTRIBUTING.rst's worked example is real code: its blocks, written out as a module package and its protos,
compiled by setup.py's own build and registered through a module list, serve every face of a real node.

Every literal block of "Adding a module" whose paragraph names a file (``keeper.py``::, ``query.proto``::)
becomes that file; an edit to the example that breaks it fails here.
"""

import base64
import importlib
import json
import pathlib
import re
import runpy
import sys
import textwrap

import pytest
import pytest_twisted
from click.testing import CliRunner
from eth_abi import encode as abi_encode
from eth_utils import keccak

import chaind.chain.modules
import chaind.pb
from chaind.chain import registry
from chaind.chain.module import precompiles_of
from chaind.chain.module_genesis import GenesisContext
from chaind.cli.main import make_cli
from chaind.crypto.addresses import parse, to_bech32
from chaind.home import Home
from chaind.rest import gateway
from cli_driver import DEV_MNEMONIC, FEE, node_flag, ok
from cometbft_client import post
from evm_client import rpc
from helpers import call, in_thread, rest, until_height, until_tx

REPO = pathlib.Path(__file__).resolve().parent.parent
FILES = {"query.proto", "tx.proto", "keeper.py", "store_layout.py", "msgs.py", "query.py", "genesis.py",
         "precompile.py", "hooks.py", "cli.py", "__init__.py"}
DEV0 = "chain17w0adeg64ky0daxwd2ugyuneellmjgnxkl0eq4"      # dev account 0 (the test mnemonic's first key)
VALOPER = "chainvaloper17w0adeg64ky0daxwd2ugyuneellmjgnxvhw770"      # dev account 0, the genesis validator
_FILE_NAME = re.compile(r"``([\w.]+\.(?:py|proto))``")


def example_files():
    """{file name: its text}, from CONTRIBUTING.rst's "Adding a module" section."""
    text = (REPO / "CONTRIBUTING.rst").read_text()
    section = text.split("\nAdding a module\n", 1)[1].split("\nProtos\n", 1)[0]
    files = {}
    lines = section.splitlines()
    paragraph = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            paragraph = []
            i += 1
            continue
        paragraph.append(line)
        i += 1
        if not line.rstrip().endswith("::"):
            continue
        # The literal block: the indented lines after the blank line, up to the first line indented no deeper
        # than the paragraph.
        indent = len(line) - len(line.lstrip())
        block = []
        while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
            block.append(lines[i])
            i += 1
        names = _FILE_NAME.findall(" ".join(paragraph))
        if names and names[-1] in FILES:
            files[names[-1]] = textwrap.dedent("\n".join(block)).strip() + "\n"
        paragraph = []
    return files


@pytest.fixture(scope="module")
def counter(tmp_path_factory):
    """The counter module built from the document: (its package, query_pb2, query_pb2_grpc, tx_pb2, REST routes)."""
    files = example_files()
    assert set(files) == FILES
    root = tmp_path_factory.mktemp("counter")
    protos = root / "protos" / "example" / "counter" / "v1"
    protos.mkdir(parents=True)
    package = root / "modules" / "counter"
    package.mkdir(parents=True)
    for name, text in files.items():
        (protos if name.endswith(".proto") else package).joinpath(name).write_text(text)

    # setup.py's build, which finds the new proto root (`example`) itself.
    build = runpy.run_path(str(REPO / "setup.py"), run_name="chaind_setup")
    out = root / "pb"
    build["compile_protos"](root / "protos", out)
    routes = tuple(build["rest_routes"](root / "protos"))
    assert routes == (("GET", "/example/counter/v1/count/{address}", "/example.counter.v1.Query/Count"),)

    # As if the files were in chaind/chain/modules/counter/ and chaind/pb/example/.
    chaind.pb.__path__.append(str(out))
    chaind.chain.modules.__path__.append(str(root / "modules"))
    try:
        module = importlib.import_module("chaind.chain.modules.counter")
        pb = importlib.import_module("chaind.pb.example.counter.v1.query_pb2")
        stubs = importlib.import_module("chaind.pb.example.counter.v1.query_pb2_grpc")
        tx_pb = importlib.import_module("chaind.pb.example.counter.v1.tx_pb2")
        yield module, pb, stubs, tx_pb, routes
    finally:
        chaind.pb.__path__.remove(str(out))
        chaind.chain.modules.__path__.remove(str(root / "modules"))
        for name in [n for n in sys.modules if n.startswith(("chaind.chain.modules.counter", "chaind.pb.example"))]:
            del sys.modules[name]


def test_the_example_is_a_module(counter):
    module = counter[0].MODULE
    assert module.name == "counter" and module.cli == "chaind.chain.modules.counter.cli"
    assert [m.type_url for m in module.messages] == ["/example.counter.v1.MsgIncrement"]
    assert [s.full_name for s in module.services] == ["example.counter.v1.Query"]
    assert module.store.name == "counter" and not module.store.mounted
    assert list(module.precompiles) == [(0x901).to_bytes(20, "big")]
    assert set(module.hooks) == {"staking"}
    # Its genesis: the default section validates to nothing preset; a bad address is refused, the field named.
    context = GenesisContext("chain", "achain", "achain", frozenset(precompiles_of((*registry.MODULES, module))))
    assert module.genesis.validate(module.genesis.default(context), context) == {}
    with pytest.raises(ValueError, match="^counts.nobody: "):
        module.genesis.validate({"counts": {"nobody": "1"}}, context)


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_the_example_serves_every_face(counter, node_factory, tmp_path, monkeypatch):
    package, pb, stubs, tx_pb, routes = counter
    # What `python setup.py build_protos` would have added to chaind/pb/rest_routes.py.
    monkeypatch.setattr(gateway, "ROUTES", gateway.ROUTES + routes)
    home = Home(tmp_path / "home")
    home.init("test", dev=True)
    document = json.loads(home.genesis_file.read_text())
    bob = to_bech32("chain", bytes([0x0B]) * 20)
    document["app_state"]["counter"] = {"counts": {bob: "7"}}
    home.genesis_file.write_text(json.dumps(document))
    modules = (*registry.MODULES, package.MODULE)
    node = node_factory(modules=modules, chain={"block_interval": 0.05, "empty_blocks": True})
    yield until_height(node, node.genesis.initial_height)
    cli = make_cli(modules)
    n = node_flag(node)
    keys = ("--home", str(tmp_path / "keys"), "--keyring-backend", "test")

    def run(*args, stdin=None):
        return in_thread(CliRunner().invoke, cli, [str(a) for a in args], input=stdin)

    def committed(*tx_args):
        """Broadcast `tx ...` from dev0; its committed TxResponse, which must have succeeded."""
        sent = json.loads(ok((yield run("tx", *tx_args, "--from", "dev0", FEE, "--gas", "400000", "-y", "-o",
                                        "json", "--broadcast-mode", "sync", n, *keys))).stdout)
        assert sent["code"] == 0, sent
        yield until_tx(node, sent["txhash"])
        result = json.loads(ok((yield run("q", "tx", sent["txhash"], n, "-o", "json"))).stdout)
        assert result["code"] == 0, result["raw_log"]
        return result

    # Genesis preset bob's counter; dev0's counts its self-delegation as the genesis validator (the hook).
    response, header = yield call(node, stubs.QueryStub, "Count", pb.QueryCountRequest(address=bob))
    assert response.count == 7 and int(header["x-cosmos-block-height"]) >= node.genesis.initial_height
    response, _ = yield call(node, stubs.QueryStub, "Count", pb.QueryCountRequest(address=DEV0))
    assert response.count == 1

    # `tx counter increment` from the CLI's table, signed by dev account 0, committed with the module's event.
    ok((yield run("keys", "add", "dev0", "--recover", *keys, stdin=DEV_MNEMONIC + "\n")))
    increment = yield from committed("counter", "increment", "5")
    height = int(increment["height"])
    assert [e for e in increment["events"] if e["type"] == "increment"] == [{"type": "increment", "attributes": [
        {"key": "sender", "value": DEV0, "index": True}, {"key": "count", "value": "6", "index": True}]}]

    # The count over gRPC, REST, abci_query and the CLI, at the tx's height and before it.
    response, header = yield call(node, stubs.QueryStub, "Count", pb.QueryCountRequest(address=DEV0), height)
    assert response.count == 6 and header["x-cosmos-block-height"] == str(height)
    response, _ = yield call(node, stubs.QueryStub, "Count", pb.QueryCountRequest(address=DEV0), height - 1)
    assert response.count == 1
    # The module's export of that height: both counters, which its validate and init take back.
    exported = package.MODULE.genesis.export(node.app, node.app.view(height))
    assert exported == {"counts": {bob: "7", DEV0: "6"}}
    status, headers, body = yield rest(node, f"/example/counter/v1/count/{DEV0}", height=height)
    assert status == 200 and body == {"count": "6"}
    status, _, body = yield rest(node, "/example/counter/v1/count/nobody")
    assert status == 400 and body["message"].startswith("invalid address: ")
    _, reply = yield post(node, "abci_query", {"path": "/example.counter.v1.Query/Count",
                                               "data": pb.QueryCountRequest(address=DEV0).SerializeToString().hex()})
    answer = reply["result"]["response"]
    assert answer["code"] == 0 and pb.QueryCountResponse.FromString(base64.b64decode(answer["value"])).count == 6
    result = ok((yield run("query", "counter", "count", DEV0, n, "--height", height, "-o", "json")))
    assert json.loads(result.stdout) == {"count": "6"}

    # The store: the counter in the SDK's layout (0x01 | address, 8 bytes big-endian), proved in the app hash.
    address = parse(DEV0, "chain")
    _, reply = yield post(node, "abci_query", {"path": "/store/counter/key", "data": (b"\x01" + address).hex(),
                                               "height": str(height), "prove": True})
    answer = reply["result"]["response"]
    assert answer["code"] == 0 and base64.b64decode(answer["value"]) == (6).to_bytes(8, "big")
    assert [op["type"] for op in answer["proofOps"]["ops"]] == ["ics23:iavl", "ics23:simple"]

    # The precompile, from the EVM: count(address) at 0x...0901.
    data = keccak(b"count(address)")[:4] + abi_encode(["address"], ["0x" + address.hex()])
    _, reply = yield rpc(node, "eth_call", {"to": "0x" + (0x901).to_bytes(20, "big").hex(), "data": "0x" + data.hex()},
                         hex(height))
    assert int(reply["result"], 16) == 6, reply

    # The hook: a delegation change adds one to the delegator's counter.
    delegated = yield from committed("staking", "delegate", VALOPER, "1000achain")
    response, _ = yield call(node, stubs.QueryStub, "Count", pb.QueryCountRequest(address=DEV0),
                             int(delegated["height"]))
    assert response.count == 7

    # The message's stateless check, as the document wrote it: nothing is signed or sent.
    result = yield run("tx", "counter", "increment", "0", "--from", "dev0", FEE, "-y", n, *keys)
    assert result.exit_code != 0
