"""README's "Two chains and a relayer" runs as written: two dev chains (`chaind init --dev --dev-chain N`, `chaind
start`) as real processes on free ports, and @confio/relayer's own `ibc-setup` opening clients, a connection and
a transfer channel between them (Link.createWithNewConnections, createChannel). Then both chains answer ibc-go's
queries alike through the relayer's query client (abci_query), gRPC and REST; a misbehaviour of B (two headers
at one height, signed with B's validator key) freezes A's client of B and nothing else; `chaind replay`
re-executes both chains, checking every app hash.

The test does what the reader does between the lines: it gives each node free ports (port 0, read back from the
banner; the README's ports may be taken here) and writes them into the relayer's registry, and it installs
@confio/relayer once under ~/.cache (conftest's `relayer`) rather than with `npm install -g`.
"""

import base64
import concurrent.futures
import hashlib
import itertools
import json
import os
import pathlib
import re
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

import ibc_client_msgs as m
from chaind.cli import protojson
from chaind.home import Home
from chaind.pb.ibc.core.channel.v1 import channel_pb2
from chaind.pb.ibc.core.channel.v1 import query_pb2 as channel_q
from chaind.pb.ibc.core.channel.v1 import query_pb2_grpc as channel_grpc
from chaind.pb.ibc.core.client.v1 import query_pb2 as client_q
from chaind.pb.ibc.core.client.v1 import query_pb2_grpc as client_grpc
from chaind.pb.ibc.core.connection.v1 import connection_pb2
from chaind.pb.ibc.core.connection.v1 import query_pb2 as connection_q
from chaind.pb.ibc.core.connection.v1 import query_pb2_grpc as connection_grpc
from cosmjs_driver import RELAYER_DIR, RELAYER_PACKAGE
from helpers import wait_until
from light_headers import commit, signed_header_from_json, validator_set_from_json
from node_process import NodeProcess

pytestmark = [pytest.mark.external, pytest.mark.slow]

REPO = pathlib.Path(__file__).resolve().parent.parent
FACES = ("json-rpc-address", "ws-address", "cometbft-address", "grpc-address", "rest-address", "explorer-address",
         "metrics-address")
CLIENT, CONNECTION, PORT, CHANNEL = "07-tendermint-0", "connection-0", "transfer", "channel-0"
SECOND_CLIENT = "07-tendermint-1"
RELAYER_ADDRESS = "chain15yk64u7zc9g9k2yr2wmzeva5qgwxps6ynsmyjt"


def section():
    """README's "Two chains and a relayer": its literal blocks in order, each as (the text before it, its lines)."""
    text = (REPO / "README.rst").read_text()
    body = text.split("\nTwo chains and a relayer\n", 1)[1].split("\nWhat runs today\n", 1)[0]
    pieces = body.split("::\n\n")
    found = []
    for before, after in zip(pieces, pieces[1:], strict=False):
        lines = []
        for line in after.splitlines():
            if line.strip() and not line.startswith("    "):
                break
            lines.append(line[4:])
        paragraph = before.rsplit("\n\n", 1)[-1]
        found.append((paragraph, "\n".join(lines).strip("\n") + "\n"))
    return found


class Walkthrough:
    """The README's commands run one by one in bash with HOME a temp folder, the nodes kept running."""

    def __init__(self, tmp_path, bin_dirs):
        self.home = tmp_path
        self.env = {**os.environ, "HOME": str(tmp_path),
                    "PATH": os.pathsep.join([*map(str, bin_dirs), os.environ["PATH"]]),
                    "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
        self.env.pop("CHAIND_HOME", None)
        self.nodes = {}             # home as the README names it -> (NodeProcess, {face: port})
        self.ports = {}             # the README's port -> the one this run's node listens on
        self.outputs = []
        self.timings = {}
        self.results = {}           # a tx command -> its /tx answer

    def node_home(self, name):
        return pathlib.Path(name.replace("~", str(self.home)))

    def rewrite(self, text):
        for readme_port, port in self.ports.items():
            text = text.replace(f"127.0.0.1:{readme_port}", f"127.0.0.1:{port}")
        return text

    def start(self, line):
        began = time.monotonic()
        name = re.search(r"--home (\S+)", line).group(1)
        flags = " ".join(f"--{face} 127.0.0.1:0" for face in FACES)
        process = NodeProcess(None, None, self.home, ["bash", "-c", f"exec {line.rstrip('&').strip()} {flags}"],
                              self.env)
        ports = process.start(timeout=120)
        self.nodes[name] = (process, ports)
        config = tomllib.loads((self.node_home(name) / "config" / "chaind.toml").read_text())
        self.ports[int(config["cometbft-rpc"]["address"].rsplit(":", 1)[1])] = ports["cometbft"]
        # The home's client commands talk to the node where it listens.
        client = self.node_home(name) / "config" / "client.toml"
        client.write_text(self.rewrite(client.read_text()))
        self.timings[line] = time.monotonic() - began

    def run(self, line):
        if line.startswith("npm install -g "):
            pinned = json.loads(RELAYER_PACKAGE.read_text())["dependencies"]["@confio/relayer"]
            assert line.split()[-1] == f"@confio/relayer@{pinned}", "README's relayer is the one the test installs"
            return
        if line.endswith("&"):
            self.start(line)
            return
        began = time.monotonic()
        done = subprocess.run(["bash", "-c", "set -e -o pipefail\n" + self.rewrite(line)], env=self.env,
                              cwd=self.home, capture_output=True, text=True, timeout=600)
        self.timings[line] = time.monotonic() - began
        assert done.returncode == 0, (line, done.stdout, done.stderr[-5000:])
        self.outputs.append((line, done.stdout))
        if line.startswith("chaind tx "):
            # A reader's pause: the tx is in a block of the chain whose home signed it, and succeeded there.
            txhash = re.search(r"^txhash: ([0-9A-F]{64})$", done.stdout, re.M).group(1)
            name = [home for home, inner in re.findall(r"--home ([^\s)]+)(\)?)", line) if not inner][-1]
            result = wait_until(lambda: self.tx(name, txhash), f"tx {txhash} in a block", 60, every=0.2)
            assert result["tx_result"]["code"] == 0, (line, result["tx_result"])
            self.results[line] = result

    def run_together(self, lines):
        """`lines` run at once, each as run() runs it; the nodes they start have made their first block."""
        with concurrent.futures.ThreadPoolExecutor(len(lines)) as pool:
            list(pool.map(self.run, lines))
        for line in lines:
            if line.startswith("chaind start "):
                name = re.search(r"--home (\S+)", line).group(1)
                wait_until(lambda name=name: int(self.comet(name, "status")["sync_info"]["latest_block_height"]) >= 1,
                           f"{name}'s first block", 60, every=0.2)

    def output(self, prefix):
        return [out for line, out in self.outputs if line.startswith(prefix)][0]

    def comet(self, name, path):
        port = self.nodes[name][1]["cometbft"]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/{path}", timeout=20) as response:
            return json.loads(response.read()).get("result")

    def tx(self, name, txhash):
        """/tx's answer, or None before the tx is in a block."""
        try:
            return self.comet(name, f"tx?hash=0x{txhash}")
        except urllib.error.HTTPError:
            return None

    def stop(self):
        for process, _ in self.nodes.values():
            if process.process.poll() is None:
                process.stop()


def relayer_queries(node, modules, rpc, channel=True):
    """The relayer's IbcClient queries of one chain (tests/relayer_client/query.js), parsed as our protos."""
    args = {"rpc": rpc, "mnemonic": "test test test test test test test test test test test junk",
            "prefix": "chain", "gasPrice": "20000000000achain", "client": CLIENT, "connection": CONNECTION}
    if channel:
        args.update(port=PORT, channel=CHANNEL)
    run = subprocess.run([node, str(RELAYER_DIR / "query.js")], input=json.dumps(args), capture_output=True,
                         text=True, timeout=120, env={**os.environ, "NODE_PATH": str(modules)})
    assert run.returncode == 0, run.stderr[-3000:]
    return {name: base64.b64decode(value) for name, value in json.loads(run.stdout).items()}


# What each query answers over the relayer's client, and how gRPC asks the same: (response type, stub, method,
# request).
def _queries(channel):
    found = {
        "clientState": (client_q.QueryClientStateResponse, client_grpc.QueryStub, "ClientState",
                        client_q.QueryClientStateRequest(client_id=CLIENT)),
        "clientStates": (client_q.QueryClientStatesResponse, client_grpc.QueryStub, "ClientStates",
                         client_q.QueryClientStatesRequest()),
        "consensusStates": (client_q.QueryConsensusStatesResponse, client_grpc.QueryStub, "ConsensusStates",
                            client_q.QueryConsensusStatesRequest(client_id=CLIENT)),
        "consensusState": (client_q.QueryConsensusStateResponse, client_grpc.QueryStub, "ConsensusState",
                           client_q.QueryConsensusStateRequest(client_id=CLIENT, latest_height=True)),
        "clientParams": (client_q.QueryClientParamsResponse, client_grpc.QueryStub, "ClientParams",
                         client_q.QueryClientParamsRequest()),
        "connection": (connection_q.QueryConnectionResponse, connection_grpc.QueryStub, "Connection",
                       connection_q.QueryConnectionRequest(connection_id=CONNECTION)),
        "connections": (connection_q.QueryConnectionsResponse, connection_grpc.QueryStub, "Connections",
                        connection_q.QueryConnectionsRequest()),
        "clientConnections": (connection_q.QueryClientConnectionsResponse, connection_grpc.QueryStub,
                              "ClientConnections", connection_q.QueryClientConnectionsRequest(client_id=CLIENT)),
        "connectionClientState": (connection_q.QueryConnectionClientStateResponse, connection_grpc.QueryStub,
                                  "ConnectionClientState",
                                  connection_q.QueryConnectionClientStateRequest(connection_id=CONNECTION)),
    }
    if channel:
        found.update({
            "channel": (channel_q.QueryChannelResponse, channel_grpc.QueryStub, "Channel",
                        channel_q.QueryChannelRequest(port_id=PORT, channel_id=CHANNEL)),
            "channels": (channel_q.QueryChannelsResponse, channel_grpc.QueryStub, "Channels",
                         channel_q.QueryChannelsRequest()),
            "connectionChannels": (channel_q.QueryConnectionChannelsResponse, channel_grpc.QueryStub,
                                   "ConnectionChannels",
                                   channel_q.QueryConnectionChannelsRequest(connection=CONNECTION)),
            "channelClientState": (channel_q.QueryChannelClientStateResponse, channel_grpc.QueryStub,
                                   "ChannelClientState",
                                   channel_q.QueryChannelClientStateRequest(port_id=PORT, channel_id=CHANNEL)),
            "nextSequenceReceive": (channel_q.QueryNextSequenceReceiveResponse, channel_grpc.QueryStub,
                                    "NextSequenceReceive",
                                    channel_q.QueryNextSequenceReceiveRequest(port_id=PORT, channel_id=CHANNEL)),
        })
    return found


def _without_proofs(message):
    """The answer without what depends on the height it was read at (proof, proof height, the page's height)."""
    message = type(message).FromString(message.SerializeToString())
    for name in ("proof", "proof_height", "height"):
        if name in message.DESCRIPTOR.fields_by_name:
            message.ClearField(name)
    return message


def check_queries(walk, name, node, modules, chain_id, counterparty_chain_id):
    """The relayer's query client and our gRPC answer alike; REST's gateway paths the same JSON as gRPC's."""
    ports = walk.nodes[name][1]
    relayer = relayer_queries(node, modules, f"http://127.0.0.1:{ports['cometbft']}")
    with grpc.insecure_channel(f"127.0.0.1:{ports['grpc']}") as channel:
        for query, (response_type, stub, method, request) in _queries(True).items():
            ours = getattr(stub(channel), method)(request, timeout=20)
            theirs = response_type.FromString(relayer[query])
            assert _without_proofs(theirs) == _without_proofs(ours), query
    connection = connection_q.QueryConnectionResponse.FromString(relayer["connection"])
    # ibc-go's gRPC answers carry no proof (a relayer proves with abci_query on the store key), only the height
    # read at, in this chain's revision.
    assert connection.connection.state == connection_pb2.STATE_OPEN and not connection.proof
    assert connection.proof_height.revision_number == int(chain_id.rsplit("-", 1)[1])
    assert connection.connection.counterparty.connection_id == CONNECTION
    found = channel_q.QueryChannelResponse.FromString(relayer["channel"]).channel
    assert (found.state, found.ordering, found.version) == \
        (channel_pb2.STATE_OPEN, channel_pb2.ORDER_UNORDERED, "ics20-1")
    assert (found.counterparty.port_id, found.counterparty.channel_id) == (PORT, CHANNEL)
    state = client_q.QueryClientStateResponse.FromString(relayer["clientState"]).client_state
    tm_state = m.tm.ClientState.FromString(state.value)
    assert tm_state.chain_id == counterparty_chain_id

    rest = f"http://127.0.0.1:{ports['rest']}"
    for path, key, value in (
            (f"/ibc/core/client/v1/client_states/{CLIENT}", ("client_state", "chain_id"), counterparty_chain_id),
            (f"/ibc/core/client/v1/client_status/{CLIENT}", ("status",), "Active"),
            (f"/ibc/core/connection/v1/connections/{CONNECTION}", ("connection", "state"), "STATE_OPEN"),
            (f"/ibc/core/channel/v1/channels/{CHANNEL}/ports/{PORT}", ("channel", "state"), "STATE_OPEN"),
            (f"/ibc/core/channel/v1/connections/{CONNECTION}/channels", ("channels", 0, "version"), "ics20-1")):
        with urllib.request.urlopen(rest + path, timeout=20) as response:
            answer = json.loads(response.read())
        for part in key:
            answer = answer[part]
        assert answer == value, (path, answer)


def conflicting_headers(walk, b_name, trusted):
    """Two headers of B at its latest height, the real one and one with another app hash, both signed by B's
    validator key (from B's home), trusting B's consensus state at `trusted`: the evidence of a B that forks."""
    height = int(walk.comet(b_name, "status")["sync_info"]["latest_block_height"])
    real = signed_header_from_json(walk.comet(b_name, f"commit?height={height}")["signed_header"])
    vals = validator_set_from_json(walk.comet(b_name, f"validators?height={height}")["validators"])
    trusted_vals = validator_set_from_json(walk.comet(b_name, f"validators?height={trusted + 1}")["validators"])
    key = ed25519.Ed25519PrivateKey.from_private_bytes(Home(walk.node_home(b_name)).validator_key())
    forged = type(real)()
    forged.header.CopyFrom(real.header)
    forged.header.app_hash = bytes(32)
    forged.commit.CopyFrom(commit(forged.header, (vals, {vals.validators[0].address: key})))
    revision = int(real.header.chain_id.rsplit("-", 1)[1])

    def header(signed):
        return m.tm.Header(signed_header=signed, validator_set=vals, trusted_height=m.height(trusted, revision),
                           trusted_validators=trusted_vals)
    return m.tm.Misbehaviour(header_1=header(real), header_2=header(forged))


def client_status(walk, name, client_id=CLIENT):
    with grpc.insecure_channel(f"127.0.0.1:{walk.nodes[name][1]['grpc']}") as channel:
        return client_grpc.QueryStub(channel).ClientStatus(client_q.QueryClientStatusRequest(client_id=client_id),
                                                           timeout=20).status


def test_two_chains_and_a_relayer_as_the_readme_says(tmp_path, relayer):
    started = time.monotonic()
    node, modules = relayer
    blocks = section()
    bin_dirs = [pathlib.Path(sys.executable).parent, modules / ".bin", pathlib.Path(node).parent]
    walk = Walkthrough(tmp_path, bin_dirs)
    files = {}
    try:
        for paragraph, block in blocks:
            named = re.findall(r"``(~/\.ibc-setup/[a-z]+\.yaml)``", paragraph)
            if named:
                files[named[-1]] = block
                walk.node_home(named[-1]).write_text(walk.rewrite(block))
                continue
            lines = [line.strip() for line in block.splitlines() if line.strip()]
            while lines:
                # The nodes a block starts in the background start together, as a shell's `&` has them.
                together = list(itertools.takewhile(lambda line: line.endswith("&"), lines)) or lines[:1]
                walk.run_together(together)
                lines = lines[len(together):]
        assert set(files) == {"~/.ibc-setup/registry.yaml", "~/.ibc-setup/app.yaml"}
        a, b = "~/.chaind-1", "~/.chaind-2"
        assert set(walk.nodes) == {a, b}

        # What ibc-setup said it did.
        assert walk.output("ibc-setup keys list").count(RELAYER_ADDRESS) == 2
        funded = walk.output("ibc-setup balances")
        assert re.search(r"chain1\s+\d+achain", funded) and re.search(r"chain2\s+\d+achain", funded), funded
        assert "Created connections connection-0 (07-tendermint-0) <=> connection-0 (07-tendermint-0)" in \
            walk.output("ibc-setup connect")
        assert re.search(r"connection-0\s+07-tendermint-0\s+0\s+Open", walk.output("ibc-setup connections"))
        made = walk.output("ibc-setup channel ")
        assert "chain_9000-1: transfer/channel-0 (connection-0)" in made, made
        assert "chain_9001-2: transfer/channel-0 (connection-0)" in made, made
        assert re.search(r"channel-0\s+transfer\s+connection-0\s+Open", walk.output("ibc-setup channels"))
        shown = walk.output("chaind q ibc channel channels")
        assert "STATE_OPEN" in shown and "ics20-1" in shown and "port_id: transfer" in shown, shown
        # The relay loop's pass found the transfer's packet on A by its events, received it on B, and carried
        # B's acknowledgement back: the voucher is dev1's on B, the packet's commitment gone from A.
        relayed = walk.output("ibc-relayer start --once")
        assert "Relay 1 packets from chain_9000-1 => chain_9001-2" in relayed, relayed
        assert "Relay 1 acks from chain_9001-2 => chain_9000-1" in relayed, relayed
        assert "Quitting after one run" in relayed and "error" not in relayed.lower(), relayed
        voucher = "ibc/" + hashlib.sha256(b"transfer/channel-0/achain").hexdigest().upper()
        held = walk.output("chaind q bank balances")
        assert f'- amount: "1000000000000000000"\n  denom: {voucher}' in held, held
        with grpc.insecure_channel(f"127.0.0.1:{walk.nodes[a][1]['grpc']}") as channel:
            left = channel_grpc.QueryStub(channel).PacketCommitments(
                channel_q.QueryPacketCommitmentsRequest(port_id=PORT, channel_id=CHANNEL), timeout=20)
            assert list(left.commitments) == []
        with grpc.insecure_channel(f"127.0.0.1:{walk.nodes[b][1]['grpc']}") as channel:
            receipt = channel_grpc.QueryStub(channel).PacketReceipt(
                channel_q.QueryPacketReceiptRequest(port_id=PORT, channel_id=CHANNEL, sequence=1), timeout=20)
            assert receipt.received

        # Both ends as ibc-go answers them.
        check_queries(walk, a, node, modules, "chain_9000-1", "chain_9001-2")
        check_queries(walk, b, node, modules, "chain_9001-2", "chain_9000-1")

        # B forks: two headers at one height, submitted on A against the relayer's client of B. That client is
        # frozen; a second client of B on A (made by hand from B's latest header), B's client of A, and the
        # connection and channel ends on both are as they were.
        with grpc.insecure_channel(f"127.0.0.1:{walk.nodes[a][1]['grpc']}") as channel:
            trusted = m.tm.ClientState.FromString(client_grpc.QueryStub(channel).ClientState(
                client_q.QueryClientStateRequest(client_id=CLIENT), timeout=20).client_state.value)
        latest = int(walk.comet(b, "status")["sync_info"]["latest_block_height"])
        second = m.tm.ClientState()
        second.CopyFrom(trusted)
        second.latest_height.revision_height = latest
        made_of = {"second_client.json": m.pack("/ibc.lightclients.tendermint.v1.ClientState", second),
                   "second_consensus.json": m.pack("/ibc.lightclients.tendermint.v1.ConsensusState", m.consensus_state(
                       signed_header_from_json(walk.comet(b, f"commit?height={latest}")["signed_header"])))}
        for file_name, message in made_of.items():
            (tmp_path / file_name).write_text(json.dumps(protojson.to_dict(message)))
        walk.run(f"chaind tx ibc client create {tmp_path / 'second_client.json'} {tmp_path / 'second_consensus.json'} "
                 "--from dev2 --home ~/.chaind-1 --gas auto --gas-prices 20000000000achain -y")
        assert client_status(walk, a, SECOND_CLIENT) == "Active"
        evidence = conflicting_headers(walk, b, trusted.latest_height.revision_height)
        (tmp_path / "misbehaviour.json").write_text(json.dumps(protojson.to_dict(
            m.pack("/ibc.lightclients.tendermint.v1.Misbehaviour", evidence))))
        submit = (f"chaind tx ibc client misbehaviour {CLIENT} {tmp_path / 'misbehaviour.json'} --from dev1 "
                  "--home ~/.chaind-1 --gas auto --gas-prices 20000000000achain -y")
        walk.run(submit)
        result = walk.results[submit]
        events = [e["type"] for e in result["tx_result"]["events"]]
        assert "client_misbehaviour" in events, events
        assert client_status(walk, a) == "Frozen"
        assert client_status(walk, a, SECOND_CLIENT) == "Active"
        assert client_status(walk, b) == "Active"
        for name in (a, b):
            queried = relayer_queries(node, modules, f"http://127.0.0.1:{walk.nodes[name][1]['cometbft']}")
            assert connection_q.QueryConnectionResponse.FromString(queried["connection"]).connection.state == \
                connection_pb2.STATE_OPEN
            assert channel_q.QueryChannelResponse.FromString(queried["channel"]).channel.state == \
                channel_pb2.STATE_OPEN
        heights = {name: int(walk.comet(name, "status")["sync_info"]["latest_block_height"]) for name in (a, b)}
    finally:
        walk.stop()

    # Each chain re-executed from genesis, every block and app hash checked (the two at once: one core each).
    walk.run_together([f"chaind replay --home {name}" for name in (a, b)])
    for name in (a, b):
        replayed = walk.output(f"chaind replay --home {name}")
        last = int(re.search(r"blocks 1\.\.(\d+) replayed from genesis", replayed).group(1))
        assert last >= heights[name], replayed
    for process, _ in walk.nodes.values():
        log = "".join(process.output)
        assert "Traceback" not in log, log[-3000:]
    print("".join(f"\n{seconds:6.1f} s  {line}" for line, seconds in walk.timings.items()))
    print(f"the whole test {time.monotonic() - started:.1f} s")


