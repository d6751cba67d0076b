"""newHeads fan-out bar of issue 5: 1,000 subscribers all notified within 100 ms of a commit.

This process (not the node) holds the 1,000 WebSocket connections, each subscribed to newHeads, on
one epoll with a minimal client, so that its own cost per notification is a few microseconds. Each
round sends one transfer over HTTP in instant-block mode and times, on the same clock, from the send
(before the block's commit, so an upper bound) and from the first subscriber's notification to the
last one's; every subscriber must get the header of the block holding the transfer.

    python bench/ws_fanout.py [--subscribers 1000] [--rounds 30]
"""

import argparse
import json
import pathlib
import select
import socket
import statistics
import sys
import time

from eth_account import Account

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from chaind.home import Home
from devnode import DevNode, Profile
from rawws import RawWebSocket
from results import Result, run_script

BAR_MS = 100.0
EVM_CHAIN_ID = 9000
RECIPIENT = "0x0000000000000000000000000000000000000B0b"


class Subscriber(RawWebSocket):
    """One WebSocket connection subscribed to newHeads."""

    def __init__(self, url):
        super().__init__(url)
        self.subscription = self.call({"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe",
                                       "params": ["newHeads"]})["result"]
        self.sock.setblocking(False)


def post(port, method, *params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}).encode()
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nConnection: close\r\n"
                  b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    reply = json.loads(data.split(b"\r\n\r\n", 1)[1])
    if "error" in reply:
        raise SystemExit(f"node refused a request: {reply['error']}")
    return reply["result"]


def one_round(node, subscribers, poll, raw, tx_hash):
    by_fd = {s.sock.fileno(): s for s in subscribers}
    arrived = {}
    messages = {}
    start = time.monotonic()
    post(node.port, "eth_sendRawTransaction", raw)
    deadline = start + 10
    while len(messages) < len(subscribers):
        if time.monotonic() > deadline:
            raise SystemExit(f"only {len(messages)} of {len(subscribers)} subscribers notified within 10 s")
        for fd, _ in poll.poll(1.0):
            now = time.monotonic()
            sub = by_fd[fd]
            arrived.setdefault(fd, now)
            sub.buffer += sub.recv()
            message = sub.next_message()
            if message is not None:
                messages[fd] = message
    # Not timed: each subscriber got its own notification of the block holding the tx.
    receipt = post(node.port, "eth_getTransactionReceipt", tx_hash)
    for fd, message in messages.items():
        params = json.loads(message)["params"]
        if params["subscription"] != by_fd[fd].subscription or params["result"]["hash"] != receipt["blockHash"]:
            raise SystemExit(f"a subscriber got {params}, not block {receipt['blockHash']}")
    times = sorted(arrived.values())
    return (times[-1] - start) * 1000, (times[-1] - times[0]) * 1000, (times[0] - start) * 1000


def measure(args):
    with DevNode("[chain]\nblock-interval = 0\n") as node:
        key = Home(str(node.tmp / "home")).dev_keys()[0]
        txs = []
        for nonce in range(args.rounds + 3):
            signed = Account.sign_transaction({
                "type": 2, "chainId": EVM_CHAIN_ID, "nonce": nonce, "to": RECIPIENT, "value": 1, "gas": 21000,
                "maxFeePerGas": 100 * 10**9, "maxPriorityFeePerGas": 10**9}, key.private_key)
            txs.append(("0x" + bytes(signed.raw_transaction).hex(), "0x" + bytes(signed.hash).hex()))
        started = time.monotonic()
        subscribers = [Subscriber(node.ws_url) for _ in range(args.subscribers)]
        print(f"{len(subscribers)} newHeads subscribers connected in {time.monotonic() - started:.1f} s")
        poll = select.epoll()
        for s in subscribers:
            poll.register(s.sock.fileno(), select.EPOLLIN)
        with Profile(node.pid, args.profile):
            rounds = [one_round(node, subscribers, poll, *tx) for tx in txs]
        rounds = rounds[3:]     # warm-up blocks
        for s in subscribers:
            s.sock.close()
    to_last = sorted(r[0] for r in rounds)
    spread = sorted(r[1] for r in rounds)
    to_first = sorted(r[2] for r in rounds)
    print(f"{len(rounds)} blocks, {len(subscribers)} subscribers each:")
    print(f"  send -> first notification: median {statistics.median(to_first):.1f} ms  max {to_first[-1]:.1f} ms")
    print(f"  first -> last notification: median {statistics.median(spread):.1f} ms  max {spread[-1]:.1f} ms")
    print(f"  send -> last notification:  median {statistics.median(to_last):.1f} ms  max {to_last[-1]:.1f} ms "
          f"(commit -> last is at most this)")
    print(f"bar: all notified within {BAR_MS:g} ms of the commit  ratio worst/bar {to_last[-1] / BAR_MS:.2f}  "
          f"{'PASS' if to_last[-1] < BAR_MS else 'FAIL'}")
    return [Result("ws.newheads_fanout", f"{len(subscribers):,} newHeads subscribers: send to last, worst block",
                   "ms", to_last[-1], BAR_MS, higher=False, issue=5,
                   note=f"median {statistics.median(to_last):.1f} ms over {len(rounds)} blocks")]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subscribers", type=int, default=1000, help="WebSocket connections, one newHeads each")
    parser.add_argument("--rounds", type=int, default=30, help="blocks timed, one transfer each")
    parser.add_argument("--profile", metavar="FILE", help="record the node with py-spy into FILE (collapsed stacks)")
    run_script(parser, measure, argv)


if __name__ == "__main__":
    main()
