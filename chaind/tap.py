"""`twistd chaind`: options and the service maker."""

import atexit
import os
import sys

from twisted.application import service
from twisted.python import usage

from chaind import collector, logs
from chaind.config import LOG_LEVELS, ConfigError, is_host_port
from chaind.malloc import limit_arenas
from chaind.node import LISTEN_SETTINGS, ListenError, open_node


class Options(usage.Options):
    optFlags = [
        ["quiet", "q", "Log warnings and errors only, not a line per block (log-level warn for this run)"],
    ]
    optParameters = [
        ["home", None, None, "Node home directory (default: ~/.chaind, created as a dev chain)"],
        ["config", None, None, "Config file (default: <home>/config/chaind.toml)"],
        ["log-format", None, "text", "Log format: text (for people) or json (one JSON object per line on "
                                     "stdout, for machines)"],
        ["json-rpc-address", None, None, "host:port of the EVM JSON-RPC (overrides [json-rpc] address)"],
        ["ws-address", None, None, "host:port of the EVM WebSocket (overrides [json-rpc] ws-address)"],
        ["cometbft-address", None, None, "host:port of the CometBFT RPC (overrides [cometbft-rpc] address)"],
        ["grpc-address", None, None, "host:port of the gRPC server (overrides [grpc] address)"],
        ["rest-address", None, None, "host:port of the REST gateway (overrides [rest] address)"],
        ["explorer-address", None, None, "host:port of the explorer page (overrides [explorer] address)"],
        ["metrics-address", None, None, "host:port of /metrics (overrides [instrumentation] prometheus-listen-addr)"],
        ["abci-address", None, None, "host:port of the ABCI socket, socket mode (overrides [abci] address)"],
        ["log-level", None, None, "debug, info, warn or error: the least level logged (overrides [node] log-level)"],
    ]

    def postOptions(self):
        if self["log-format"] not in logs.FORMATS:
            raise usage.UsageError(f"--log-format must be one of {', '.join(logs.FORMATS)}, "
                                   f"not {self['log-format']!r}")
        if self["log-level"] is not None and self["log-level"] not in LOG_LEVELS:
            raise usage.UsageError(f"--log-level must be one of {', '.join(LOG_LEVELS)}, not {self['log-level']!r}")
        if self["log-level"] is not None and self["quiet"]:
            raise usage.UsageError("give --quiet or --log-level, not both")
        for _, _, option in LISTEN_SETTINGS.values():
            address = option and self[option[2:]]
            if address is not None and not is_host_port(address):
                raise usage.UsageError(f"{option} must be host:port (e.g. 127.0.0.1:8545), not {address!r}")

    def addresses(self):
        """{face: host:port} given on the command line."""
        return {face: self[option[2:]] for face, (_, _, option) in LISTEN_SETTINGS.items()
                if option and self[option[2:]] is not None}


class _StopsOnListenError(service.MultiService):
    """Holds the node; a face that cannot listen ends the process with the node's one line, no traceback."""

    def __init__(self, node):
        super().__init__()
        node.setServiceParent(self)

    def privilegedStartService(self):
        try:
            super().privilegedStartService()
        except ListenError as e:
            raise SystemExit(f"chaind: {e}") from None

    def startService(self):
        try:
            super().startService()
        except ListenError as e:
            raise SystemExit(f"chaind: {e}") from None


def _fail_after_a_halt(node):
    """twistd exits 0 whenever the reactor stops; a node stopped by its chain (a broken invariant, an upgrade
    it cannot run) exits 1 instead, as an SDK node's panic fails it, so supervisors and scripts see it. At
    exit, after twistd removed its pid file; os._exit because nothing else can change twistd's status."""
    def exit_status():
        if node.halted is not None:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(1)
    atexit.register(exit_status)


def makeService(options):
    # Before the node starts its threads, each of which could otherwise take an arena of its own.
    limit_arenas()
    json_logs = options["log-format"] == "json"
    try:
        node = open_node(options["home"], options["config"], out=logs.LogLines() if json_logs else None,
                         addresses=options.addresses())
    except ConfigError as e:
        raise SystemExit(f"chaind: {e}") from None
    collector.tune(node.settings.node.gc_young_threshold)
    level = options["log-level"] or ("warn" if options["quiet"] else node.settings.node.log_level)
    _fail_after_a_halt(node)
    # twistd's own options (-n, --logfile, --syslog) say where text goes, as they would without our observer.
    observer = logs.json_observer() if json_logs else logs.text_observer(options.parent)
    return logs.Logged(_StopsOnListenError(node), logs.filtered(observer, level))
