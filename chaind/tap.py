"""`twistd chaind`: options and the service maker."""

from twisted.python import usage

from chaind.config import ConfigError
from chaind.malloc import limit_arenas
from chaind.node import open_node


class Options(usage.Options):
    optParameters = [
        ["home", None, None, "Node home directory (default: ~/.chaind, created as a dev chain)"],
        ["config", None, None, "Config file (default: <home>/config/chaind.toml)"],
    ]


def makeService(options):
    # Before the node starts its threads, each of which could otherwise take an arena of its own.
    limit_arenas()
    try:
        return open_node(options["home"], options["config"])
    except ConfigError as e:
        raise SystemExit(f"chaind: {e}")
