"""Write-throughput bar of issue 2: signed value transfers committed per second, end to end.

Starts a real node (twistd) on a temp dev home, pre-signs EIP-1559 transfers from 1 and from 8
senders, sends them with wrk over keep-alive connections as fast as the node accepts them, and
times from the first send until the last receipt; every tx must be accepted and commit with status 1.

    python bench/transfers.py [--txs 4000] [--senders 1,8] [--interval 1,0]
"""

import argparse
import json
import os
import pathlib
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request

from eth_account import Account
from eth_utils import to_checksum_address

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from chaind.home import Home
from results import Result, run_script

TARGET = 800.0                 # transfers/s on the 2-core reference box
EVM_CHAIN_ID = 9000
RECIPIENT = bytes.fromhex("00000000000000000000000000000000000b0b00")
MAX_FEE = 100 * 10**9          # far above the base fee even after several full blocks
TIP = 10**9

# Walks this thread's share of the request bodies (the txs of its senders: line n is sender n % nsenders's);
# once the share is answered the thread stops.
WRK_SCRIPT = textwrap.dedent("""\
    local threads, counter = {}, 0
    function setup(thread)
      thread:set("tid", counter)
      counter = counter + 1
      table.insert(threads, thread)
    end
    function init(args)
      local nthreads, nsenders = tonumber(args[2]), tonumber(args[4])
      args_marker = args[3]
      reqs, i, answered, ok, failed, first_error = {}, 0, 0, 0, 0, ""
      -- wrk calls thread 0's request() once before the run to check it; that call must not use a tx.
      if tid == 0 then i = -1 end
      local n = 0
      for line in io.lines(args[1]) do
        if (n % nsenders) % nthreads == tid then
          reqs[#reqs + 1] = wrk.format("POST", "/", {["Content-Type"] = "application/json"}, line)
        end
        n = n + 1
      end
      filler = wrk.format("POST", "/", {["Content-Type"] = "application/json"},
                          '{"jsonrpc":"2.0","id":0,"method":"net_version","params":[]}')
    end
    function request()
      i = i + 1
      if i >= 1 and i <= #reqs then return reqs[i] end
      return filler
    end
    function response(status, headers, body)
      if string.find(body, '"id":0,', 1, true) then return end
      answered = answered + 1
      if status == 200 and string.find(body, '"result"', 1, true) then
        ok = ok + 1
      else
        failed = failed + 1
        if first_error == "" then first_error = tostring(status) .. " " .. body end
      end
      if answered >= #reqs then
        io.open(args_marker .. tid, "w"):close()
        wrk.thread:stop()
      end
    end
    function done(summary, latency, requests)
      local ok_all, failed_all, err = 0, 0, ""
      for _, t in ipairs(threads) do
        ok_all = ok_all + t:get("ok")
        failed_all = failed_all + t:get("failed")
        if err == "" then err = t:get("first_error") end
      end
      io.write(string.format("WRKRESULT %d %d %s\\n", ok_all, failed_all, (err:gsub("\\n", " "))))
    end
""")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Rpc:
    def __init__(self, url):
        self.url = url

    def call(self, method, *params):
        return self.batch([(method, list(params))])[0]

    def batch(self, calls):
        body = json.dumps([{"jsonrpc": "2.0", "id": i, "method": m, "params": p}
                           for i, (m, p) in enumerate(calls)]).encode()
        req = urllib.request.Request(self.url, body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            answers = sorted(json.loads(r.read()), key=lambda a: a["id"])
        for a in answers:
            if "error" in a:
                raise RuntimeError(f"{calls[a['id']][0]}: {a['error']}")
        return [a["result"] for a in answers]


def sign_transfers(keys, count, chain_id=EVM_CHAIN_ID):
    """`count` raw txs round-robin over the senders, each sender's nonces from 0; (raws, hashes, finals)."""
    raws, hashes = [], []
    nonces = [0] * len(keys)
    for i in range(count):
        k = i % len(keys)
        signed = Account.sign_transaction({
            "type": 2, "chainId": chain_id, "nonce": nonces[k], "to": to_checksum_address(RECIPIENT),
            "value": 1, "gas": 21000, "maxFeePerGas": MAX_FEE, "maxPriorityFeePerGas": TIP, "data": b"",
        }, keys[k].private_key)
        nonces[k] += 1
        raws.append("0x" + bytes(signed.raw_transaction).hex())
        hashes.append("0x" + bytes(signed.hash).hex())
    return raws, hashes, nonces


def start_node(workdir, interval, mempool):
    home = Home(workdir / "home").init("bench", dev=True)
    port = free_port()
    config = workdir / "bench.toml"
    lines = ["[chain]", f"block-interval = {interval}", "[json-rpc]", f'address = "127.0.0.1:{port}"',
             'ws-address = "127.0.0.1:0"', "[cometbft-rpc]", 'address = "127.0.0.1:0"',
             "[grpc]", 'address = "127.0.0.1:0"', "[rest]", 'address = "127.0.0.1:0"']
    if mempool:
        lines += ["[mempool]"] + [f"{k} = {v}" for k, v in mempool.items()]
    config.write_text("\n".join(lines) + "\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    twistd = pathlib.Path(sys.executable).with_name("twistd")
    proc = subprocess.Popen([str(twistd), "-n", "--pidfile=", "--logfile", str(workdir / "node.log"),
                             "chaind", "--home", str(home.path), "--config", str(config)],
                            cwd=workdir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    rpc = Rpc(f"http://127.0.0.1:{port}")
    deadline = time.monotonic() + 60
    while True:
        try:
            rpc.call("eth_chainId")
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"node did not start; see {workdir / 'node.log'}") from None
            time.sleep(0.1)
    return proc, rpc, home, port


def send_all(  # noqa: C901 (one send loop, read top to bottom)
        url, keys, count, chain_id, connections, threads, workdir, profile_pid=None, profile_path=None):
    """Pre-sign `count` transfers from `keys`, send them with wrk to the node at `url` as fast as it takes
    them and wait for the last to commit; every one must be accepted and have a status-1 receipt.

    Works against any EVM node (the peers too): only eth_sendRawTransaction, eth_getTransactionCount and
    eth_getTransactionReceipt are used. Returns {elapsed, rate, blocks, accept}.
    """
    rpc = Rpc(url)
    # A sender's txs all go through one wrk thread, so they arrive nearly in nonce order: a gap of more
    # than the mempool's max-queued-per-sender (64) would be refused, as in geth.
    threads = min(threads, len(keys))
    raws, hashes, finals = sign_transfers(keys, count, chain_id)
    bodies = workdir / "txs.jsonl"
    bodies.write_text("".join(
        json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": "eth_sendRawTransaction", "params": [raw]}) + "\n"
        for i, raw in enumerate(raws)))
    script = workdir / "send.lua"
    script.write_text(WRK_SCRIPT)
    addresses = ["0x" + bytes(k.address).hex() if isinstance(k.address, bytes) else k.address for k in keys]
    starts = [int(n, 16) for n in rpc.batch([("eth_getTransactionCount", [a, "latest"]) for a in addresses])]
    if any(starts):
        raise SystemExit(f"the senders have sent txs already (nonces {starts}); use a fresh chain")
    for marker in workdir.glob("sent.*"):
        marker.unlink()

    spy = None
    if profile_path:
        # --gil: samples only the thread holding the GIL, i.e. where the node's one core of Python goes.
        spy = subprocess.Popen([shutil.which("py-spy") or str(pathlib.Path(sys.executable).with_name("py-spy")),
                                "record", "--nonblocking", "--gil", "-r", "250", "-f", "raw", "-p", str(profile_pid),
                                "-o", profile_path],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
    start = time.monotonic()
    wrk = subprocess.Popen(["wrk", "-t", str(threads), "-c", str(connections), "-d", "600s", "--timeout", "60s",
                            "-s", str(script), url.rstrip("/") + "/",
                            "--", str(bodies), str(threads), str(workdir / "sent."), str(len(keys))],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        # The last receipt: every sender's committed nonce reaches its final value.
        sent_at = None
        while True:
            if sent_at is None and len(list(workdir.glob("sent.*"))) == threads:
                sent_at = time.monotonic()
            nonces = [int(n, 16) for n in rpc.batch([("eth_getTransactionCount", [a, "latest"]) for a in addresses])]
            if nonces == finals:
                break
            if sent_at is not None and time.monotonic() - sent_at > 30:
                break       # every send answered, and 30 s later still not all committed: wrk's tally says why
            if wrk.poll() is not None:
                raise SystemExit(f"wrk exited early:\n{wrk.stdout.read()}")
            if time.monotonic() - start > 600:
                raise SystemExit(f"timed out; committed nonces {nonces} of {finals}")
            time.sleep(0.02)
        elapsed = time.monotonic() - start
        committed = nonces == finals
    finally:
        if spy is not None:
            spy.send_signal(signal.SIGINT)
            spy.wait(timeout=60)
        wrk.send_signal(signal.SIGINT)
        out, _ = wrk.communicate(timeout=60)
    result = [line for line in out.splitlines() if line.startswith("WRKRESULT")]
    if not result:
        raise SystemExit(f"no result from wrk:\n{out}")
    _, ok, failed, *error = result[0].split(" ", 3)
    if int(failed) or int(ok) != count:
        raise SystemExit(f"{failed} of {count} sends refused ({ok} accepted); first: {' '.join(error)}")
    if not committed:
        raise SystemExit(f"every send accepted, but 30 s later committed nonces are {nonces}, not {finals}")
    receipts = []
    for i in range(0, count, 1000):
        receipts += rpc.batch([("eth_getTransactionReceipt", [h]) for h in hashes[i:i + 1000]])
    bad = [h for h, r in zip(hashes, receipts, strict=True) if r is None or r["status"] != "0x1"]
    if bad:
        raise SystemExit(f"{len(bad)} txs without a status-1 receipt, e.g. {bad[0]}")
    blocks = {r["blockNumber"] for r in receipts}
    return {"elapsed": elapsed, "rate": count / elapsed, "blocks": len(blocks),
            "accept": count / ((sent_at or time.monotonic()) - start)}


def run(senders, count, interval, connections, threads, mempool, keep, profile):
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="chaind-bench-"))
    proc = None
    try:
        proc, rpc, home, port = start_node(workdir, interval, mempool)
        return send_all(f"http://127.0.0.1:{port}", home.dev_keys()[:senders], count, EVM_CHAIN_ID, connections,
                        threads, workdir, proc.pid, profile and f"{profile}-{senders}-{interval:g}.txt")
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        if keep:
            print(f"  kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def measure(args):
    if shutil.which("wrk") is None:
        raise SystemExit("wrk not found: apt-get install -y wrk")
    mempool = dict(kv.split("=", 1) for kv in args.mempool)
    print(f"{args.txs} signed EIP-1559 transfers per run, wrk -t{args.threads} -c{args.connections}; "
          f"target {TARGET:.0f} transfers/s")
    results = []
    for interval in [float(x) for x in args.interval.split(",")]:
        for senders in [int(x) for x in args.senders.split(",")]:
            mode = "instant" if interval == 0 else f"{interval:g}s blocks"
            case = f"{mode:>10}  {senders} sender{'s' if senders > 1 else ' '}"
            rates = []
            for _ in range(args.runs):
                r = run(senders, args.txs, interval, args.connections, args.threads, mempool, args.keep, args.profile)
                rates.append(r["rate"])
                print(f"{case}: {r['rate']:7.1f} transfers/s ({r['elapsed']:.2f} s, {r['blocks']} blocks, "
                      f"sends answered at {r['accept']:.0f}/s)", flush=True)
            median = statistics.median(rates)
            print(f"{case}: median {median:7.1f} transfers/s  ratio to {TARGET:.0f}: {median / TARGET:.2f}", flush=True)
            results.append(Result(f"transfers.{'instant' if interval == 0 else f'{interval:g}s'}.{senders}",
                                  f"transfers end to end, {mode}, {senders} sender{'s' if senders > 1 else ''}",
                                  "tx/s", median, TARGET, issue=2, compare=f"transfers.{senders}",
                                  note=f"{args.txs} txs, median of {args.runs}"))
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--txs", type=int, default=4000, help="transfers per run")
    parser.add_argument("--senders", default="1,8", help="comma-separated sender counts (at most 10 dev accounts)")
    parser.add_argument("--interval", default="1,0", help="comma-separated block intervals in seconds (0 = instant)")
    parser.add_argument("--connections", type=int, default=8, help="keep-alive connections wrk keeps open")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--mempool", action="append", default=[], metavar="KEY=VALUE",
                        help="a [mempool] setting for the node, e.g. size=20000 (repeatable)")
    parser.add_argument("--runs", type=int, default=3, help="runs per case, each on a fresh chain; the median counts")
    parser.add_argument("--profile", metavar="PREFIX",
                        help="record the node with py-spy into PREFIX-<senders>-<interval>.txt (collapsed stacks)")
    parser.add_argument("--keep", action="store_true", help="keep the temp home and node log")
    run_script(parser, measure, argv)


if __name__ == "__main__":
    main()
