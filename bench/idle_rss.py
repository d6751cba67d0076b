"""Idle memory: resident set size of a started dev node after it has idled a few seconds.

Bar (issue 2): idle node RSS under 150 MB.
"""

import argparse
import time

from devnode import DevNode, rss_mb
from results import Result, run_script

TARGET_MB = 150


def measure(args):
    with DevNode() as node:
        time.sleep(args.idle)
        rss = rss_mb(node.pid)
    print(f"idle RSS {rss:.1f} MB  target < {TARGET_MB} MB  ratio {rss / TARGET_MB:.2f}")
    return [Result("idle_rss", f"idle node RSS after {args.idle:g} s, every face up", "MB", rss, TARGET_MB,
                   higher=False, issue=2, compare="idle_rss")]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--idle", type=float, default=5, help="seconds to idle before reading VmRSS")
    run_script(parser, measure, argv)


if __name__ == "__main__":
    main()
