"""An authz MsgExec (a grantee sends the granter's coins under a SendAuthorization) against the plain MsgSend
it carries, in check_tx + delivery time, in process (issue 16: at most 1.3x).

Usage: python bench/authz.py [N]   (default 400 txs a block; prints CPU figures, the median of the rounds'
ratios and the 1.3x bar)
"""

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from google.protobuf import any_pb2

from chaind.chain import txs
from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.chain.modules import auth
from chaind.crypto.addresses import to_bech32
from chaind.home import Home
from chaind.pb.cosmos.authz.v1beta1 import authz_pb2
from chaind.pb.cosmos.authz.v1beta1 import tx_pb2 as authz_tx
from chaind.pb.cosmos.bank.v1beta1 import authz_pb2 as bank_authz
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.store.db import Database

BAR = 1.3
GAS = 200000
PROPOSER = b"\x01" * 20


def _any(url, message):
    return any_pb2.Any(type_url=url, value=message.SerializeToString())


def run(n, rounds=9):
    tmp = Path(tempfile.mkdtemp(prefix="bench-authz-"))
    try:
        home = Home(tmp / "home")
        home.init("bench", dev=True)
        genesis = Genesis.load(home.genesis_file)
        db = Database(tmp / "db")
        app = App(db, genesis)
        prefix, base = genesis.bech32_prefix, genesis.base_denom
        granter, grantee = home.dev_keys()[2], home.dev_keys()[3]
        clock = genesis.genesis_time_ns

        def signed(key, messages, nonce_offset=0):
            view = app.view()
            number = auth.account(view, key.address)[0]
            nonce = view.accounts.get_nonce(key.address) + nonce_offset
            return txs.build_native(messages, key, genesis.chain_id, number, nonce,
                                    [(base, app.next_base_fee() * 2 * GAS)], GAS)

        def commit(raws):
            nonlocal clock
            clock += 10**9
            block, puts = app.finalize_block(raws, clock, PROPOSER)
            assert all(r.code == 0 for r in block.results), [r.log for r in block.results]
            app.commit(block, puts)

        commit([])
        limit = bank_authz.SendAuthorization(spend_limit=[coin_pb2.Coin(denom=base, amount=str(10**30))])
        grant = authz_tx.MsgGrant(
            granter=to_bech32(prefix, granter.address), grantee=to_bech32(prefix, grantee.address),
            grant=authz_pb2.Grant(authorization=_any("/cosmos.bank.v1beta1.SendAuthorization", limit)))
        commit([signed(granter, [("/cosmos.authz.v1beta1.MsgGrant", grant)])])
        coin = coin_pb2.Coin(denom=base, amount="1")
        send = bank_tx.MsgSend(from_address=to_bech32(prefix, granter.address),
                               to_address=to_bech32(prefix, b"\x61" * 20), amount=[coin])
        execute = authz_tx.MsgExec(grantee=to_bech32(prefix, grantee.address),
                                   msgs=[_any(txs.MSG_SEND, send)])
        blocks = {"plain": [signed(granter, [(txs.MSG_SEND, send)], i) for i in range(n)],
                  "authz": [signed(grantee, [("/cosmos.authz.v1beta1.MsgExec", execute)], i) for i in range(n)]}
        for raws in blocks.values():
            app.check_tx(raws[0])                     # warm the head view
            block, _ = app.finalize_block(raws, clock + 10**9, PROPOSER)
            assert all(r.code == 0 for r in block.results), [r.log for r in block.results]
        # Rounds alternate the kinds, so a busy neighbour on a shared box slows both alike; nothing is committed,
        # each round executes the same block on the same head. CPU time of this process, per tx.
        samples = {kind: [] for kind in blocks}
        for _ in range(rounds):
            for kind, raws in blocks.items():
                started = time.process_time()
                for raw in raws:
                    app.check_tx(raw)
                checked = time.process_time()
                app.finalize_block(raws, clock + 10**9, PROPOSER)
                samples[kind].append(((checked - started) / n, (time.process_time() - checked) / n))
        db.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for kind, figures in samples.items():
        check, delivery = (statistics.median(f[i] for f in figures) for i in (0, 1))
        print(f"{kind:<6} check_tx {check * 1e6:7.1f} us  delivery {delivery * 1e6:7.1f} us  "
              f"total {(check + delivery) * 1e6:7.1f} us  (CPU, median of {rounds} rounds)")
    ratios = [sum(a) / sum(p) for a, p in zip(samples["authz"], samples["plain"])]
    ratio = statistics.median(ratios)
    print(f"authz MsgExec / plain MsgSend: {ratio:.2f}x, rounds {min(ratios):.2f}-{max(ratios):.2f}x "
          f"(bar {BAR}x): {'ok' if ratio <= BAR else 'OVER'}")


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
