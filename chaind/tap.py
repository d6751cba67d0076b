"""`twistd chaind`: options and the service maker."""

from twisted.python import usage

from chaind import logs
from chaind.config import ConfigError
from chaind.malloc import limit_arenas
from chaind.node import open_node


class Options(usage.Options):
    optParameters = [
        ["home", None, None, "Node home directory (default: ~/.chaind, created as a dev chain)"],
        ["config", None, None, "Config file (default: <home>/config/chaind.toml)"],
        ["log-format", None, "text", "Log format: text (for people) or json (one JSON object per line on "
                                     "stdout, for machines)"],
    ]

    def postOptions(self):
        if self["log-format"] not in logs.FORMATS:
            raise usage.UsageError(f"--log-format must be one of {', '.join(logs.FORMATS)}, "
                                   f"not {self['log-format']!r}")


def makeService(options):
    # Before the node starts its threads, each of which could otherwise take an arena of its own.
    limit_arenas()
    json_logs = options["log-format"] == "json"
    try:
        node = open_node(options["home"], options["config"], out=logs.LogLines() if json_logs else None)
    except ConfigError as e:
        raise SystemExit(f"chaind: {e}")
    return logs.JsonLogged(node) if json_logs else node
