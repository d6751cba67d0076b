"""CometBFT light-client verification of a counterparty header (chaind/consensus/light.py), the core of an IBC
MsgUpdateClient: a header signed by a 100-validator set, skipping from a trusted header at trust level 1/3.

In this process, no node: the headers are built with tests/light_headers.py. Usage:
    python bench/light_client.py [--validators 100] [--changed 40] [--runs 50] [--json]
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).parent))
from chaind.consensus import light  # noqa: E402
from light_headers import SECOND, key, signed_header, validator_set  # noqa: E402
from results import Result, run_script  # noqa: E402

T0 = 1_700_000_000 * SECOND


def measure(args):
    old = validator_set([key(seed) for seed in range(args.validators)])
    new = validator_set([key(seed) for seed in range(args.changed, args.changed + args.validators)])
    trusted = signed_header(10, T0, old, old, None)
    now = T0 + 7000 * SECOND
    timings = []
    for run in range(args.runs):
        # A header of its own each run: the verifier remembers signatures it has checked, as CometBFT's does.
        untrusted = signed_header(100 + run, T0 + (600 + run) * SECOND, new, new, None)
        start = time.perf_counter()
        # What a MsgUpdateClient decodes and checks: both sets from their protos, then the header.
        trusted_vals, untrusted_vals = light.ValidatorSet.from_proto(old[0]), light.ValidatorSet.from_proto(new[0])
        light.verify(trusted, trusted_vals, untrusted, untrusted_vals, 14 * 86400 * SECOND, now, 10 * SECOND)
        timings.append((time.perf_counter() - start) * 1000)
    median = statistics.median(timings)
    print(f"light.verify, {args.validators} validators, {args.changed} changed, non-adjacent at 1/3: "
          f"median {median:.2f} ms, p90 {statistics.quantiles(timings, n=10)[-1]:.2f} ms over {args.runs} runs")
    return [Result("light.verify_100_non_adjacent", "light-client verify of a 100-validator non-adjacent header",
                   "ms", round(median, 2), target=None, higher=False, issue=30,
                   note="the light-client part of MsgUpdateClient's 25 ms bar")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--validators", type=int, default=100)
    parser.add_argument("--changed", type=int, default=40, help="validators of the new set not in the trusted one")
    parser.add_argument("--runs", type=int, default=50)
    run_script(parser, measure)


if __name__ == "__main__":
    main()
