"""Issue 37's IBC part with Hermes, the relayer most networks run: a chaind dev chain and ibc-go v8.5's `simd` as
processes, Hermes's own CLI between them: clients, connections and transfer channels opened from either side, ICS-20
both ways with `hermes tx ft-transfer`, vouchers checked with each chain's own queries and sent home, a timeout and
an error acknowledgement each way refunded; then `hermes start` relays by itself from the chains' /websocket."""

import calendar
import hashlib
import subprocess
import time

import pytest

from chaind.chain.modules.transfer import ibc_denom, parse_trace
from chaind.crypto.addresses import to_bech32
from chaind.pb.ibc.applications.transfer.v1 import query_pb2 as transfer_q
from chaind.pb.ibc.applications.transfer.v1 import query_pb2_grpc as transfer_grpc
from dev_chain_nodes import balance, escrowed
from helpers import wait_until
from hermes_relayer import ETHERMINT, Hermes, HermesChain
from simd_chain import MNEMONIC, SIMD_CHAIN_ID, chaind_and_simd, start_both

pytestmark = [pytest.mark.external, pytest.mark.slow]

CHAIND_CHAIN_ID = "chain_9000-1"   # dev chain 1
ONE = 10**18
DISTRIBUTION = hashlib.sha256(b"distribution").digest()[:20]   # a module account: both chains refuse to pay it
FAR = ("--timeout-seconds", 600)


def chaind_trace(chain, denom):
    trace = chain.grpc(transfer_grpc.QueryStub, "DenomTrace",
                       transfer_q.QueryDenomTraceRequest(hash=denom.removeprefix("ibc/"))).denom_trace
    return {"path": trace.path, "base_denom": trace.base_denom}


def ends(channel):
    """(client, connection, channel) of each side of what `hermes create channel` made."""
    return [(channel[side]["client_id"], channel[side]["connection_id"], channel[side]["channel_id"])
            for side in ("a_side", "b_side")]


def rfc3339_ns(text):
    """ns since the epoch of an RFC 3339 UTC time as CometBFT and Hermes write it (up to 9 fraction digits)."""
    seconds, _, fraction = text.rstrip("Z").partition(".")
    return calendar.timegm(time.strptime(seconds, "%Y-%m-%dT%H:%M:%S")) * 10**9 + int(fraction.ljust(9, "0")[:9])


def block_time_ns(chain):
    """The latest block's time on `chain` (CometBFT's /status)."""
    return rfc3339_ns(chain.comet("status")["sync_info"]["latest_block_time"])


class Relay:
    """Hermes's CLI steps between chaind (A) and simd (B) on one channel pair."""

    def __init__(self, hermes, channel):
        self.hermes, self.channel = hermes, channel

    def transfer(self, source, destination, amount, denom, receiver, *flags):
        """`hermes tx ft-transfer` of one coin; the packet's sequence."""
        sent = self.hermes.run("tx", "ft-transfer", "--src-chain", source, "--dst-chain", destination,
                               "--src-port", "transfer", "--src-channel", self.channel, "--amount", amount,
                               "--denom", denom, "--receiver", receiver, *(flags or FAR))
        (event,) = [e for e in sent if "SendPacket" in e.get("event", {})]
        return event["event"]["SendPacket"]["packet"]

    def recv(self, source, destination):
        """`hermes tx packet-recv`: source's packets received on destination, or timed out back on source."""
        return self.hermes.run("tx", "packet-recv", "--src-chain", source, "--dst-chain", destination,
                               "--src-port", "transfer", "--src-channel", self.channel)

    def ack(self, source, destination):
        """`hermes tx packet-ack`: destination's acknowledgements of source's packets relayed back to source."""
        return self.hermes.run("tx", "packet-ack", "--src-chain", destination, "--dst-chain", source,
                               "--src-port", "transfer", "--src-channel", self.channel)

    def both_ways(self, source, destination):
        self.recv(source, destination)
        self.ack(source, destination)


def test_hermes_relays_ics20_between_chaind_and_ibc_go_simd(tmp_path, hermes_binary, simd_binary):
    started = time.monotonic()
    timings = {}

    def mark(step):
        timings[step] = time.monotonic() - started
    chaind, simd = chaind_and_simd(tmp_path, simd_binary, 0.3)
    hermes_process = None
    try:
        start_both(chaind, simd)
        mark("nodes started")
        # Hermes signs on chaind with Evmos-style eth_secp256k1 keys (the relayer dev0, the sender dev1) and on
        # simd with the SDK's secp256k1 key that simd's genesis funds, at a gas price of 0: simd's balances
        # then move by the transfers alone.
        hermes = Hermes(hermes_binary, tmp_path / "hermes", [
            HermesChain(CHAIND_CHAIN_ID, chaind.url("cometbft"), chaind.url("grpc"), "chain", "20000000000achain",
                        ETHERMINT, "m/44'/60'/0'/0/0"),
            HermesChain(SIMD_CHAIN_ID, simd.url(), simd.grpc_url(), "cosmos", "0stake"),
        ], MNEMONIC)
        sender = hermes.add_key(CHAIND_CHAIN_ID, "sender", "m/44'/60'/0'/0/1")
        assert sender == chaind.address("dev1")
        simd_relayer = simd.address("relayer")
        mark("hermes keys")

        opened = hermes.run("create", "channel", "--a-chain", CHAIND_CHAIN_ID, "--b-chain", SIMD_CHAIN_ID,
                            "--a-port", "transfer", "--b-port", "transfer", "--new-client-connection", "--yes")
        assert ends(opened) == [("07-tendermint-0", "connection-0", "channel-0")] * 2, opened
        mark("clients, connection, channel from chaind")
        relay = Relay(hermes, "channel-0")

        # chaind's achain to simd: escrowed on chaind, a voucher on simd with its trace in simd's own query.
        achain_on_simd = ibc_denom(parse_trace("transfer/channel-0/achain"))
        relay.transfer(CHAIND_CHAIN_ID, SIMD_CHAIN_ID, 3 * ONE, "achain", simd_relayer, "--key-name", "sender", *FAR)
        assert escrowed(chaind) == 3 * ONE
        relay.both_ways(CHAIND_CHAIN_ID, SIMD_CHAIN_ID)
        assert simd.balance(simd_relayer, achain_on_simd) == 3 * ONE
        trace = simd.query("ibc-transfer", "denom-trace", achain_on_simd.removeprefix("ibc/"))
        assert trace["denom_trace"] == {"path": "transfer/channel-0", "base_denom": "achain"}
        mark("chaind to simd")

        # simd's stake to chaind: escrowed on simd, a voucher on chaind with its trace in our gRPC query.
        stake_on_chaind = ibc_denom(parse_trace("transfer/channel-0/stake"))
        stake_before = simd.balance(simd_relayer, "stake")
        relay.transfer(SIMD_CHAIN_ID, CHAIND_CHAIN_ID, 5000, "stake", sender)
        assert simd.balance(simd_relayer, "stake") == stake_before - 5000
        relay.both_ways(SIMD_CHAIN_ID, CHAIND_CHAIN_ID)
        assert balance(chaind, sender, stake_on_chaind) == 5000
        assert chaind_trace(chaind, stake_on_chaind) == {"path": "transfer/channel-0", "base_denom": "stake"}
        mark("simd to chaind")

        # Both vouchers home: chaind burns the stake voucher and simd releases; simd burns the achain voucher
        # and chaind releases.
        relay.transfer(CHAIND_CHAIN_ID, SIMD_CHAIN_ID, 2000, stake_on_chaind, simd_relayer, "--key-name", "sender",
                       *FAR)
        achain_before = balance(chaind, sender, "achain")     # its transfer's fee paid; the relayer pays the rest
        relay.transfer(SIMD_CHAIN_ID, CHAIND_CHAIN_ID, ONE, achain_on_simd, sender)
        relay.both_ways(CHAIND_CHAIN_ID, SIMD_CHAIN_ID)
        relay.both_ways(SIMD_CHAIN_ID, CHAIND_CHAIN_ID)
        assert balance(chaind, sender, stake_on_chaind) == 3000
        assert simd.balance(simd_relayer, "stake") == stake_before - 3000
        assert simd.balance(simd_relayer, achain_on_simd) == 2 * ONE
        assert balance(chaind, sender, "achain") == achain_before + ONE
        assert escrowed(chaind) == 2 * ONE
        mark("both vouchers home")

        # Four packets: one each way that times out (each side proves the other never received it: simd verifies
        # chaind's absence proof, chaind simd's), and one each way to a module account, which the receiver refuses
        # with an error acknowledgement; all four refunded.
        soon = ("--timeout-seconds", 2)
        late = [relay.transfer(CHAIND_CHAIN_ID, SIMD_CHAIN_ID, ONE, "achain", simd_relayer, "--key-name", "sender",
                               *soon),
                relay.transfer(SIMD_CHAIN_ID, CHAIND_CHAIN_ID, 700, "stake", sender, *soon)]
        relay.transfer(CHAIND_CHAIN_ID, SIMD_CHAIN_ID, ONE, "achain", to_bech32("cosmos", DISTRIBUTION),
                       "--key-name", "sender", *FAR)
        relay.transfer(SIMD_CHAIN_ID, CHAIND_CHAIN_ID, 900, "stake", to_bech32("chain", DISTRIBUTION))
        sent_by = {"sender": balance(chaind, sender, "achain"), "relayer": simd.balance(simd_relayer, "stake")}
        assert escrowed(chaind) == 4 * ONE
        deadline = max(rfc3339_ns(packet["timeout_timestamp"]["time"]) for packet in late)
        for chain in (simd, chaind):
            wait_until(lambda chain=chain: block_time_ns(chain) > deadline, "a block past the timeouts", 30,
                       every=0.2)
        relay.both_ways(CHAIND_CHAIN_ID, SIMD_CHAIN_ID)
        relay.both_ways(SIMD_CHAIN_ID, CHAIND_CHAIN_ID)
        assert balance(chaind, sender, "achain") == sent_by["sender"] + 2 * ONE
        assert simd.balance(simd_relayer, "stake") == sent_by["relayer"] + 1600
        assert escrowed(chaind) == 2 * ONE
        assert balance(chaind, to_bech32("chain", DISTRIBUTION), stake_on_chaind) == 0
        assert simd.balance(to_bech32("cosmos", DISTRIBUTION), achain_on_simd) == 0
        mark("timeouts and error acks both ways")

        # The handshakes the other way round, simd first (simd's ConnOpenInit and ChanOpenInit, chaind's Try):
        # connection-1 and channel-1 on both. Then `hermes start` relays by itself, driven by the chains'
        # /websocket events: stake over it to chaind and home again.
        opened = hermes.run("create", "channel", "--a-chain", SIMD_CHAIN_ID, "--b-chain", CHAIND_CHAIN_ID,
                            "--a-port", "transfer", "--b-port", "transfer", "--new-client-connection", "--yes")
        assert ends(opened) == [("07-tendermint-1", "connection-1", "channel-1")] * 2, opened
        mark("clients, connection, channel from simd")
        hermes_log = tmp_path / "hermes.log"
        hermes_process = subprocess.Popen(hermes.command("start"), stdout=hermes_log.open("w"),
                                          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=hermes.env)
        # Packets are relayed from the chains' events alone (no clearing): one sent before Hermes has subscribed
        # would never be (a slow start missed the transfer below once).
        wait_until(lambda: "Hermes has started" in hermes_log.read_text(), "hermes start to subscribe", 60, every=0.3)
        stake_via_1 = ibc_denom(parse_trace("transfer/channel-1/stake"))
        stake_before = simd.balance(simd_relayer, "stake")
        over_1 = Relay(hermes, "channel-1")
        over_1.transfer(SIMD_CHAIN_ID, CHAIND_CHAIN_ID, 400, "stake", sender)
        wait_until(lambda: balance(chaind, sender, stake_via_1) == 400, "hermes start to relay stake to chaind", 60,
                   every=0.3)
        assert chaind_trace(chaind, stake_via_1) == {"path": "transfer/channel-1", "base_denom": "stake"}
        over_1.transfer(CHAIND_CHAIN_ID, SIMD_CHAIN_ID, 300, stake_via_1, simd_relayer, "--key-name", "sender", *FAR)
        wait_until(lambda: simd.balance(simd_relayer, "stake") == stake_before - 100,
                   "hermes start to relay the voucher home", 60, every=0.3)
        assert balance(chaind, sender, stake_via_1) == 100
        mark("hermes start relays over channel-1")
    finally:
        if hermes_process is not None:
            hermes_process.terminate()
            hermes_process.wait(30)
        chaind.stop()
        simd.stop()
    log = "".join(chaind.process.output)
    assert "Traceback" not in log, log[-3000:]
    print("".join(f"\n{seconds:6.1f} s  {step}" for step, seconds in timings.items()))
