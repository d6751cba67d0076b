"""Issue 30's bar: a block of 100 IBC MsgRecvPacket, each with its proof of the sender's packet commitment,
delivered (FinalizeBlock: the txs, the IAVL writes and the app hash) in at most 300 ms of CPU time, as
ibc_update_client.py measures its bar (FinalizeBlock is single-threaded: on a quiet box its wall time is its CPU time;
on the shared box other processes' load inflates the wall time, which is printed too). In process: two temp dev
chains with clients of each other, connection-0 and an UNORDERED channel on the tests' mock port
(tests/ibc_channel_msgs.py); A sends the packets, B receives them. Each run delivers the same block again (not
committed), the first two runs left out of the median (warm-up; the first is printed), then the block is committed
once and every packet checked received.

--txs 1 (the default) is one relayer tx carrying the 100 messages, as relayers batch them; --txs 100 gives each
message a tx of its own (100 signatures and ante runs on top).

Usage: python bench/ibc_recv_packets.py [--packets 100] [--txs 1] [--runs 10] [--json]
"""

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import ibc_chains as ic  # noqa: E402
import ibc_client_msgs as m  # noqa: E402
from chain_driver import PROPOSER  # noqa: E402
from chaind.chain.modules.ibc_client.host import revision_of  # noqa: E402
from ibc_channel_msgs import (  # noqa: E402
    B_CLIENT,
    PORT,
    SEND,
    connected_pair,
    open_channel,
    packet,
    packet_path,
    recv_packet,
    send,
)
from native_txs import build_native  # noqa: E402
from results import Result, run_script  # noqa: E402

BAR_MS = 300
GAS_PER_PACKET = 150_000


def sent_packets(pair, count):
    """A sends `count` packets in one block; [(packet, proof)] of their commitments and the proof height, B's
    client of A updated to it."""
    a, b = pair.a, pair.b
    a.app.handlers[SEND] = pair.apps[a].send_handler(a.app.keepers["ibc_channel"], a.relayer)
    timeout = (revision_of(b.chain_id), 10**9)
    pair.clock += ic.S
    b.block(pair.clock)
    result = a.block(pair.clock, [send(data=b"packet %d" % i, timeout_height=timeout) for i in range(count)],
                     gas=GAS_PER_PACKET * count)
    if result.code:
        raise SystemExit(f"sending the packets failed: {result.log}")
    height = a.height
    proven = []
    for i in range(count):
        _, proof = a.proof(packet_path("commitments", i + 1), height)
        proven.append((packet(i + 1, data=b"packet %d" % i, timeout_height=timeout), proof))
    pair.block(a)
    ic.update_client(pair, b, B_CLIENT, a, height + 1)
    return proven, m.height(height + 1, revision_of(a.chain_id))


def recv_txs(b, proven, proof_height, txs):
    """The block's raw txs: the MsgRecvPackets split over `txs` txs of the relayer's, in sequence order."""
    key = b.chain.keys[ic.RELAYER]
    view = b.app.view()
    number, _ = b.app.keepers["auth"].account(view, key.address)
    nonce = view.accounts.get_nonce(key.address)
    per_tx = -(-len(proven) // txs)
    raws = []
    for i in range(txs):
        messages = [recv_packet(b, found, proof, proof_height) for found, proof in proven[i * per_tx:(i + 1) * per_tx]]
        gas = GAS_PER_PACKET * len(messages)
        raws.append(build_native(messages, key, b.chain_id, number, nonce + i,
                                 [(b.genesis.base_denom, b.app.next_base_fee() * gas)], gas))
    return raws


def deliver(b, raws, time_ns):
    """(block, puts, CPU ms, wall ms) of FinalizeBlock on `raws`, not committed."""
    cpu, wall = time.process_time(), time.perf_counter()
    block, puts = b.app.finalize_block(raws, time_ns, PROPOSER)
    return block, puts, (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000


def measure(args):
    tmp = Path(tempfile.mkdtemp(prefix="bench-ibc-recv-"))
    pair = None
    try:
        pair = connected_pair(tmp)
        open_channel(pair)
        b = pair.b
        proven, proof_height = sent_packets(pair, args.packets)
        raws = recv_txs(b, proven, proof_height, args.txs)
        pair.clock += ic.S
        cpus, walls, empties = [], [], []
        for run in range(args.runs + 2):
            block, puts, cpu, wall = deliver(b, raws, pair.clock)
            failed = [r.log for r in block.results if r.code]
            if failed:
                raise SystemExit(f"the block failed: {failed[0]}")
            if run == 0:
                cold = wall
            _, _, empty, _ = deliver(b, [], pair.clock)
            if run >= 2:            # the first runs warm the head view and caches
                cpus.append(cpu)
                walls.append(wall)
                empties.append(empty)
        block, puts, _, _ = deliver(b, raws, pair.clock)         # the packets' block last, then committed
        started = time.perf_counter()
        b.app.commit(block, puts)
        commit = (time.perf_counter() - started) * 1000
        keeper, view = b.app.keepers["ibc_channel"], b.app.view()
        received = sum(keeper.has_packet_receipt(view, PORT, "channel-0", found.sequence) for found, _ in proven)
        if received != args.packets:
            raise SystemExit(f"only {received} of {args.packets} packets were received")
    finally:
        if pair is not None:
            pair.close()
        shutil.rmtree(tmp, ignore_errors=True)
    cpu, wall, empty = (statistics.median(x) for x in (cpus, walls, empties))
    shape = "one tx" if args.txs == 1 else f"{args.txs} txs"
    print(f"{args.packets} MsgRecvPacket with proofs in {shape} (median of {args.runs}): FinalizeBlock {cpu:.1f} ms "
          f"CPU, {wall:.1f} ms wall (the first delivery {cold:.1f} ms; an empty block {empty:.1f} ms CPU); "
          f"commit {commit:.1f} ms; CPU {cpu / BAR_MS:.2f} of the {BAR_MS} ms bar: {'ok' if cpu <= BAR_MS else 'OVER'}")
    return [Result(f"ibc.recv_packets_{args.packets}_in_{args.txs}_tx", f"a block of {args.packets} MsgRecvPacket "
                   f"with proofs ({shape}), FinalizeBlock CPU", "ms", round(cpu, 1), target=BAR_MS, higher=False,
                   issue=30)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packets", type=int, default=100)
    parser.add_argument("--txs", type=int, default=1, help="how many txs carry the messages")
    parser.add_argument("--runs", type=int, default=10)
    run_script(parser, measure)


if __name__ == "__main__":
    main()
