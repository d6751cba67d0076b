"""Bar of issue 22: FinalizeBlock + Commit of a 1,000-transfer block over the ABCI socket, against the
same block through the solo producer's path (App.finalize_block + App.commit on its writer): at most 1.2x.

The socket side is a real node (`twistd chaind`, [abci] mode = "socket") driven by tests/abci_driver.py
as CometBFT drives it: every tx goes through CheckTx first (untimed, as the mempool does before a
block), then the timed FinalizeBlock and Commit round trips. The solo side runs in this process on its
own LevelDB with the txs check_tx returned (untimed), as the producer hands them to its writer. Both
execute the same blocks (same txs, time, proposer, hash) and must reach the same app hashes.

    python bench/abci_finalize.py [--txs 1000] [--blocks 6]
"""

import argparse
import pathlib
import statistics
import sys
import tempfile
import time

from cryptography.hazmat.primitives.asymmetric import ed25519
from eth_account import Account
from eth_utils import to_checksum_address

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from abci_driver import Driver, Replica  # noqa: E402
from chaind.chain import txs, valset  # noqa: E402
from chaind.chain.app import App  # noqa: E402
from chaind.chain.genesis import Genesis  # noqa: E402
from chaind.chain.options import AppOptions  # noqa: E402
from chaind.config import Settings  # noqa: E402
from chaind.home import Home  # noqa: E402
from chaind.malloc import limit_arenas  # noqa: E402
from chaind.pb.tendermint.abci import types_pb2 as pb  # noqa: E402
from chaind.store.db import Database  # noqa: E402
from devnode import DevNode, free_port  # noqa: E402

PROPOSER = b"\x05" * 20


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--txs", type=int, default=1000, help="transfers per block")
    parser.add_argument("--blocks", type=int, default=6, help="blocks timed (the median is reported)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chaind-abci-bench-") as tmp:
        tmp = pathlib.Path(tmp)
        home = Home(tmp / "home").init("bench", dev=True)
        genesis = Genesis.load(home.genesis_file)
        # Each block spreads its transfers over the dev senders; their nonces follow on across blocks.
        keys = home.dev_keys()
        per_sender = -(-args.txs // len(keys))
        blocks = []
        for b in range(args.blocks):
            raws = []
            for i in range(args.txs):
                key = keys[i % len(keys)]
                tx = {"chainId": genesis.evm_chain_id, "gas": 21000, "maxFeePerGas": 10**10,
                      "maxPriorityFeePerGas": 1, "nonce": b * per_sender + i // len(keys),
                      "to": to_checksum_address(bytes([0x40 + i % 50]) * 20), "value": 1 + i}
                signed = Account.sign_transaction(tx, key.private_key)
                raws.append(txs.wrap_evm(bytes(signed.raw_transaction), genesis.evm_chain_id, genesis.base_denom).raw)
            blocks.append(raws)

        # The solo side as a node runs it: LevelDB's cache and glibc's arenas as the node sets them.
        limit_arenas()
        solo_db = Database(tmp / "solo.db", Settings().storage.leveldb_cache_mb * 2**20)
        # The home's validator signs the solo commits, as a node's does; the driver's commits say the same.
        solo = App(solo_db, genesis, AppOptions(
            vote_key=ed25519.Ed25519PrivateKey.from_private_bytes(home.validator_key()),
            validator_address=valset.address_of(genesis.validators[0].consensus_pubkey)))
        solo_times, socket_times, commit_times = [], [], []
        abci_port = free_port()
        # The two paths run back to back, block by block, so that load from elsewhere on the box
        # falls on both alike.
        with DevNode(config=f'\n[abci]\nmode = "socket"\naddress = "127.0.0.1:{abci_port}"\n', home=home):
            replica = Replica(abci_port)
            driver = Driver(genesis.document)
            driver.signers = {solo.options.validator_address}
            driver.handshake(replica)
            for raws in blocks:
                checked = [solo.check_tx(raw) for raw in raws]
                for raw in raws:
                    answer = driver.check(replica, raw)
                    assert answer.code == 0, answer.log
                # The solo block goes first: its header's hash is the one the socket side is given.
                time_ns = genesis.genesis_time_ns + (solo.height + 1) * 10**9
                began = time.perf_counter()
                block, puts = solo.finalize_block(checked, time_ns, PROPOSER)
                solo.commit(block, puts)
                solo_times.append(time.perf_counter() - began)
                assert all(r.code == 0 for r in block.results), [r.log for r in block.results if r.code][:3]
                decided = driver.decide(raws, block.header.time_ns, block_hash=block.hash, proposer=PROPOSER)
                began = time.perf_counter()
                response = driver.finalize(replica, decided)
                finalized = time.perf_counter()
                replica.consensus.call("commit", pb.RequestCommit())
                socket_times.append(time.perf_counter() - began)
                commit_times.append(time.perf_counter() - finalized)
                driver.store(decided, response.app_hash, response.tx_results)
                assert response.app_hash == block.meta.app_hash, "socket and solo app hashes differ"
            replica.close()
        solo_db.close()
    # Each block's pair ran back to back: the median of their ratios is the least disturbed by load
    # elsewhere on the box; the fastest run of each side is printed as well.
    ratios = sorted(b / a for a, b in zip(solo_times, socket_times, strict=True))
    ratio = statistics.median(ratios)
    print(f"FinalizeBlock + Commit of a {args.txs}-transfer block, {args.blocks} blocks (same txs, same app hashes):")
    for name, times in (("solo producer path (in process)", solo_times),
                        ("ABCI socket (chaind process)   ", socket_times)):
        print(f"  {name}: median {statistics.median(times) * 1000:7.1f} ms, fastest {min(times) * 1000:7.1f} ms   "
              f"({', '.join(f'{t * 1000:.0f}' for t in times)})")
    print(f"  socket / solo, block by block: median {ratio:.2f}x (each: {', '.join(f'{r:.2f}' for r in ratios)}); "
          f"fastest / fastest {min(socket_times) / min(solo_times):.2f}x")
    print(f"  of which the Commit round trip: median {statistics.median(commit_times) * 1000:.1f} ms")
    print(f"  bar: at most 1.20x (median of the ratios): {'PASS' if ratio <= 1.2 else 'FAIL'}")

if __name__ == "__main__":
    main()
