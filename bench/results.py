"""What a bench script hands to bench/run: one Result per figure (bar or shown), and the --json plumbing.

A script builds its parser, then calls `run_script(parser, measure)`; by hand it prints its report as before.
"""

import contextlib
import json
import sys

import attrs


@attrs.frozen
class Result:
    """One measured figure.

    name: a stable key ("rpc.eth_getBalance"); `compare` names the peers' figure for the same work, if any.
    target: the bar, or None for a figure shown without one. higher: the figure must reach the target
    (rates); otherwise it must stay at or under it (latencies, memory, ratios of slowdown).
    """

    name: str
    figure: str
    unit: str
    measured: float
    target: float | None = None
    higher: bool = True
    issue: int | None = None
    compare: str | None = None
    note: str = ""

    @property
    def passed(self):
        if self.target is None:
            return None
        return self.measured >= self.target if self.higher else self.measured <= self.target

    def to_json(self):
        return {**attrs.asdict(self), "passed": self.passed}

    @classmethod
    def from_json(cls, data):
        fields = {f.name for f in attrs.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in fields})


def add_json_flag(parser):
    parser.add_argument("--json", action="store_true",
                        help="print the results as one JSON list on stdout (the usual report goes to stderr)")


def run_script(parser, measure, argv=None):
    """Parse the arguments (with --json added) and run measure(args) -> [Result].

    With --json the script's own prints go to stderr and stdout carries only the JSON list, so bench/run
    reads figures without parsing text.
    """
    add_json_flag(parser)
    args = parser.parse_args(argv)
    if not args.json:
        return measure(args)
    with contextlib.redirect_stdout(sys.stderr):
        results = measure(args)
    print(json.dumps([r.to_json() for r in results]))
    sys.stdout.flush()
    return results
