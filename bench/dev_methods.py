"""What a test suite does to its dev node: one sender sends and waits for each receipt, snapshot + 100 txs
+ revert, and anvil_mine of 10,000 blocks; on our node in instant mode, and on a peer with --peer-url.

    /work/venv/bin/python bench/dev_methods.py [--txs 500] [--blocks 10000] [--peer-url http://127.0.0.1:8545]

The same work runs on the peers (bench/peers.py imports dev_work), so bench/run --peers shows Anvil's column.
"""

import argparse
import http.client
import json
import statistics
import time

from eth_account import Account

from devnode import DevNode
from results import Result, run_script

DEV0_KEY = bytes.fromhex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
RECIPIENT = "0x" + "22" * 20
CONFIG = 'api = "eth,net,web3,dev"\n[chain]\nblock-interval = 0.0\nempty-blocks = false\n'


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
    """Send each tx and poll for its receipt before the next; the seconds each took."""
    times = []
    for raw in raws:
        began = time.perf_counter()
        tx_hash = client.call("eth_sendRawTransaction", raw)
        while client.call("eth_getTransactionReceipt", tx_hash) is None:
            pass
        times.append(time.perf_counter() - began)
    return times


def dev_work(url, txs, blocks, mine_method="anvil_mine"):
    """{key: (figure, unit, value)} of the dev work on the node at `url` (its nonce of DEV0 at 0)."""
    client = Client(url)
    chain_id = int(client.call("eth_chainId"), 16)
    nonce = int(client.call("eth_getTransactionCount", Account.from_key(DEV0_KEY).address, "latest"), 16)
    warm = 20
    times = send_and_wait(client, signed(chain_id, nonce, warm + txs))[warm:]
    nonce += warm + txs
    out = {"dev.send_wait_p50": ("one sender, send then receipt, p50", "ms", statistics.median(times) * 1000),
           "dev.send_wait_rate": ("one sender, send then receipt", "tx/s", len(times) / sum(times))}
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
        work = dev_work(node.url, args.txs, args.blocks)
    if args.peer_url:
        # The same work on a running peer (Anvil: `anvil --silent`), right after ours, for its column.
        for figure, unit, value in dev_work(args.peer_url, args.txs, args.blocks).values():
            print(f"peer {figure}: {value:,.2f} {unit}", flush=True)
    bars = {"dev.send_wait_p50": (3.0, False), "dev.revert_100": (50.0, False), "dev.mine_many": (2.0, False),
            "dev.send_wait_rate": (None, True)}
    results = []
    for key, (figure, unit, value) in work.items():
        bar, higher = bars[key]
        results.append(Result(key, figure, unit, value, target=bar, higher=higher, issue=18, compare=key))
        print(f"{figure}: {value:,.2f} {unit}" + ("" if bar is None else f" (bar {'>=' if higher else '<='} {bar})"),
              flush=True)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--txs", type=int, default=500, help="timed send-and-wait txs")
    parser.add_argument("--blocks", type=int, default=10000, help="blocks one anvil_mine makes")
    parser.add_argument("--peer-url", help="a running peer (Anvil) to run the same work on, after ours")
    run_script(parser, measure, argv)


if __name__ == "__main__":
    main()
