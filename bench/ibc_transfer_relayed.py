"""Issue 31's relay bar: 100 ICS-20 transfers from chain A to chain B relayed by @confio/relayer, 1 s blocks on both
chains, timed from the first send to the last acknowledgement on A: at most 30 s.

Two dev chains as real processes (`chaind init --dev --dev-chain 1|2`, `chaind start` on free ports) with automine
off, so each makes a block a second (a dev home makes one per tx besides); @confio/relayer 0.12 (npm, installed
once under ~/.cache as tests/test_ibc_relayer.py installs it) opens the clients, connection-0 and the transfer
channel with `ibc-setup connect` and `ibc-setup channel`, then `ibc-relayer start --poll 1` runs in the background.
The bench signs --transfers MsgTransfer txs of dev0's base coin to dev1 on B (one tx each, consecutive sequences)
and broadcasts them over A's gRPC as fast as A takes them, then polls A's gRPC every 0.1 s until every transfer
tx is committed and no packet commitment is left (each acknowledged). Prints the time, B's vouchers, the CPU
seconds of each node and of the relayer over that time (the box's other load inflates the wall time; it
shows where the time went), and the relayer's log lines about packets.

Usage: python bench/ibc_transfer_relayed.py [--transfers 100] [--poll 1] [--json]
"""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from chaind.chain.genesis import Genesis  # noqa: E402
from chaind.crypto.addresses import to_bech32  # noqa: E402
from chaind.home import Home  # noqa: E402
from chaind.pb.cosmos.auth.v1beta1 import query_pb2 as auth_q  # noqa: E402
from chaind.pb.cosmos.auth.v1beta1 import query_pb2_grpc as auth_grpc  # noqa: E402
from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bank_q  # noqa: E402
from chaind.pb.cosmos.bank.v1beta1 import query_pb2_grpc as bank_grpc  # noqa: E402
from chaind.pb.cosmos.tx.v1beta1 import service_pb2 as tx_service  # noqa: E402
from chaind.pb.cosmos.tx.v1beta1 import service_pb2_grpc as tx_grpc  # noqa: E402
from chaind.pb.ibc.applications.transfer.v1 import tx_pb2 as transfer_tx  # noqa: E402
from chaind.pb.ibc.core.channel.v1 import query_pb2 as channel_q  # noqa: E402
from chaind.pb.ibc.core.channel.v1 import query_pb2_grpc as channel_grpc  # noqa: E402
from cosmjs_driver import RELAYER_PACKAGE, install, install_path  # noqa: E402
from native_txs import build_native  # noqa: E402
from node_process import NodeProcess  # noqa: E402
from results import Result, run_script  # noqa: E402

BAR_S = 30
FACES = ("json-rpc-address", "ws-address", "cometbft-address", "grpc-address", "rest-address", "explorer-address",
         "metrics-address")
GAS = 200_000
GAS_PRICE = 40_000_000_000          # twice the dev chains' base fee: room for it to rise under the load
AMOUNT = 10**15
MNEMONIC = "test test test test test test test test test test test junk"
REGISTRY = """version: 1
chains:
{chains}"""
CHAIN = """  chain{n}:
    chain_id: {chain_id}
    prefix: chain
    gas_price: 20000000000achain
    hd_path: m/44'/118'/0'/0/0
    rpc:
      - http://127.0.0.1:{port}
"""


def cpu_seconds(pid):
    """User + system CPU seconds of process `pid` and its waited-for children."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


class Chains:
    """The two dev chains (their homes under `tmp`, HOME being `tmp` for the relayer's files) and the relayer."""

    def __init__(self, tmp, node, modules):
        self.tmp, self.node, self.modules = tmp, node, modules
        bins = [Path(sys.executable).parent, modules / ".bin", Path(node).parent]
        self.env = {**os.environ, "HOME": str(tmp), "PATH": os.pathsep.join([*map(str, bins), os.environ["PATH"]]),
                    "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parent.parent),
                                                   os.environ.get("PYTHONPATH", "")])}
        self.env.pop("CHAIND_HOME", None)
        self.nodes, self.ports, self.homes, self.relayer = [], [], [], None
        self.relayer_log = []

    def run(self, *argv, timeout=600):
        done = subprocess.run(list(argv), env=self.env, cwd=self.tmp, capture_output=True, text=True, timeout=timeout)
        if done.returncode:
            raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")
        return done.stdout

    def start(self):
        for n in (1, 2):
            home = self.tmp / f".chaind-{n}"
            self.run("chaind", "init", f"node{n}", "--dev", "--dev-chain", str(n), "--home", str(home))
            config = home / "config" / "chaind.toml"
            text = config.read_text()
            # 1 s blocks only: a dev home also makes a block for each tx as it arrives.
            config.write_text(text.replace("\nautomine = true\n", "\nautomine = false\n", 1))
            self.homes.append(home)
        flags = [f"--{face}=127.0.0.1:0" for face in FACES]
        for home in self.homes:
            self.nodes.append(NodeProcess(None, None, self.tmp, ["chaind", "start", "--home", str(home), *flags],
                                          self.env))
        threads = [threading.Thread(target=lambda p=p: self.ports.append((p, p.start(timeout=120))))
                   for p in self.nodes]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.ports = [dict(ports) for p in self.nodes for q, ports in self.ports if q is p]
        if len(self.ports) != 2:
            raise SystemExit("a node did not start")
        setup = self.tmp / ".ibc-setup"
        setup.mkdir()
        chains = "".join(CHAIN.format(n=n, chain_id=Genesis.load(Home(h).genesis_file).chain_id,
                                      port=ports["cometbft"])
                         for n, (h, ports) in enumerate(zip(self.homes, self.ports, strict=True), 1))
        (setup / "registry.yaml").write_text(REGISTRY.format(chains=chains))
        (setup / "app.yaml").write_text(f"src: chain1\ndest: chain2\nmnemonic: {MNEMONIC}\n")

    def open_channel(self):
        print(self.run("ibc-setup", "connect").strip().splitlines()[-1], flush=True)
        print(self.run("ibc-setup", "channel", "--src-port", "transfer", "--dest-port", "transfer", "--version",
                       "ics20-1").strip().replace("\n", "; "), flush=True)

    def start_relayer(self, poll):
        self.relayer = subprocess.Popen(["ibc-relayer", "start", "--poll", str(poll)], env=self.env, cwd=self.tmp,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self._read_relayer, daemon=True).start()

    def _read_relayer(self):
        for line in self.relayer.stdout:
            self.relayer_log.append((time.monotonic(), line.rstrip()))

    def stop(self):
        if self.relayer is not None and self.relayer.poll() is None:
            self.relayer.terminate()
            self.relayer.wait(timeout=30)
        for process in self.nodes:
            if process.process is not None and process.process.poll() is None:
                process.stop()


def transfers(home, ports, receiver, count, timeout_ns):
    """`count` signed MsgTransfer txs of dev0's base coin to `receiver`, consecutive sequences from its state's."""
    genesis = Genesis.load(home.genesis_file)
    key = home.dev_keys()[0]
    sender = to_bech32(genesis.bech32_prefix, key.address)
    with grpc.insecure_channel(f"127.0.0.1:{ports['grpc']}") as channel:
        info = auth_grpc.QueryStub(channel).AccountInfo(auth_q.QueryAccountInfoRequest(address=sender),
                                                        timeout=20).info
    raws = []
    for i in range(count):
        msg = transfer_tx.MsgTransfer(source_port="transfer", source_channel="channel-0", sender=sender,
                                      receiver=receiver, timeout_timestamp=timeout_ns)
        msg.token.denom, msg.token.amount = genesis.base_denom, str(AMOUNT)
        raws.append(build_native([("/ibc.applications.transfer.v1.MsgTransfer", msg)], key, genesis.chain_id,
                                 info.account_number, info.sequence + i, [(genesis.base_denom, GAS_PRICE * GAS)],
                                 GAS))
    return raws


def wait_for_acks(txs, channels, hashes, started, limit, relayer_log):
    """Poll A until the last transfer tx is committed and no packet commitment is left; seconds to the commit."""
    committed = None
    while True:
        if time.monotonic() - started > limit:
            raise SystemExit(f"not done after {limit} s; the relayer said:\n" +
                             "\n".join(line for _, line in relayer_log[-30:]))
        if committed is None:
            try:
                found = txs.GetTx(tx_service.GetTxRequest(hash=hashes[-1]), timeout=20).tx_response
                if found.code:
                    raise SystemExit(f"a transfer failed on A: {found.raw_log}")
                committed = time.monotonic() - started
            except grpc.RpcError:
                pass
        if committed is not None:
            left = channels.PacketCommitments(channel_q.QueryPacketCommitmentsRequest(
                port_id="transfer", channel_id="channel-0"), timeout=20).commitments
            if not left:
                return committed
        time.sleep(0.1)


def measure(args):
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        raise SystemExit("node and npm are needed to run @confio/relayer (apt-get install -y nodejs npm)")
    path = install_path(node, RELAYER_PACKAGE, "relayer")
    error = install(path, npm, RELAYER_PACKAGE)
    if error:
        raise SystemExit(f"cannot install @confio/relayer at {path}: {error}")
    tmp = Path(tempfile.mkdtemp(prefix="bench-ibc-relayed-"))
    chains = Chains(tmp, node, path / "node_modules")
    try:
        began = time.monotonic()
        chains.start()
        chains.open_channel()
        print(f"two chains and a transfer channel in {time.monotonic() - began:.1f} s", flush=True)
        a_ports, b_ports = chains.ports
        b_home = Home(chains.homes[1])
        receiver = to_bech32(Genesis.load(b_home.genesis_file).bech32_prefix, b_home.dev_keys()[1].address)
        raws = transfers(Home(chains.homes[0]), a_ports, receiver, args.transfers, time.time_ns() + 3600 * 10**9)
        chains.start_relayer(args.poll)
        time.sleep(args.settle)          # the relayer's first pass over both chains, before the clock starts
        pids = [p.process.pid for p in chains.nodes] + [chains.relayer.pid]
        cpu_before = [cpu_seconds(pid) for pid in pids]
        with grpc.insecure_channel(f"127.0.0.1:{a_ports['grpc']}") as a:
            txs, channels = tx_grpc.ServiceStub(a), channel_grpc.QueryStub(a)
            started = time.monotonic()
            hashes = []
            for raw in raws:
                reply = txs.BroadcastTx(tx_service.BroadcastTxRequest(tx_bytes=raw,
                                                                      mode=tx_service.BROADCAST_MODE_SYNC), timeout=20)
                if reply.tx_response.code:
                    raise SystemExit(f"A refused a transfer: {reply.tx_response.raw_log}")
                hashes.append(reply.tx_response.txhash)
            sent = time.monotonic() - started
            committed = wait_for_acks(txs, channels, hashes, started, args.limit, chains.relayer_log)
            took = time.monotonic() - started
            cpu = [cpu_seconds(pid) - before for pid, before in zip(pids, cpu_before, strict=True)]
            for txhash in hashes:
                found = txs.GetTx(tx_service.GetTxRequest(hash=txhash), timeout=20).tx_response
                if found.code:
                    raise SystemExit(f"a transfer failed on A: {found.raw_log}")
        voucher = "ibc/" + hashlib.sha256(b"transfer/channel-0/achain").hexdigest().upper()
        with grpc.insecure_channel(f"127.0.0.1:{b_ports['grpc']}") as b:
            held = bank_grpc.QueryStub(b).Balance(bank_q.QueryBalanceRequest(address=receiver, denom=voucher),
                                                  timeout=20).balance.amount
        if int(held) != AMOUNT * args.transfers:
            raise SystemExit(f"B's receiver holds {held} {voucher}, not {AMOUNT * args.transfers}")
        relayed = [f"{t - started:7.1f} s  {line}" for t, line in chains.relayer_log
                   if "Relay" in line or "error" in line.lower()]
    finally:
        chains.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print("\n".join(relayed[-12:]))
    print(f"{args.transfers} transfers A->B relayed by @confio/relayer (--poll {args.poll}, 1 s blocks): sent in "
          f"{sent:.1f} s, all in A's blocks at {committed:.1f} s, the last acknowledgement on A at {took:.1f} s; B's "
          f"receiver holds {held} {voucher}; CPU over that time: node A {cpu[0]:.1f} s, node B {cpu[1]:.1f} s, "
          f"relayer {cpu[2]:.1f} s; {took / BAR_S:.2f} of the {BAR_S} s bar: {'ok' if took <= BAR_S else 'OVER'}")
    return [Result(f"ibc.transfers_{args.transfers}_relayed", f"{args.transfers} ICS-20 transfers A->B relayed by "
                   "@confio/relayer, 1 s blocks, first send to last ack on A", "s", round(took, 1), target=BAR_S,
                   higher=False, issue=31)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transfers", type=int, default=100)
    parser.add_argument("--poll", type=float, default=1, help="the relayer's seconds between passes")
    parser.add_argument("--settle", type=float, default=5, help="seconds given the relayer's first pass")
    parser.add_argument("--limit", type=float, default=300, help="seconds before the run is given up")
    run_script(parser, measure)


if __name__ == "__main__":
    main()
