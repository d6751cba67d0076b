"""bench/run's harness: figures handed over as JSON by the bar scripts and gathered into one table.

The measurements themselves are benches, not tests; these check only the plumbing, on the quickest bar.
"""

import json
import os
import pathlib
import subprocess
import sys
import urllib.error
import urllib.request

import grpc
import pytest

from chaind.pb.cosmos.bank.v1beta1 import query_pb2, query_pb2_grpc

BENCH = pathlib.Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

from results import Result  # noqa: E402


def test_a_bar_passes_on_its_side_of_the_target():
    assert Result("a", "rate", "req/s", 10.0, 10.0).passed is True
    assert Result("a", "rate", "req/s", 9.9, 10.0).passed is False
    assert Result("b", "latency", "ms", 5.0, 5.0, higher=False).passed is True
    assert Result("b", "latency", "ms", 5.1, 5.0, higher=False).passed is False
    assert Result("c", "shown", "ms", 5.1).passed is None


def test_a_result_survives_json():
    result = Result("rpc.eth_getBalance", "eth_getBalance", "req/s", 12.5, 10.0, issue=2, compare="rpc.x")
    assert Result.from_json(json.loads(json.dumps(result.to_json()))) == result


def env():
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(BENCH.parent), str(BENCH)])}


@pytest.mark.slow
def test_a_script_with_json_prints_only_its_figures_on_stdout():
    done = subprocess.run([sys.executable, str(BENCH / "js_tracer_steps.py"), "--steps", "2000", "--json"],
                          capture_output=True, text=True, env=env(), timeout=120, check=True)
    [figure] = [Result.from_json(item) for item in json.loads(done.stdout)]
    assert figure.name == "trace.js_filter_share" and figure.unit == "steps/s" and figure.measured > 0
    assert "SLOAD/SSTORE filter" in done.stderr      # the usual report, moved aside


@pytest.mark.slow
def test_run_gathers_the_figures_into_one_table(tmp_path):
    done = subprocess.run([sys.executable, str(BENCH / "run"), "--quick", "--only", "js_tracer_steps",
                           "--logs", str(tmp_path)], capture_output=True, text=True, env=env(), timeout=300)
    assert "QUICK RUN" in done.stdout
    row = [line for line in done.stdout.splitlines() if "SLOAD/SSTORE filter tracer alone" in line]
    assert len(row) == 1 and ">= 120,000 steps/s" in row[0], done.stdout
    assert row[0].rstrip().endswith(("pass", "FAIL")) and done.returncode == (0 if "pass" in row[0] else 1)
    assert (tmp_path / "js_tracer_steps.log").read_text()


@pytest.mark.slow
def test_run_refuses_an_unknown_bench():
    done = subprocess.run([sys.executable, str(BENCH / "run"), "--only", "nope"], capture_output=True,
                          text=True, env=env(), timeout=60)
    assert done.returncode == 2 and "unknown bench nope" in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("script", ["rpc_throughput.py", "idle_rss.py", "transfers.py", "trace_e2e.py",
                                    "ws_latency.py", "ws_fanout.py", "ws_logs_load.py", "cometbft_search.py",
                                    "grpc_rest_throughput.py", "cli_query.py", "peers.py", "trace_throughput.py"])
def test_every_bar_script_takes_json(script):
    done = subprocess.run([sys.executable, str(BENCH / script), "--help"], capture_output=True, text=True,
                          env=env(), timeout=60, check=True)
    assert "--json" in done.stdout


@pytest.mark.slow
def test_the_ceiling_serves_an_empty_handler_and_a_constant_route():
    """bench/ceiling.py, the servers grpc_rest_throughput.py divides by: the node's GrpcServer answering any
    served method with an empty response, and the gateway's klein app with a constant route."""
    body = b'{"balances":[]}'
    server = subprocess.Popen([sys.executable, str(BENCH / "ceiling.py"), "--body", "eyJiYWxhbmNlcyI6W119"],
                              stdout=subprocess.PIPE, text=True, env=env())
    try:
        found = dict(server.stdout.readline().strip().split(": ", 1) for _ in range(2))
        with grpc.insecure_channel(found["grpc"]) as channel:
            reply = query_pb2_grpc.QueryStub(channel).AllBalances(
                query_pb2.QueryAllBalancesRequest(address="chain1x"), timeout=10)
            assert reply == query_pb2.QueryAllBalancesResponse()
            # The height header's share: SpendableBalances answers the same empty response with the header.
            reply, call = query_pb2_grpc.QueryStub(channel).SpendableBalances.with_call(
                query_pb2.QuerySpendableBalancesRequest(address="chain1x"), timeout=10)
            assert reply == query_pb2.QuerySpendableBalancesResponse()
            assert ("x-cosmos-block-height", "1") in call.initial_metadata()
        with urllib.request.urlopen(f"http://{found['rest']}/ceiling/constant/chain1x", timeout=10) as response:
            assert (response.status, response.read()) == (200, body)
        with pytest.raises(urllib.error.HTTPError) as unrouted:
            urllib.request.urlopen(f"http://{found['rest']}/nope", timeout=10)
        assert unrouted.value.code == 501       # the gateway's own routing and error mapping are in place
    finally:
        server.terminate()
        assert server.wait(timeout=10) == 0
