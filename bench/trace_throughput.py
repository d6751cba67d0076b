"""Benchmark: struct-log tracing throughput of a ~100,000-opcode tx (replay + serialization).

The tx loops SLOAD/SSTORE/KECCAK256 over 8 slots, then CALLs a second contract. Each run
replays it on a fresh copy of the same state; the trace streams to a sink counting bytes.
Prints untraced and traced ops/s, entries/s (bar: >= 150,000), JSON MB, peak RSS growth.
Run: PYTHONPATH=$PWD python bench/trace_throughput.py [--iterations N] [--runs R]
"""

import argparse
import gc
import resource
import statistics
import time

from eth.constants import BLANK_ROOT_HASH
from eth.db.atomic import AtomicDB
from eth.vm.execution_context import ExecutionContext
from eth.vm.forks.prague import PragueVM
from eth.vm.forks.prague.state import PragueState
from eth.vm.spoof import SpoofTransaction

from chaind.tracing.struct_logger import LoggerConfig, StructLogger
from chaind.tracing.traced_interpreter import trace_transaction, tx_env
from results import Result, run_script

SENDER = bytes.fromhex("a0" * 20)
LOOP = bytes.fromhex("10" * 20)
CALLEE = bytes.fromhex("20" * 20)
BAR = 150_000


def _code(text):
    names = {"STOP": 0x00, "ADD": 0x01, "LT": 0x10, "AND": 0x16, "KECCAK256": 0x20, "CALLDATALOAD": 0x35,
             "POP": 0x50, "MSTORE": 0x52, "SLOAD": 0x54, "SSTORE": 0x55, "JUMPI": 0x57, "GAS": 0x5A,
             "JUMPDEST": 0x5B, "DUP1": 0x80, "DUP2": 0x81, "DUP3": 0x82, "SWAP1": 0x90, "CALL": 0xF1,
             "RETURN": 0xF3}
    out = bytearray()
    tokens = text.split()
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.startswith("PUSH"):
            width = int(token[4:])
            out.append(0x5F + width)
            out += int(tokens[i + 1], 16).to_bytes(width, "big")
            i += 2
        else:
            out.append(names[token])
            i += 1
    return bytes(out)


# 24 ops per iteration; the loop head (JUMPDEST) sits at offset 4.
LOOP_CODE = _code(
    "PUSH1 00 CALLDATALOAD PUSH1 00 "
    "JUMPDEST DUP1 PUSH1 07 AND DUP1 SLOAD DUP3 ADD DUP1 PUSH1 00 MSTORE PUSH1 20 PUSH1 00 KECCAK256 "
    "ADD SWAP1 SSTORE PUSH1 01 ADD DUP2 DUP2 LT PUSH2 0005 JUMPI "
    f"PUSH1 20 PUSH1 00 PUSH1 00 PUSH1 00 PUSH1 00 PUSH20 {CALLEE.hex()} GAS CALL POP POP POP STOP")
CALLEE_CODE = _code("PUSH1 00 SLOAD PUSH1 00 MSTORE PUSH1 20 PUSH1 00 RETURN")
assert LOOP_CODE[5] == 0x5B


def base_state():
    db = AtomicDB()
    context = ExecutionContext(
        coinbase=bytes(20), timestamp=1_700_000_000, block_number=1, difficulty=0, mix_hash=bytes(32),
        gas_limit=100_000_000, prev_hashes=(), chain_id=9000, base_fee_per_gas=0, excess_blob_gas=0)
    state = PragueState(db, context, BLANK_ROOT_HASH)
    state.set_balance(SENDER, 10 ** 24)
    state.set_code(LOOP, LOOP_CODE)
    state.set_code(CALLEE, CALLEE_CODE)
    state.persist()
    return db, context, state.state_root


def make_tx(iterations):
    unsigned = PragueVM.get_transaction_builder().create_unsigned_transaction(
        nonce=0, gas_price=1, gas=90_000_000, to=LOOP, value=0, data=iterations.to_bytes(32, "big"))
    return SpoofTransaction(unsigned, from_=SENDER)


class Sink:
    def __init__(self):
        self.bytes = 0
        self.chunks = 0

    def write(self, data):
        self.bytes += len(data)
        self.chunks += 1


def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def run(base, tx, traced, pause_gc):
    db, context, root = base
    state = PragueState(db, context, root)
    sink = Sink()
    logger = StructLogger(LoggerConfig(), sink.write) if traced else None
    if pause_gc:
        gc.disable()
    start = time.perf_counter()
    try:
        if traced:
            computation = trace_transaction(state, tx, logger, tx_env(state, tx))
        else:
            computation = state.apply_transaction(tx)
    finally:
        elapsed = time.perf_counter() - start
        if pause_gc:
            gc.enable()
    assert not computation.is_error, computation.error
    return elapsed, (logger.entries if traced else 0), sink.bytes


def measure(args):
    base = base_state()
    tx = make_tx(args.iterations)
    rss_before = rss_mb()            # state built, nothing traced yet
    run(base, tx, True, False)       # warm caches and imports (its peak counts too)
    rows = {"untraced": [], "traced": [], "traced, gc paused": []}
    entries = size = 0
    for _ in range(args.runs):       # interleaved, the box is noisy
        rows["untraced"].append(run(base, tx, False, False)[0])
        elapsed, entries, size = run(base, tx, True, False)
        rows["traced"].append(elapsed)
        rows["traced, gc paused"].append(run(base, tx, True, True)[0])
    peak_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    untraced = statistics.median(rows["untraced"])
    print(f"tx: {entries:,} opcodes, struct-log JSON {size / 1e6:.1f} MB; median of {args.runs} runs")
    for name, times in rows.items():
        median = statistics.median(times)
        rate = entries / median
        print(f"  {name:18s} {median:7.3f} s  {rate:10,.0f} ops/s  x{median / untraced:4.2f} untraced"
              + ("" if name == "untraced" else f"  {'meets' if rate >= BAR else 'MISSES'} the {BAR:,}/s bar"))
    print(f"peak RSS growth while tracing: {max(0.0, peak_after - rss_before):.1f} MB "
          f"(RSS before {rss_before:.1f} MB, JSON streamed {size / 1e6:.1f} MB per run)")
    traced = entries / statistics.median(rows["traced"])
    return [Result("trace.core_entries", "struct-log tracing in process (py-evm + logger, no HTTP)", "entries/s",
                   traced, BAR, issue=3, note=f"untraced {entries / untraced:,.0f} ops/s")]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=4166, help="loop iterations (24 ops each)")
    parser.add_argument("--runs", type=int, default=5)
    run_script(parser, measure, argv)


if __name__ == "__main__":
    main()
