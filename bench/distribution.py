"""Cost of x/distribution: block time on a chain of 100 validators and 10,000 delegations with the module and
without it, and one tx withdrawing the rewards of 50 delegations.

Each chain is an App on a temp LevelDB driven block by block in this process (no node, no network): blocks of
fee-paying native sends, so every block hands out fees to all 100 validators. Usage:
    python bench/distribution.py [--blocks 20] [--txs 20] [--withdrawals 5] [--json]
"""

import argparse
import base64
import dataclasses
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))      # native_txs
from chaind import collector  # noqa: E402
from chaind.chain import registry  # noqa: E402
from chaind.chain.app import App  # noqa: E402
from chaind.chain.genesis import Genesis  # noqa: E402
from chaind.config import NodeSettings  # noqa: E402
from chaind.crypto import keys  # noqa: E402
from chaind.crypto.addresses import to_bech32  # noqa: E402
from chaind.home import Home  # noqa: E402
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx  # noqa: E402
from chaind.pb.cosmos.base.v1beta1 import coin_pb2  # noqa: E402
from chaind.pb.cosmos.distribution.v1beta1 import tx_pb2 as distr_tx  # noqa: E402
from chaind.pb.cosmos.staking.v1beta1 import tx_pb2 as staking_tx  # noqa: E402
from chaind.store.db import Database  # noqa: E402
from native_txs import build_native  # noqa: E402
from results import Result, run_script  # noqa: E402

CHAIN = 10**18
VALIDATORS = 100
DELEGATORS = 100          # each delegates to every validator: 10,000 delegations
MNEMONIC = "test test test test test test test test test test test junk"


def _genesis(tmp, delegator_keys):
    home = Home(tmp / "home")
    home.init("bench", dev=True)
    genesis = Genesis.load(home.genesis_file)
    doc = genesis.document
    app = doc["app_state"]
    prefix = app["auth"]["bech32_prefix"]
    for i in range(1, VALIDATORS):
        pubkey = ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        app["staking"]["validators"].append({
            "operator": to_bech32(prefix, (0x5000 + i).to_bytes(20, "big")),
            "consensus_pubkey": base64.b64encode(pubkey).decode(), "tokens": str(1000 * CHAIN),
            "moniker": f"v{i}"})
    # Only signatures keep a validator bonded (x/slashing), and this chain has none: nobody is jailed for it.
    app["slashing"]["params"]["min_signed_per_window"] = "0"
    for key in delegator_keys:
        app["bank"]["balances"].append({"address": to_bech32(prefix, key.address),
                                        "coins": [{"denom": "achain", "amount": str(10**26)}]})
    return Genesis.from_document(doc)


@dataclasses.dataclass
class Seconds:
    """A block's wall time and the CPU time of the thread that made it (the figure least moved by other
    processes on a shared box; fsync waits are in the wall time only)."""

    wall: float
    cpu: float


class Driver:
    def __init__(self, path, genesis, modules):
        self.db = Database(path)
        self.genesis = genesis
        self.app = App(self.db, genesis, modules=modules)

    def native(self, key, messages, gas):
        view = self.app.view()
        number, _ = self.app.keepers["auth"].account(view, key.address)
        return build_native(messages, key, self.genesis.chain_id, number, view.accounts.get_nonce(key.address),
                            [("achain", self.app.next_base_fee() * gas)], gas)

    def block(self, raws):
        height = self.app.height + 1
        started, cpu = time.perf_counter(), time.thread_time()
        committed, puts = self.app.finalize_block(raws, self.genesis.genesis_time_ns + height * 10**9, b"\x01" * 20)
        self.app.commit(committed, puts)
        elapsed = Seconds(time.perf_counter() - started, time.thread_time() - cpu)
        failed = [r.log for r in committed.results if r.code]
        assert not failed, failed[:3]
        return elapsed, committed


def _valopers(genesis):
    prefix = genesis.bech32_prefix + "valoper"
    return [to_bech32(prefix, v.operator) for v in genesis.validators]


def setup_chain(tmp, name, genesis, delegator_keys, modules):
    """A driver whose chain holds 10,000 delegations (100 delegators to each of the 100 validators)."""
    driver = Driver(tmp / name, genesis, modules)
    driver.block([])
    prefix = genesis.bech32_prefix
    valopers = _valopers(genesis)
    started = time.perf_counter()
    for chunk in range(0, DELEGATORS, 10):
        raws = []
        for key in delegator_keys[chunk:chunk + 10]:
            me = to_bech32(prefix, key.address)
            msgs = [("/cosmos.staking.v1beta1.MsgDelegate", staking_tx.MsgDelegate(
                delegator_address=me, validator_address=v, amount=coin_pb2.Coin(denom="achain", amount=str(CHAIN))))
                for v in valopers]
            raws.append(driver.native(key, msgs, 3_000_000))
        driver.block(raws)
    print(f"  {name}: 10,000 delegations in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return driver


def send_block(driver, delegator_keys, b, per_block):
    """Seconds of block `b` of the workload: `per_block` fee-paying native sends."""
    prefix = driver.genesis.bech32_prefix
    raws = []
    for i in range(per_block):
        key = delegator_keys[(b * per_block + i) % DELEGATORS]
        send = bank_tx.MsgSend(from_address=to_bech32(prefix, key.address),
                               to_address=to_bech32(prefix, b"\x77" * 20),
                               amount=[coin_pb2.Coin(denom="achain", amount="1")])
        raws.append(driver.native(key, [("/cosmos.bank.v1beta1.MsgSend", send)], 200_000))
    return driver.block(raws)[0]


def withdraw_all(driver, key, count):
    """Seconds of a block holding one tx that withdraws `count` delegations' rewards, and of an empty block."""
    prefix = driver.genesis.bech32_prefix
    me = to_bech32(prefix, key.address)
    msgs = [("/cosmos.distribution.v1beta1.MsgWithdrawDelegatorReward", distr_tx.MsgWithdrawDelegatorReward(
        delegator_address=me, validator_address=v)) for v in _valopers(driver.genesis)[:count]]
    raw = driver.native(key, msgs, 3_000_000)
    empty = driver.block([])[0]
    elapsed, committed = driver.block([raw])
    paid = sum(1 for e in committed.results[0].events if e.type == "withdraw_rewards")
    assert paid == count, paid
    return elapsed, empty


def measure(args):
    # The garbage collector as `twistd chaind` sets it (tap.makeService), at the default setting.
    collector.tune(NodeSettings().gc_young_threshold if args.gc_young_threshold is None else args.gc_young_threshold)
    tmp = Path(tempfile.mkdtemp(prefix="bench-distribution-"))
    delegator_keys = [keys.from_mnemonic(MNEMONIC, 10 + i) for i in range(DELEGATORS)]
    genesis = _genesis(tmp, delegator_keys)
    # Inflation goes with distribution: an epoch's mint funds the community pool through distribution's keeper
    # (as Evmos' inflation keeper takes distribution's).
    without = setup_chain(tmp, "without", genesis, delegator_keys,
                          tuple(m for m in registry.MODULES if m.name not in ("distribution", "inflation")))
    driver = setup_chain(tmp, "with", genesis, delegator_keys, registry.MODULES)
    # The two chains' blocks alternate, so a change in the box's load falls on both alike; the overhead is
    # the median of the per-pair ratios.
    pairs = [(send_block(without, delegator_keys, b, args.txs), send_block(driver, delegator_keys, b, args.txs))
             for b in range(args.blocks)]
    base = statistics.median(p[0].wall for p in pairs)
    with_dist = statistics.median(p[1].wall for p in pairs)
    overhead = statistics.median(w.cpu / b.cpu for b, w in pairs) - 1
    wall_overhead = statistics.median(w.wall / b.wall for b, w in pairs) - 1
    # Each of `--withdrawals` delegators withdraws once (the first withdrawal of each: its 50 starting infos are
    # as old as the chain); the median is the figure, the slowest is shown beside it.
    rounds = [withdraw_all(driver, key, 50) for key in delegator_keys[:args.withdrawals]]
    withdraw = Seconds(statistics.median(w.wall for w, _ in rounds), statistics.median(w.cpu for w, _ in rounds))
    empty = Seconds(statistics.median(e.wall for _, e in rounds), statistics.median(e.cpu for _, e in rounds))
    slowest = max(w.wall for w, _ in rounds)
    print(f"block of {args.txs} sends, 100 validators, 10,000 delegations: without distribution "
          f"{base * 1000:.1f} ms, with {with_dist * 1000:.1f} ms; median of {args.blocks} alternating pairs' "
          f"ratios: CPU {overhead:+.1%}, wall {wall_overhead:+.1%} (bar +20%)")
    print(f"withdraw-all of 50 delegations, median of {len(rounds)} delegators: a block holding that one tx "
          f"{withdraw.wall * 1000:.1f} ms ({withdraw.cpu * 1000:.1f} ms CPU; slowest {slowest * 1000:.1f} ms; an "
          f"empty block {empty.wall * 1000:.1f} ms, {empty.cpu * 1000:.1f} ms CPU; bar 50 ms)")
    without.db.close()
    driver.db.close()
    os.system(f"rm -rf {tmp}")
    return [Result("distribution.block_overhead", "block time with distribution vs without", "%",
                   round(overhead * 100, 1), 20.0, higher=False, issue=15),
            Result("distribution.withdraw_all_50", "withdraw-all of 50 delegations (one tx's block)", "ms",
                   round(withdraw.wall * 1000, 1), 50.0, higher=False, issue=15)]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=20, help="measured blocks per chain")
    parser.add_argument("--txs", type=int, default=20, help="fee-paying sends per measured block")
    parser.add_argument("--withdrawals", type=int, default=5, help="delegators who each withdraw all (median)")
    parser.add_argument("--gc-young-threshold", type=int, default=None,
                        help="[node] gc-young-threshold for this run (default: the node's default)")
    run_script(parser, measure)
