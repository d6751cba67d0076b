"""Issue 37's IBC part: chaind against the real ibc-go. A chaind dev chain and ibc-go v8.5's own test chain `simd`
(one validator) as processes, @confio/relayer's Link between them: clients, a connection and a transfer channel,
then ICS-20 both ways, each voucher checked by the other chain's own query CLI, and each voucher sent home."""

import hashlib
import json
import os
import subprocess
import time

import pytest

from chaind.chain.modules.transfer import ibc_denom, parse_trace
from chaind.crypto.addresses import to_bech32
from cosmjs_driver import RELAYER_DIR
from dev_chain_nodes import balance, escrowed, send
from simd_chain import MNEMONIC, SIMD_CHAIN_ID, chaind_and_simd, start_both

pytestmark = [pytest.mark.external, pytest.mark.slow]

CHAIND_CHAIN_ID = "chain_9000-1"   # dev chain 1
ONE = 10**18
DISTRIBUTION = hashlib.sha256(b"distribution").digest()[:20]   # a module account: both chains refuse to pay it


def relay(node, modules, chaind, simd, op="relay", simd_first=False, connection="connection-0"):
    """One step of tests/relayer_client/link.js between chaind and simd (chaind as A unless `simd_first`) over
    `connection` (the same id on both); its answer, with the relayer's log."""
    ends = [(chaind.url("cometbft"), "chain", "20000000000achain"), (simd.url(), "cosmos", "0.01stake")]
    (a, prefix, price), (b, prefix_b, price_b) = ends[::-1] if simd_first else ends
    job = {"a": a, "b": b, "mnemonic": MNEMONIC, "prefix": prefix, "gasPrice": price, "prefixB": prefix_b,
           "gasPriceB": price_b, "op": op, "connA": connection, "connB": connection}
    done = subprocess.run([node, str(RELAYER_DIR / "link.js")], input=json.dumps(job), capture_output=True,
                          text=True, timeout=300, env={**os.environ, "NODE_PATH": str(modules)})
    assert done.returncode == 0, done.stderr[-6000:]
    return json.loads(done.stdout), done.stderr


def test_ics20_between_chaind_and_ibc_go_simd(tmp_path, relayer, simd_binary):
    started = time.monotonic()
    node, modules = relayer
    timings = {}

    def mark(step):
        timings[step] = time.monotonic() - started
    chaind, simd = chaind_and_simd(tmp_path, simd_binary, 0.5)
    try:
        start_both(chaind, simd)
        mark("nodes started")
        opened, log = relay(node, modules, chaind, simd, "open")
        assert opened == {"connA": "connection-0", "connB": "connection-0", "channelA": "channel-0",
                          "channelB": "channel-0"}, log
        mark("clients, connection, channel")

        # chaind's achain to simd: escrowed on chaind, a voucher on simd that simd's own CLI shows.
        achain_on_simd = ibc_denom(parse_trace("transfer/channel-0/achain"))
        user = simd.address("user")
        send(chaind, "dev0", user, f"{3 * ONE}achain")
        assert escrowed(chaind) == 3 * ONE
        done, log = relay(node, modules, chaind, simd)
        assert done["packetsFromA"] == 1 and done["acksFromB"] == 1, log
        assert simd.balance(user, achain_on_simd) == 3 * ONE
        trace = simd.query("ibc-transfer", "denom-trace", achain_on_simd.removeprefix("ibc/"))
        assert trace["denom_trace"] == {"path": "transfer/channel-0", "base_denom": "achain"}
        mark("chaind to simd")

        # simd's stake to chaind: escrowed on simd, a voucher on chaind.
        stake_on_chaind = ibc_denom(parse_trace("transfer/channel-0/stake"))
        dev1 = chaind.address("dev1")
        simd.tx("ibc-transfer", "transfer", "transfer", "channel-0", dev1, "5000stake", "--from", "user")
        done, log = relay(node, modules, chaind, simd)
        assert done["packetsFromB"] == 1 and done["acksFromA"] == 1, log
        assert balance(chaind, dev1, stake_on_chaind) == 5000
        mark("simd to chaind")

        # Both vouchers home: chaind burns the stake voucher and simd releases; simd burns the achain voucher
        # and chaind releases.
        dev2 = chaind.address("dev2")
        stake_before = simd.balance(user, "stake")
        send(chaind, "dev1", user, f"2000{stake_on_chaind}")
        simd.tx("ibc-transfer", "transfer", "transfer", "channel-0", dev2, f"{ONE}{achain_on_simd}", "--from", "user")
        achain_before = balance(chaind, dev2, "achain")
        done, log = relay(node, modules, chaind, simd)
        assert (done["packetsFromA"], done["packetsFromB"]) == (1, 1), log
        assert balance(chaind, dev1, stake_on_chaind) == 3000
        assert simd.balance(user, "stake") == stake_before + 2000
        assert simd.balance(user, achain_on_simd) == 2 * ONE
        assert balance(chaind, dev2, "achain") == achain_before + ONE
        assert escrowed(chaind) == 2 * ONE
        mark("both vouchers home")

        # One pass over four packets: one each way that times out (each side proves the other never received it:
        # simd verifies chaind's absence proof, chaind simd's), and one each way to a module account, which the
        # receiver refuses with an error acknowledgement; all four refunded.
        deadline = time.time_ns() + 3 * 10**9
        absolute = ("--absolute-timeouts", "--packet-timeout-height", "0-0", "--packet-timeout-timestamp", deadline)
        send(chaind, "dev3", user, f"{ONE}achain", *map(str, absolute))
        simd.tx("ibc-transfer", "transfer", "transfer", "channel-0", dev2, "700stake", "--from", "user", *absolute)
        send(chaind, "dev4", to_bech32("cosmos", DISTRIBUTION), f"{ONE}achain")
        simd.tx("ibc-transfer", "transfer", "transfer", "channel-0", to_bech32("chain", DISTRIBUTION), "900stake",
                "--from", "user")
        dev3, dev4 = chaind.address("dev3"), chaind.address("dev4")
        sent_by = {"dev3": balance(chaind, dev3, "achain"), "dev4": balance(chaind, dev4, "achain"),
                   "user": simd.balance(user, "stake")}
        assert escrowed(chaind) == 4 * ONE
        time.sleep(max(0.0, (deadline - time.time_ns()) / 1e9) + 1.5)
        done, log = relay(node, modules, chaind, simd)
        assert f"Timeout 1 packets sent from {CHAIND_CHAIN_ID}" in log, log
        assert f"Timeout 1 packets sent from {SIMD_CHAIN_ID}" in log, log
        assert (done["packetsFromA"], done["packetsFromB"], done["acksFromA"], done["acksFromB"]) == (2, 2, 1, 1), log
        assert balance(chaind, dev3, "achain") == sent_by["dev3"] + ONE
        assert balance(chaind, dev4, "achain") == sent_by["dev4"] + ONE
        assert simd.balance(user, "stake") == sent_by["user"] + 1600
        assert escrowed(chaind) == 2 * ONE
        assert balance(chaind, to_bech32("chain", DISTRIBUTION), stake_on_chaind) == 0
        mark("timeouts and error acks both ways")

        # The handshakes the other way round, simd first (simd's ConnOpenInit and ChanOpenInit, chaind's Try):
        # connection-1 and channel-1 on both; stake over it to chaind and home again.
        opened, log = relay(node, modules, chaind, simd, "open", simd_first=True)
        assert opened == {"connA": "connection-1", "connB": "connection-1", "channelA": "channel-1",
                          "channelB": "channel-1"}, log
        stake_via_1 = ibc_denom(parse_trace("transfer/channel-1/stake"))
        dev5 = chaind.address("dev5")
        stake_before = simd.balance(user, "stake")
        simd.tx("ibc-transfer", "transfer", "transfer", "channel-1", dev5, "400stake", "--from", "user")
        done, log = relay(node, modules, chaind, simd, simd_first=True, connection="connection-1")
        assert done["packetsFromA"] == 1 and done["acksFromB"] == 1, log
        assert balance(chaind, dev5, stake_via_1) == 400
        chaind.tx("ibc-transfer", "transfer", "transfer", "channel-1", user, f"300{stake_via_1}", "--from", "dev5")
        done, log = relay(node, modules, chaind, simd, simd_first=True, connection="connection-1")
        assert done["packetsFromB"] == 1 and done["acksFromA"] == 1, log
        assert balance(chaind, dev5, stake_via_1) == 100
        assert simd.balance(user, "stake") == stake_before - 100
        mark("opened from simd's side")
    finally:
        chaind.stop()
        simd.stop()
    log = "".join(chaind.process.output)
    assert "Traceback" not in log, log[-3000:]
    print("".join(f"\n{seconds:6.1f} s  {step}" for step, seconds in timings.items()))
