"""A `chaind testnet` run for real: per home, one `cometbft node` process and one chaind process (socket mode),
every listener on 127.0.0.1; clients of CometBFT's RPC and chaind's faces for the tests that drive it."""

import base64
import json
import os
import pathlib
import random
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

from click.testing import CliRunner

from chaind.cli.main import main
from chaind.cli.testnet import PORTS_PER_NODE, node_ports
from chaind.keyring import Keyring
from node_process import NodeProcess


def free_starting_port(count):
    """A --starting-port whose count * PORTS_PER_NODE ports are all free on 127.0.0.1 now, below the ephemeral
    range (where port-0 listeners and outgoing connections of other tests land)."""
    ephemeral = int(pathlib.Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    for _ in range(200):
        base = random.randrange(10000, ephemeral - PORTS_PER_NODE * count, PORTS_PER_NODE)
        try:
            for port in range(base, base + PORTS_PER_NODE * count):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise AssertionError("no free block of ports on 127.0.0.1")


def write_testnet(tmp_path, count):
    """`chaind testnet` homes under tmp_path/net; (homes, starting port)."""
    starting = free_starting_port(count)
    out = tmp_path / "net"
    result = CliRunner().invoke(main, ["testnet", "--validators", str(count), "--output", str(out),
                                       "--starting-port", str(starting)])
    assert result.exit_code == 0, result.output
    return [out / f"node{i}" for i in range(count)], starting


class Validator:
    """One home's two processes: chaind (started first: CometBFT dials its ABCI socket) and `cometbft node`."""

    def __init__(self, cometbft, home, ports, workdir):
        self.cometbft, self.home, self.ports, self.workdir = cometbft, home, ports, workdir
        workdir.mkdir(exist_ok=True)
        self.chaind = NodeProcess(home, home / "config" / "chaind.toml", workdir)
        self.comet = None
        self.comet_log = workdir / "cometbft.log"

    def start(self):
        self.chaind.start()
        with open(self.comet_log, "a") as log:
            self.comet = subprocess.Popen([str(self.cometbft), "node", "--home", str(self.home)], cwd=self.workdir,
                                          stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def stop(self):
        """Both processes, for good (SIGKILL: as a crashed machine stops)."""
        if self.comet is not None and self.comet.poll() is None:
            self.comet.kill()
        if self.comet is not None:
            self.comet.wait(timeout=30)
        self.chaind.kill()

    def logs(self):
        return (f"--- chaind {self.home.name}:\n{''.join(self.chaind.output[-30:])}\n--- cometbft {self.home.name}:\n"
                + "\n".join(self.comet_log.read_text().splitlines()[-30:]))

    # -- CometBFT's RPC ---------------------------------------------------------------------------

    def rpc(self, method, **params):
        """A URI GET of CometBFT's RPC; its result (an error fails the test). Params go as given: a string
        argument is quoted by the caller (query='"..."'), a hash (0x...) or number is not."""
        query = urllib.parse.urlencode(params)
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.ports['rpc']}/{method}?{query}", timeout=60) as r:
                reply = json.loads(r.read())
        except urllib.error.HTTPError as e:     # CometBFT answers an RPC error with a 500 and its JSON
            reply = json.loads(e.read())
        assert "error" not in reply, (method, params, reply)
        return reply["result"]

    def rpc_post(self, method, params, timeout=60):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.ports['rpc']}/", data=body,
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout) as r:
            reply = json.loads(r.read())
        assert "error" not in reply, reply
        return reply["result"]

    def height(self):
        try:
            return int(self.rpc("status")["sync_info"]["latest_block_height"])
        except OSError:
            return 0

    def wait_height(self, height, timeout=90):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.height() >= height:
                return
            assert self.comet.poll() is None, f"cometbft exited {self.comet.returncode}\n{self.logs()}"
            assert self.chaind.process.poll() is None, f"chaind exited\n{self.logs()}"
            time.sleep(0.2)
        raise AssertionError(f"{self.home.name} did not reach height {height} in {timeout} s\n{self.logs()}")

    def broadcast_commit(self, raw):
        return self.rpc_post("broadcast_tx_commit", {"tx": base64.b64encode(raw).decode()})

    # -- chaind's faces ---------------------------------------------------------------------------

    def eth(self, method, *params):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.ports['json-rpc']}", data=body,
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as r:
            reply = json.loads(r.read())
        assert "error" not in reply, reply
        return reply["result"]

    def rest(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.ports['rest']}{path}", timeout=60) as r:
            return json.loads(r.read())


def listening_addresses(pid):
    """The (host, port) pairs process `pid` listens on over TCP, read from /proc (Linux)."""
    inodes = set()
    for fd in pathlib.Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = set()
    for table, family in (("tcp", socket.AF_INET), ("tcp6", socket.AF_INET6)):
        for line in pathlib.Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] != "0A" or fields[9] not in inodes:       # 0A: LISTEN
                continue
            host, port = fields[1].split(":")
            raw = bytes.fromhex(host)
            # /proc writes the address as host-order 32-bit words
            raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
            found.add((socket.inet_ntop(family, raw), int(port, 16)))
    return found


def start_network(cometbft, tmp_path, count):
    homes, starting = write_testnet(tmp_path, count)
    validators = [Validator(cometbft, home, node_ports(starting, i), tmp_path / f"run{i}")
                  for i, home in enumerate(homes)]
    return validators


def comet_block_hashes(validator, height):
    """(app hash, block hash) of CometBFT's block at `height`, hex upper case as CometBFT writes them."""
    block = validator.rpc("block", height=height)
    return block["block"]["header"]["app_hash"], block["block_id"]["hash"]


def chaind_block_hashes(validator, height):
    """The same pair from chaind's own record of that block (cosmos.base.tendermint GetBlockByHeight)."""
    block = validator.rest(f"/cosmos/base/tendermint/v1beta1/blocks/{height}")
    # Empty bytes are null in this JSON (the genesis app hash, block 1's): CometBFT writes "".
    return tuple(base64.b64decode(b or "").hex().upper()
                 for b in (block["block"]["header"]["app_hash"], block["block_id"]["hash"]))


def served_block_matches(validator, height):
    """chaind's gRPC block (through its REST routes: GetBlockByHeight and GetBlockWithTxs) carries CometBFT's block
    id, part-set header and all, and CometBFT's last commit: the one `/commit` serves for the parent (a height
    below the latest, whose commit is the canonical one the next block carries)."""
    comet = validator.rpc("block", height=height)
    wanted_id = _block_id_b64(comet["block_id"])
    wanted_parent = _block_id_b64(comet["block"]["header"]["last_block_id"])
    if height > 1:
        parent_commit = validator.rpc("commit", height=height - 1)["signed_header"]["commit"]
        assert parent_commit["signatures"] == comet["block"]["last_commit"]["signatures"]
    for path in (f"/cosmos/base/tendermint/v1beta1/blocks/{height}", f"/cosmos/tx/v1beta1/txs/block/{height}"):
        ours = validator.rest(path)
        assert _block_id_b64_ours(ours["block_id"]) == wanted_id, (path, ours["block_id"], comet["block_id"])
        header = ours["block"]["header"]
        assert _block_id_b64_ours(header["last_block_id"]) == wanted_parent, (path, header["last_block_id"])
        assert base64.b64decode(header["last_commit_hash"] or "").hex().upper() == \
            comet["block"]["header"]["last_commit_hash"], path
        commit = ours["block"]["last_commit"]
        assert int(commit["height"]) == int(comet["block"]["last_commit"]["height"])
        assert commit["round"] == comet["block"]["last_commit"]["round"]
        assert [_sig(s) for s in commit["signatures"]] == \
            [_sig_comet(s) for s in comet["block"]["last_commit"]["signatures"]], path


def _block_id_b64(bid):
    return bid["hash"], bid["parts"]["total"], bid["parts"]["hash"]


def _block_id_b64_ours(bid):
    parts = bid["part_set_header"]
    return (base64.b64decode(bid["hash"] or "").hex().upper(), int(parts.get("total") or 0),
            base64.b64decode(parts["hash"] or "").hex().upper())


def _sig(sig):
    """A CommitSig of the REST face as CometBFT's JSON writes it: flag number, hex address, base64 signature."""
    flags = {"BLOCK_ID_FLAG_ABSENT": 1, "BLOCK_ID_FLAG_COMMIT": 2, "BLOCK_ID_FLAG_NIL": 3}
    return (flags[sig["block_id_flag"]], base64.b64decode(sig["validator_address"] or "").hex().upper(),
            _nanos(sig["timestamp"]), sig["signature"])


def _sig_comet(sig):
    return sig["block_id_flag"], sig["validator_address"], _nanos(sig["timestamp"]), sig["signature"]


# The header fields chaind works out itself in socket mode (FinalizeBlock names the rest).
OWN_HEADER_FIELDS = ("chain_id", "height", "time", "data_hash", "validators_hash", "next_validators_hash",
                     "consensus_hash", "app_hash", "last_results_hash", "evidence_hash", "proposer_address")


def header_fields(validator, height):
    """{field: value} of CometBFT's header and of chaind's record of it, hashes as hex upper case."""
    comet = validator.rpc("block", height=height)["block"]["header"]
    ours = validator.rest(f"/cosmos/base/tendermint/v1beta1/blocks/{height}")["block"]["header"]
    hexed = {k: base64.b64decode(v or "").hex().upper() if k.endswith(("_hash", "_address")) else v
             for k, v in ours.items()}
    # Times compared to the nanosecond: CometBFT's RPC trims a fraction's trailing zeros (Go's RFC3339Nano),
    # the REST face writes 0, 3, 6 or 9 digits (protobuf JSON).
    comet = {**comet, "time": _nanos(comet["time"])}
    hexed["time"] = _nanos(hexed["time"])
    return ({k: comet[k] for k in OWN_HEADER_FIELDS}, {k: hexed[k] for k in OWN_HEADER_FIELDS})


def same_hashes(validators, heights):
    """Every node's CometBFT and chaind agree on each height's app hash and block hash, and chaind's record
    of the header has CometBFT's values in every field it works out itself."""
    for height in heights:
        want = comet_block_hashes(validators[0], height)
        for v in validators:
            assert comet_block_hashes(v, height) == want, (v.home.name, height)
            assert chaind_block_hashes(v, height) == want, (v.home.name, height)
            comet, ours = header_fields(v, height)
            assert ours == comet, (v.home.name, height)
            served_block_matches(v, height)


def operator_key(validator):
    return Keyring(validator.home, "test").private_key("validator")


def _nanos(rfc3339):
    seconds, _, fraction = rfc3339.rstrip("Z").partition(".")
    return seconds, int(fraction.ljust(9, "0"))
