"""`chaind attach`: the JS console against a real node, through --exec, script files and the REPL."""

import json
import os
import pathlib
import pty
import re
import select
import subprocess
import sys
import time

import pytest_twisted
from click.testing import CliRunner

from chaind.cli.main import main
from chaind.tracing.js.examples import STORAGE_VALUES
from contracts import VALUE, store_read_revert
from evm_client import DEBUG, DEV0, OTHER, send, w3
from helpers import in_thread, url, ws_url


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
    result = yield attach(url(node), str(script), "--exec", "top() === eth.blockNumber")
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


@pytest_twisted.inlineCallbacks
def test_a_ws_url_connects_and_values_read_as_in_geths_console(node):
    result = yield attach(ws_url(node), "--exec", "console.log('height', eth.blockNumber, {n: 1}); print('done'); "
                          "[typeof eth.getBlock('latest').number, eth.getBlock(1).number, "
                          "typeof eth.getBlock('latest').gasLimit, eth.getBlock('latest').number === eth.blockNumber]")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("height ") and lines[0].endswith(' {"n":1}') and lines[1] == "done"
    assert json.loads("\n".join(lines[2:])) == ["number", 1, "number", True]
    # web3.fromWei / toWei, as web3.js 0.20 converts.
    result = yield attach(url(node), "--exec", "[web3.fromWei('1500000000000000000', 'ether'), web3.toWei('1.5', "
                          "'gwei'), web3.toWei(2), web3.fromWei(123, 'gwei'), web3.fromWei(eth.getBalance('%s'), "
                          "'ether')]" % OTHER)
    assert json.loads(result.output)[:4] == ["1.5", "1500000000", "2000000000000000000", "0.000000123"]
    result = yield attach(url(node), "--exec", "web3.toWei('1', 'lightyear')")
    assert result.exit_code == 1 and "This unit doesn't exists" in result.output


@pytest_twisted.inlineCallbacks
def test_send_transaction_from_a_dev_account_over_http_and_ws(node):
    for where in (url(node), ws_url(node)):
        before = yield in_thread(w3(node).eth.get_balance, OTHER)
        result = yield attach(where, "--exec", "eth.sendTransaction({from: '%s', to: '%s', value: web3.toWei(3, "
                              "'gwei'), gas: 21000})" % (DEV0, OTHER))
        assert result.exit_code == 0, result.output
        tx_hash = json.loads(result.output)
        receipt = yield in_thread(w3(node).eth.wait_for_transaction_receipt, tx_hash, 30)
        assert receipt.status == 1
        after = yield in_thread(w3(node).eth.get_balance, OTHER)
        assert after - before == 3 * 10**9
        result = yield attach(where, "--exec", "var r = eth.getTransactionReceipt('%s'); [r.status, typeof "
                              "r.blockNumber, eth.getTransaction('%s').value.toString()]" % (tx_hash, tx_hash))
        assert json.loads(result.output) == [1, "number", str(3 * 10**9)]


def _console_in_a_terminal(address, lines, timeout=60):
    """What `chaind attach` shows on a terminal (a pty) as `lines` are typed at its prompts (a tab in a line
    asks for completion), then Ctrl-D."""
    master, slave = pty.openpty()
    repo = pathlib.Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(repo), os.environ.get("PYTHONPATH", "")]),
           "TERM": "xterm", "INPUTRC": "/dev/null"}
    process = subprocess.Popen([str(pathlib.Path(sys.executable).parent / "chaind"), "attach", address],
                               stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    shown = bytearray()
    deadline = time.monotonic() + timeout

    def read(until=None, quiet=0.3):
        """Read until `until()` holds, or (without one) until the terminal is quiet for `quiet` seconds."""
        while time.monotonic() < deadline and not (until and until()):
            ready, _, _ = select.select([master], [], [], quiet)
            if not ready:
                if until is None:
                    return
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:         # the console exited: the pty is closed
                return
            if not chunk:
                return
            shown.extend(chunk)

    try:
        # Readline drops what is typed ahead of its prompt: each line waits for one, each tab for its answer.
        for line in lines + ["\x04"]:
            read(until=lambda: shown.endswith(b"> "))
            for part in re.split(r"(?<=\t)", line):
                os.write(master, part.encode())
                read()
        read(until=lambda: process.poll() is not None)
    finally:
        process.wait(30)
        os.close(master)
    return shown.decode(errors="replace")


@pytest_twisted.inlineCallbacks
def test_tab_completes_the_consoles_names_on_a_terminal(node):
    height = yield in_thread(lambda: w3(node).eth.block_number)
    shown = yield in_thread(_console_in_a_terminal, url(node),
                            ["web3.toW\t('2', 'gwei')\n", "eth.getBlo\t(%d).number\n" % height])
    assert "web3.toWei('2', 'gwei')\r\n\"2000000000\"\r\n" in shown, shown
    assert "eth.getBlock(%d).number\r\n%d\r\n" % (height, height) in shown, shown
