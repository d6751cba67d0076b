"""GetNodeInfo's application_version as the SDK fills it, parseable by the clients that read it: cosmpy's
query_node_info (packaging.Version of cosmos_sdk_version and version) and its gas strategy's consensus params,
run with unmodified cosmpy over gRPC and REST."""

import importlib.metadata
import json
import subprocess

import pytest
import pytest_twisted
from packaging.version import Version

import chaind
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2 as cmt_q
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2_grpc as cmt_grpc
from helpers import call, in_thread, rest

# What cosmpy's LedgerClient reads, as a client program would call it.
COSMPY_SCRIPT = """
import json, sys
from cosmpy.aerial.client import LedgerClient, NetworkConfig
from cosmpy.aerial.gas import SimulationGasStrategy
client = LedgerClient(NetworkConfig(chain_id=sys.argv[2], url=sys.argv[1], fee_minimum_gas_price=1,
                                    fee_denomination="achain", staking_denomination="achain"))
info = client.query_node_info()
print(json.dumps({"cosmos_sdk_version": str(info.cosmos_sdk_version), "app_name": info.app_name,
                  "app_version": str(info.app_version),
                  "block_gas_limit": SimulationGasStrategy(client).block_gas_limit()}))
"""


@pytest_twisted.inlineCallbacks
def test_application_version_fields(node):
    info, _ = yield call(node, cmt_grpc.ServiceStub, "GetNodeInfo", cmt_q.GetNodeInfoRequest())
    v = info.application_version
    assert (v.name, v.app_name, v.version) == ("chaind", "chaind", chaind.__version__)
    assert v.cosmos_sdk_version.startswith("v0.50.") and v.go_version.startswith("python 3.")
    sdk = Version(v.cosmos_sdk_version.lstrip("v"))
    assert sdk >= Version("0.50.0rc0") and sdk.local == f"chaind.{chaind.__version__}"
    assert Version(v.version.lstrip("v")) == Version(chaind.__version__)
    deps = {d.path: d.version for d in v.build_deps}
    assert deps["grpcio"] == importlib.metadata.version("grpcio") and deps["twisted"]
    assert [d.path for d in v.build_deps] == sorted(deps)
    status, _, body = yield rest(node, "/cosmos/base/tendermint/v1beta1/node_info")
    shown = body["application_version"]
    assert status == 200 and shown["cosmos_sdk_version"] == v.cosmos_sdk_version and shown["git_commit"] == ""
    assert {"path": "grpcio", "version": deps["grpcio"], "sum": ""} in shown["build_deps"]


def _cosmpy(python, url, chain_id):
    run = subprocess.run([str(python), "-c", COSMPY_SCRIPT, url, chain_id], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.mark.external
@pytest_twisted.inlineCallbacks
def test_cosmpy_reads_node_info_and_block_gas_limit(node, cosmpy_python):
    chain_id = node.genesis.chain_id
    for url in (f"grpc+http://127.0.0.1:{node.port_of('grpc')}", f"rest+http://127.0.0.1:{node.port_of('rest')}"):
        answer = yield in_thread(_cosmpy, cosmpy_python, url, chain_id)
        assert answer == {"cosmos_sdk_version": f"0.50.9+chaind.{chaind.__version__}", "app_name": "chaind",
                          "app_version": chaind.__version__,
                          "block_gas_limit": int(node.genesis.document["consensus_params"]["block"]["max_gas"])}, url
