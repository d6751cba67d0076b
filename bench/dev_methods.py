"""What a test suite does to its dev node: one sender sends and waits for each receipt, snapshot + 100 txs
+ revert, and anvil_mine of 10,000 blocks; on our node in instant mode, as a dev home runs it (no fsync), and
on a peer with --peer-url. The server-side time of a tx is its send-then-receipt wall time less the CPU time
this client spent on it (signing is done before; what is left is the server's and the loopback's).

    python bench/dev_methods.py [--txs 500] [--blocks 10000] [--peer-url http://127.0.0.1:8545]

The same work runs on the peers (bench/peers.py imports dev_work), so bench/run --peers shows Anvil's column.
An Anvil started by hand for --peer-url keeps the states of all but its last 500 blocks under ~/.foundry/anvil/tmp
and never removes them (over a GB a run here): start it as `HOME=$(mktemp -d) anvil --silent`.
"""

import argparse
import http.client
import json
import os
import pathlib
import statistics
import time

from eth_account import Account

from devnode import DevNode
from results import Result, run_script

DEV0_KEY = bytes.fromhex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
RECIPIENT = "0x" + "22" * 20
# A dev home's settings for what the bench does: the dev namespace, instant blocks, blocks without fsync, tables
# uncompressed.
CONFIG = ('api = "eth,net,web3,dev"\n[chain]\nblock-interval = 0.0\nempty-blocks = false\n'
          '[storage]\nfsync = false\ncompression = "none"\n')


class Client:
    """JSON-RPC over one keep-alive HTTP connection, as a test suite's provider holds it."""

    def __init__(self, url, timeout=900):
        # Anvil 1.7.1 takes minutes for anvil_mine of 10,000 blocks on a small box: wait that long.
        host, port = url.split("//")[1].split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=timeout)

    def call(self, method, *params):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
        self.connection.request("POST", "/", body, {"Content-Type": "application/json"})
        reply = json.loads(self.connection.getresponse().read())
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]


def signed(chain_id, first_nonce, count):
    out = []
    for nonce in range(first_nonce, first_nonce + count):
        tx = Account.sign_transaction({"type": 2, "chainId": chain_id, "nonce": nonce, "to": RECIPIENT, "value": 1,
                                       "gas": 21000, "maxFeePerGas": 100 * 10**9, "maxPriorityFeePerGas": 10**9},
                                      DEV0_KEY)
        out.append("0x" + bytes(tx.raw_transaction).hex())
    return out


def send_and_wait(client, raws):
    """Send each tx and poll for its receipt before the next; the seconds each took, and the seconds each
    took less this client's CPU time on it (the server's part)."""
    times, server = [], []
    for raw in raws:
        began, cpu = time.perf_counter(), time.process_time()
        tx_hash = client.call("eth_sendRawTransaction", raw)
        while client.call("eth_getTransactionReceipt", tx_hash) is None:
            pass
        took = time.perf_counter() - began
        times.append(took)
        server.append(took - (time.process_time() - cpu))
    return times, server


def cpu_seconds(pid):
    """User + system CPU seconds of process `pid`, all its threads (Linux /proc)."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def dev_work(url, txs, blocks, mine_method="anvil_mine", pid=None):
    """{key: (figure, unit, value)} of the dev work on the node at `url` (its nonce of DEV0 at 0); with the
    node's `pid`, also its CPU time per tx."""
    client = Client(url)
    chain_id = int(client.call("eth_chainId"), 16)
    nonce = int(client.call("eth_getTransactionCount", Account.from_key(DEV0_KEY).address, "latest"), 16)
    warm = 20
    send_and_wait(client, signed(chain_id, nonce, warm))
    nonce += warm
    cpu = cpu_seconds(pid) if pid else None
    times, server = send_and_wait(client, signed(chain_id, nonce, txs))
    nonce += txs
    out = {"dev.send_wait_p50": ("one sender, send then receipt, p50", "ms", statistics.median(times) * 1000),
           "dev.send_wait_server": ("one sender, send then receipt, server-side time per tx, p50", "ms",
                                    statistics.median(server) * 1000),
           "dev.send_wait_rate": ("one sender, send then receipt", "tx/s", len(times) / sum(times))}
    if pid:
        out["dev.send_wait_cpu"] = ("one sender, send then receipt, the node's CPU time per tx", "ms",
                                    (cpu_seconds(pid) - cpu) / txs * 1000)
    snapshot = client.call("evm_snapshot")
    send_and_wait(client, signed(chain_id, nonce, 100))
    began = time.perf_counter()
    assert client.call("evm_revert", snapshot) is True
    out["dev.revert_100"] = ("evm_revert after snapshot + 100 txs", "ms", (time.perf_counter() - began) * 1000)
    height = int(client.call("eth_blockNumber"), 16)
    began = time.perf_counter()
    client.call(mine_method, hex(blocks))
    took = time.perf_counter() - began
    assert int(client.call("eth_blockNumber"), 16) == height + blocks
    out["dev.mine_many"] = (f"{mine_method} of {blocks:,} blocks", "s", took)
    return out


def measure(args):
    with DevNode(config=CONFIG) as node:
        work = dev_work(node.url, args.txs, args.blocks, pid=node.pid)
    if args.peer_url:
        # The same work on a running peer (Anvil: `anvil --silent`), right after ours, for its column.
        peer = dev_work(args.peer_url, args.txs, args.blocks)
        for figure, unit, value in peer.values():
            print(f"peer {figure}: {value:,.2f} {unit}", flush=True)
    bars = {"dev.send_wait_p50": (3.0, False, 18), "dev.send_wait_server": (1.5, False, 34),
            "dev.revert_100": (50.0, False, 18), "dev.mine_many": (2.0, False, 34),
            "dev.send_wait_rate": (None, True, 18), "dev.send_wait_cpu": (None, False, 34)}
    results = []
    for key, (figure, unit, value) in work.items():
        bar, higher, issue = bars[key]
        results.append(Result(key, figure, unit, value, target=bar, higher=higher, issue=issue, compare=key))
        print(f"{figure}: {value:,.2f} {unit}" + ("" if bar is None else f" (bar {'>=' if higher else '<='} {bar})"),
              flush=True)
    if args.peer_url:
        ratio = work["dev.send_wait_rate"][2] / peer["dev.send_wait_rate"][2]
        print(f"one sender, send then receipt: {ratio:.2f} x the peer's tx/s", flush=True)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--txs", type=int, default=500, help="timed send-and-wait txs")
    parser.add_argument("--blocks", type=int, default=10000, help="blocks one anvil_mine makes")
    parser.add_argument("--peer-url", help="a running peer (Anvil) to run the same work on, after ours")
    run_script(parser, measure, argv)


if __name__ == "__main__":
    main()
