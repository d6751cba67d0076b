"""`chaind attach`: the JS console against a real node, through --exec, script files and the REPL."""

import json

import pytest_twisted
from click.testing import CliRunner

from chaind.cli.main import main
from evm_client import DEV0, OTHER, send, w3
from helpers import in_thread, url
from test_debug_filters import DEBUG, STORAGE_VALUES, VALUE, store_read_revert


def attach(*args, stdin=None):
    """Fires with click's Result; the CLI blocks on HTTP, so it runs off the reactor like a real client."""
    return in_thread(lambda: CliRunner().invoke(main, ["attach", *args], input=stdin))


@pytest_twisted.inlineCallbacks
def test_exec_prints_json_values(node):
    web3 = w3(node)
    yield in_thread(send, web3, {"to": OTHER, "value": 12345, "nonce": 0})
    height = yield in_thread(lambda: web3.eth.block_number)
    balance = yield in_thread(web3.eth.get_balance, DEV0)
    result = yield attach(url(node), "--exec", "eth.blockNumber")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == height
    result = yield attach(url(node), "--exec", "eth.getBalance('%s').toString()" % OTHER)
    assert json.loads(result.output) == "12345"
    result = yield attach(url(node), "--exec", "[eth.getBalance('%s'), eth.getTransactionCount('%s'), "
                          "web3.clientVersion.indexOf('chaind'), net.version, eth.getBalance('%s', 0).isZero()]"
                          % (DEV0, DEV0, OTHER))
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == [str(balance), 1, 0, "9000", True]


@pytest_twisted.inlineCallbacks
def test_exec_runs_a_filter_tracer_on_a_committed_tx(node_factory, tmp_path):
    node = node_factory(json_rpc=DEBUG)
    stored, read, _ = yield in_thread(store_read_revert, w3(node))
    # As our interface document writes it: the tracer object literal in a JS string.
    result = yield attach(url(node), "--exec", "debug.traceTransaction('%s', {tracer: '%s'})"
                          % (stored.transactionHash.to_0x_hex(), STORAGE_VALUES))
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == ["37: SSTORE 0 <- %x" % VALUE]
    # As geth's tracing docs build it in the console: a helper function, the script concatenated.
    script = tmp_path / "tracer.js"
    script.write_text("tracer = function(tx) {\n"
                      "  return debug.traceTransaction(tx, {tracer:\n"
                      "      '{' +\n"
                      "      'retVal: [],' +\n"
                      "      'step: function(log,db) {' +\n"
                      "      '   if(log.op.toNumber() == 0x54) ' +\n"
                      "      '     this.retVal.push(log.getPC() + \": SLOAD \" + ' +\n"
                      "      '        log.stack.peek(0).toString(16));' +\n"
                      "      '},' +\n"
                      "      'fault: function(log,db) {this.retVal.push(\"FAULT: \" + JSON.stringify(log))},' +\n"
                      "      'result: function(ctx,db) {return this.retVal}' +\n"
                      "      '}'\n"
                      "  }) // return debug.traceTransaction ...\n"
                      "}\n")
    result = yield attach(url(node), str(script), "--exec", "tracer('%s')" % read.transactionHash.to_0x_hex())
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == ["6: SLOAD 0"]


@pytest_twisted.inlineCallbacks
def test_exec_passes_the_nodes_errors_through(node_factory):
    node = node_factory(json_rpc={"api": "eth,net,web3"})
    result = yield attach(url(node), "--exec", "debug.traceTransaction('0x' + '00'.repeat(32), {tracer: "
                          "'{step: function(log) {}, fault: function() {}, result: function() { return 1; }}'})")
    assert result.exit_code == 1
    assert result.output == "Error: the method debug_traceTransaction does not exist/is not available\n"
    result = yield attach(url(node), "--exec", "eth.getBalance('nope')")
    assert result.exit_code == 1 and result.output.startswith("Error: ")
    result = yield attach(url(node), "--exec", "try { eth.getBalance('nope'); } catch (e) { e.code }")
    assert json.loads(result.output) == -32602


@pytest_twisted.inlineCallbacks
def test_script_files_then_exec(node, tmp_path):
    script = tmp_path / "helpers.js"
    script.write_text("var top = function() { return eth.getBlock('latest').number; };\n")
    result = yield attach(url(node), str(script), "--exec", "top() === '0x' + eth.blockNumber.toString(16)")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) is True
    result = yield attach(url(node), str(tmp_path / "missing.js"))
    assert result.exit_code == 1 and "cannot read" in result.output


@pytest_twisted.inlineCallbacks
def test_repl_reads_statements_over_lines(node):
    result = yield attach(url(node), stdin="var b = {\n n: eth.blockNumber }\nb.n >= 0\nnope()\n")
    assert result.exit_code == 0
    assert "> ... undefined\n> true\n> " in result.output
    assert "Error: ReferenceError: nope is not defined" in result.output


def test_an_unreachable_node_is_a_clear_error():
    result = CliRunner().invoke(main, ["attach", "http://127.0.0.1:9", "--exec", "eth.blockNumber"])
    assert result.exit_code == 1
    assert result.output.startswith("Error: could not reach http://127.0.0.1:9: ")
