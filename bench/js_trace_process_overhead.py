"""What running a JavaScript-traced request in a trace process costs per call (issue 35 item 6), against the
in-thread path it replaced, on the same App and the same committed txs: a small contract call and a ~1M-gas one.

A real node makes the txs and stops; this process then opens its store and times TraceJob.run on a TxTrace both
ways with the SLOAD/SSTORE filter tracer: in-thread (TraceJob without processes, what the node did before) and
through TraceProcesses (a warm process taken, the App built in it, every store read over the pipe, the output
streamed back). Also the one-off costs: the first process ready (the fork server started), and a new one ready
after one is taken (forked from the server and warmed up: off the request's path while one is kept ready).

    PYTHONPATH=. python bench/js_trace_process_overhead.py [--runs 7] [--big-gas 1000000]
"""

import argparse
import pathlib
import shutil
import statistics
import sys
import tempfile
import threading
import time

from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.config import TracingSettings
from chaind.home import Home
from chaind.store.db import Database
from chaind.tracing import processes as trace_processes
from chaind.tracing.jobs import TraceJob, TraceOptions, TxTrace
from chaind.tracing.js.examples import STORAGE_VALUES
from devnode import DevNode
from results import Result, run_script
from trace_e2e import CALLEE, CALLEE_CODE, LOOP_CODE, Sender, deploy, loop_call

JS_MEMORY = TracingSettings().js_memory_limit


class _Sink:
    def __init__(self):
        self.size = 0

    def write(self, data):
        self.size += len(data)


def make_txs(home, big_gas):
    """Commit a small loop call and one of about `big_gas` on a node over `home`: their EVM hashes."""
    with DevNode('api = "eth,net,web3,debug"\n', home=home) as node:
        sender = Sender(node.url)
        callee = bytes.fromhex(deploy(sender, CALLEE_CODE)[2:])
        loop = deploy(sender, LOOP_CODE.replace(CALLEE, callee))
        small = loop_call(sender, loop, 2, gas=1_000_000)
        # Storage written once costs more than rewritten: size the big one on a run over written slots.
        trial = loop_call(sender, loop, 1002, gas=30_000_000)
        per_iteration = (int(trial["gasUsed"], 16) - int(small["gasUsed"], 16)) / 1000
        iterations = int((big_gas - int(small["gasUsed"], 16)) / per_iteration) + 2
        big = loop_call(sender, loop, iterations, gas=int(big_gas * 1.5))
        iterations = int(iterations * big_gas / int(big["gasUsed"], 16))      # once more, scaled by what it used
        big = loop_call(sender, loop, iterations, gas=int(big_gas * 1.5))
        return [(name, receipt["transactionHash"], int(receipt["gasUsed"], 16))
                for name, receipt in (("small", small), ("1M gas", big))]


def memory_mb(pid):
    """(PSS, private) MB of process `pid` (Linux smaps_rollup)."""
    fields = {}
    for line in pathlib.Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        fields[name] = int(value.split()[0]) / 1024
    return fields["Pss"], fields["Private_Clean"] + fields["Private_Dirty"]


def timed(run, runs, before=None):
    """Median seconds of `runs` calls of run() (before() untimed before each)."""
    seconds = []
    for _ in range(runs):
        if before is not None:
            before()
        started = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds)


def measure(args):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="chaind-bench-"))
    results = []
    try:
        home = Home(tmp / "home")
        home.init("bench", dev=True)
        txs = make_txs(home, args.big_gas)
        db = Database(home.data_dir / "chain.db")
        app = App(db, Genesis.load(home.genesis_file))
        options = TraceOptions.parse({"tracer": STORAGE_VALUES, "timeout": "60s"}, JS_MEMORY)

        processes = trace_processes.TraceProcesses(app, TracingSettings(js_processes=1))

        def warm():
            while processes.ready() < 1:
                time.sleep(0.002)

        started = time.perf_counter()
        processes.start()
        warm()
        first = time.perf_counter() - started
        refill = []
        for _ in range(args.runs):
            processes._discard(processes._take())
            started = time.perf_counter()
            processes._fill()
            warm()
            refill.append(time.perf_counter() - started)
        print(f"first trace process ready {first * 1e3:,.0f} ms (the fork server started: once per node); a new "
              f"one ready {statistics.median(refill) * 1e3:.1f} ms (forked, warmed up; median of {args.runs})")
        pss, private = memory_mb(next(iter(processes.pids())))
        print(f"a ready trace process holds {private:.1f} MB of its own (PSS {pss:.1f} MB; the rest is shared with "
              f"the fork server)")

        for name, tx_hash, gas in txs:
            spec = TxTrace(*app.tx_position(bytes.fromhex(tx_hash[2:]), evm=True))
            sinks = {}

            def run(with_processes, key, spec=spec, sinks=sinks):
                sink = sinks[key] = _Sink()
                TraceJob(app, options, JS_MEMORY, threading.Event(), processes if with_processes else None
                         ).run(spec, sink)

            thread = timed(lambda: run(False, "thread"), args.runs)
            process = timed(lambda: run(True, "process"), args.runs, before=warm)
            assert sinks["thread"].size == sinks["process"].size, sinks
            print(f"{name:7} tx ({gas:>9,} gas): in-thread {thread * 1e3:8.1f} ms   trace process "
                  f"{process * 1e3:8.1f} ms   overhead {(process - thread) * 1e3:+7.1f} ms (x{process / thread:.2f})"
                  f"   result {sinks['process'].size:,} bytes; median of {args.runs}")
            key = "small" if name == "small" else "1m_gas"
            results.append(Result(f"trace.js_process_overhead_{key}", f"JS-traced {name} tx: trace process "
                                  f"minus in-thread, per call", "ms", (process - thread) * 1e3, higher=False,
                                  issue=35, note=f"in-thread {thread * 1e3:.1f} ms"))
        processes.stop()
        db.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="timed calls per path and tx")
    parser.add_argument("--big-gas", type=int, default=1_000_000, help="gas of the big tx, about")
    run_script(parser, measure, argv)


if __name__ == "__main__":
    sys.exit(main())
