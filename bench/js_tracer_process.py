"""What running a JS tracer in a child process (one the node could SIGKILL at the deadline) would cost per step,
against today's in-process JsTracer, on bench/js_tracer_steps.py's synthetic steps (issue 35 item 6).

The parent ships each step (stack included, so log.stack.peek needs no request) over a pipe. "sync" waits for
the child's answer at every step, as a tracer that reads log.memory or db.* must (the EVM may not move on
before it has read). "batched" sends steps in batches without waiting, sound only for a tracer that reads
neither. Prints steps/s and us/step of each. Usage: PYTHONPATH=. python bench/js_tracer_process.py [--steps N]
"""

import argparse
import marshal
import os
import struct
import time

from chaind.tracing.js import JsTracer
from chaind.tracing.tracer import Step
from js_tracer_steps import FILTER, NOOP, env, steps
from results import Result, run_script

HEADER = struct.Struct("<I")
BATCH = 256


def read_exact(fd, n):
    data = b""
    while len(data) < n:
        chunk = os.read(fd, n - len(data))
        if not chunk:
            raise EOFError("the tracer process ended")
        data += chunk
    return data


def child(code, rfd, wfd):
    """The tracer process: steps in, one byte back per lone step, the result's size at the end."""
    tracer = JsTracer(code, timeout=600)
    tracer.on_tx_start(env(), None)
    step = Step()
    step.refund, step.memory, step.return_data = 0, b"", b""
    step.caller, step.address, step.value, step.input, step.code = b"\x01" * 20, b"\x02" * 20, 0, b"", b""
    on_opcode = tracer.on_opcode
    while True:
        n, = HEADER.unpack(read_exact(rfd, 4))
        if n == 0:
            tracer.on_tx_end(21000, b"", None, False)
            result = tracer.result()
            out = marshal.dumps(len(result) if isinstance(result, list) else result)
            os.write(wfd, HEADER.pack(len(out)) + out)
            os._exit(0)
        records = marshal.loads(read_exact(rfd, n))
        for step.pc, step.op, step.gas, step.cost, step.depth, step.error, step.stack in records:
            on_opcode(step, None)
        if len(records) == 1:
            os.write(wfd, b"k")


def in_child(code, trace, batch):
    child_in, parent_out = os.pipe()
    parent_in, child_out = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(parent_out)
        os.close(parent_in)
        try:
            child(code, child_in, child_out)
        finally:
            os._exit(1)
    os.close(child_in)
    os.close(child_out)
    started = time.perf_counter()
    pending = []
    for s in trace:
        pending.append((s.pc, s.op, s.gas, s.cost, s.depth, s.error, s.stack))
        if len(pending) == batch:
            out = marshal.dumps(pending)
            os.write(parent_out, HEADER.pack(len(out)) + out)
            pending = []
            if batch == 1:
                read_exact(parent_in, 1)
    if pending:
        out = marshal.dumps(pending)
        os.write(parent_out, HEADER.pack(len(out)) + out)
    os.write(parent_out, HEADER.pack(0))
    n, = HEADER.unpack(read_exact(parent_in, 4))
    read_exact(parent_in, n)
    took = time.perf_counter() - started
    os.waitpid(pid, 0)
    os.close(parent_out)
    os.close(parent_in)
    return len(trace) / took


def in_process(code, trace):
    tracer = JsTracer(code, timeout=600)
    tracer.on_tx_start(env(), None)
    started = time.perf_counter()
    for step in trace:
        tracer.on_opcode(step, None)
    tracer.on_tx_end(21000, b"", None, False)
    tracer.result()
    return len(trace) / (time.perf_counter() - started)


def measure(args):
    trace = steps(args.steps)
    results = []
    for name, code in (("noop", NOOP), ("filter", FILTER)):
        for how, run, batch in (("in-process", in_process, None), ("child, sync", in_child, 1),
                                ("child, batched", in_child, BATCH)):
            best = max(run(code, trace, *([] if batch is None else [batch])) for _ in range(3))
            print("%-7s %-15s %9.0f steps/s  %6.2f us/step" % (name, how, best, 1e6 / best))
            results.append(Result("trace.js_%s_%s" % (name, how.replace(", ", "_").replace("-", "_")),
                                  "%s JS tracer, %s (synthetic steps, no EVM)" % (name, how), "steps/s", best,
                                  issue=35))
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000, help="synthetic steps per round")
    run_script(parser, measure, argv)


if __name__ == "__main__":
    main()
