"""GetNodeInfo's build deps name the Go modules whose wire this node speaks, as Hermes's health check reads them
through abci_query: the Cosmos SDK, ibc-go and CometBFT, each a semver (its leading v dropped) in Hermes's range."""

import base64
import re

import pytest_twisted

import chaind
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2 as cmt_q
from chaind.pb.cosmos.base.tendermint.v1beta1 import query_pb2_grpc as cmt_grpc
from helpers import call, comet, in_thread

# semver.org's regular expression for a version (Hermes parses with the semver crate).
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
                    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$")
# What Hermes 1.10 and 1.13 both accept (crates/relayer/src/chain/cosmos/compatibility.rs: SDK >=0.45 <0.51 and
# >=0.46 <0.54, ibc-go >=4.1.1 <9 and >=6.3.1 <11), as (low, high) bounds.
HERMES_RANGES = {"github.com/cosmos/cosmos-sdk": ((0, 46, 0), (0, 51, 0)),
                 "github.com/cosmos/ibc-go/v8": ((6, 3, 1), (9, 0, 0)),
                 "github.com/cometbft/cometbft": ((0, 38, 0), (0, 39, 0))}


def release(version):
    """(major, minor, patch) and the build metadata of a Go module version as Hermes parses it."""
    parsed = SEMVER.match(version.removeprefix("v"))
    assert parsed, version
    return tuple(int(part) for part in parsed.groups()[:3]), parsed.group(5)


def check_wire_modules(build_deps):
    deps = {d.path: d for d in build_deps}
    local = re.sub(r"[^A-Za-z0-9]+", ".", chaind.__version__).strip(".")
    for path, (low, high) in HERMES_RANGES.items():
        numbers, build = release(deps[path].version)
        assert low <= numbers < high and build == f"chaind.{local}", deps[path]
    assert deps["github.com/cosmos/cosmos-sdk"].version == f"v0.50.9+chaind.{local}"
    assert deps["github.com/cometbft/cometbft"].version.startswith("v0.38.")


@pytest_twisted.inlineCallbacks
def test_build_deps_name_the_sdk_ibc_go_and_cometbft_over_grpc_and_abci_query(node):
    info, _ = yield call(node, cmt_grpc.ServiceStub, "GetNodeInfo", cmt_q.GetNodeInfoRequest())
    check_wire_modules(info.application_version.build_deps)
    assert [d.path for d in info.application_version.build_deps] == sorted(d.path for d in
                                                                          info.application_version.build_deps)
    reply = yield in_thread(comet, node, "abci_query", path="/cosmos.base.tendermint.v1beta1.Service/GetNodeInfo",
                            data="", prove=False)
    answer = reply["result"]["response"]
    assert answer["code"] == 0, answer
    queried = cmt_q.GetNodeInfoResponse.FromString(base64.b64decode(answer["value"]))
    check_wire_modules(queried.application_version.build_deps)
    assert queried.application_version == info.application_version
