"""check_tx + delivery of a feegranted MsgSend and of an authz MsgExec against the same plain MsgSend
(issue 16: each at most 1.3x the plain tx). In process, on a temp dev chain; nothing is committed per round.

Usage: python bench/feegrant_authz.py [N]   (default 300 txs per kind; prints CPU figures, the median of the
rounds' ratios and the 1.3x bar)
"""

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))      # native_txs

from google.protobuf import any_pb2

from chaind.chain import txs
from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.chain.modules.feegrant import allowances
from chaind.crypto.addresses import to_bech32
from chaind.home import Home
from chaind.pb.cosmos.authz.v1beta1 import authz_pb2
from chaind.pb.cosmos.authz.v1beta1 import tx_pb2 as authz_tx
from chaind.pb.cosmos.bank.v1beta1 import authz_pb2 as bank_authz
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.feegrant.v1beta1 import feegrant_pb2
from chaind.pb.cosmos.feegrant.v1beta1 import tx_pb2 as feegrant_tx
from chaind.store.db import Database
from native_txs import build_native

BAR = 1.3
GAS = 200_000
PROPOSER = b"\x01" * 20


class Bench:
    """A dev chain's App on a temp LevelDB, with helpers to sign txs and commit set-up blocks."""

    def __init__(self, tmp):
        home = Home(tmp / "home")
        home.init("bench", dev=True)
        self.genesis = Genesis.load(home.genesis_file)
        self.db = Database(tmp / "db")
        self.app = App(self.db, self.genesis)
        self.keys = home.dev_keys()
        self.base = self.genesis.base_denom

    def b32(self, address):
        return to_bech32(self.genesis.bech32_prefix, address)

    def coins(self, amount):
        return [coin_pb2.Coin(denom=self.base, amount=str(amount))]

    def send_msg(self, key, to=b"\x61" * 20):
        return txs.MSG_SEND, bank_tx.MsgSend(from_address=self.b32(key.address), to_address=self.b32(to),
                                             amount=self.coins(1))

    def sign(self, key, messages, nonce_offset=0, **options):
        """A DIRECT tx of `messages` by `key` at its state nonce + nonce_offset (build_native's options)."""
        view = self.app.view()
        number, _ = self.app.keepers["auth"].account(view, key.address)
        return build_native(messages, key, self.genesis.chain_id, number,
                            view.accounts.get_nonce(key.address) + nonce_offset,
                            [(self.base, self.app.next_base_fee() * 2 * GAS)], GAS, **options)

    def commit(self, raws):
        height = self.app.height + 1
        block, puts = self.app.finalize_block(raws, self.genesis.genesis_time_ns + height * 10**9, PROPOSER)
        failed = [r.log for r in block.results if r.code]
        if failed:
            raise SystemExit(f"set-up block failed: {failed}")
        self.app.commit(block, puts)


def plain(bench, n):
    """n MsgSends by dev key 2, nonces in a row."""
    key = bench.keys[2]
    return [bench.sign(key, [bench.send_msg(key)], i) for i in range(n)]


def grant_fees(bench):
    """Dev key 2 lets dev key 3 pay fees from its account: a BasicAllowance with a spend limit."""
    granter, grantee = bench.keys[2], bench.keys[3]
    allowance = feegrant_pb2.BasicAllowance(spend_limit=bench.coins(10**24))
    grant = feegrant_tx.MsgGrantAllowance(granter=bench.b32(granter.address), grantee=bench.b32(grantee.address),
                                          allowance=allowances.pack(allowance))
    bench.commit([bench.sign(granter, [("/cosmos.feegrant.v1beta1.MsgGrantAllowance", grant)])])


def feegranted(bench, n):
    """n MsgSends by dev key 3 whose fees dev key 2 pays through its allowance."""
    granter, grantee = bench.keys[2], bench.keys[3]
    return [bench.sign(grantee, [bench.send_msg(grantee)], i, granter=bench.b32(granter.address)) for i in range(n)]


def grant_sends(bench):
    """Dev key 2 lets dev key 4 send its coins: a SendAuthorization whose spend limit each exec decrements."""
    granter, grantee = bench.keys[2], bench.keys[4]
    authorization = bank_authz.SendAuthorization(spend_limit=bench.coins(10**24))
    grant = authz_tx.MsgGrant(granter=bench.b32(granter.address), grantee=bench.b32(grantee.address),
                              grant=authz_pb2.Grant(authorization=any_pb2.Any(
                                  type_url="/cosmos.bank.v1beta1.SendAuthorization",
                                  value=authorization.SerializeToString())))
    bench.commit([bench.sign(granter, [("/cosmos.authz.v1beta1.MsgGrant", grant)])])


def executed(bench, n):
    """n MsgExecs by dev key 4, each running the plain kind's MsgSend of dev key 2 under its grant."""
    grantee = bench.keys[4]
    url, send = bench.send_msg(bench.keys[2])
    execute = authz_tx.MsgExec(grantee=bench.b32(grantee.address),
                               msgs=[any_pb2.Any(type_url=url, value=send.SerializeToString())])
    return [bench.sign(grantee, [("/cosmos.authz.v1beta1.MsgExec", execute)], i) for i in range(n)]


# Each kind: name -> (set_up(bench) committing what its txs need, or None; txs(bench, n) returning n signed txs).
# Every set-up runs before any tx is signed (set-up blocks move sequences). Every kind is timed against "plain".
KINDS = {
    "plain": (None, plain),
    "feegrant": (grant_fees, feegranted),
    "authz": (grant_sends, executed),
}


def measure(bench, raws):
    """(check_tx seconds per tx, delivery seconds per tx) of `raws` on the head, in this process's CPU time (wall
    time swung 0.9-1.4x between runs at load 5-9); nothing is committed."""
    started = time.process_time()
    for raw in raws:
        bench.app.check_tx(raw)
    checked = time.process_time() - started
    height = bench.app.height + 1
    started = time.process_time()
    block, _ = bench.app.finalize_block(raws, bench.genesis.genesis_time_ns + height * 10**9, PROPOSER)
    delivered = time.process_time() - started
    failed = [r.log for r in block.results if r.code]
    if failed:
        raise SystemExit(f"a timed tx failed: {failed[0]}")
    return checked / len(raws), delivered / len(raws)


def run(n, rounds=9):
    tmp = Path(tempfile.mkdtemp(prefix="bench-feegrant-authz-"))
    try:
        bench = Bench(tmp)
        for set_up, _ in KINDS.values():
            if set_up is not None:
                set_up(bench)
        workloads = {name: txs(bench, n) for name, (_, txs) in KINDS.items()}
        samples = {name: [] for name in KINDS}
        for raws in workloads.values():
            measure(bench, raws[:5])               # warm the head view and caches
        # Rounds alternate the kinds, so a busy neighbour on a shared box slows all alike; each kind's figure is
        # the median of its rounds' ratios to the plain tx of the same round.
        for _ in range(rounds):
            for name, raws in workloads.items():
                samples[name].append(measure(bench, raws))
        bench.db.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for name, rows in samples.items():
        check, deliver = (statistics.median(row[i] for row in rows) for i in (0, 1))
        print(f"{name:<9} check_tx {check * 1e6:8.1f} us  delivery {deliver * 1e6:8.1f} us  "
              f"total {(check + deliver) * 1e6:8.1f} us  (CPU, median of {rounds} rounds)")
    for name in KINDS:
        if name != "plain":
            ratios = [sum(a) / sum(p) for a, p in zip(samples[name], samples["plain"], strict=True)]
            ratio = statistics.median(ratios)
            print(f"{name} / plain: {ratio:.2f}x, rounds {min(ratios):.2f}-{max(ratios):.2f}x (bar {BAR}x): "
                  f"{'ok' if ratio <= BAR else 'OVER'}")

if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
