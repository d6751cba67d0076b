"""Log output: twistd's text for people, or one JSON object per line for machines (`--log-format json`).

A JSON line: {"time", "level", "namespace", "system", "message"}, plus "traceback" when a failure is logged.
"""

import datetime
import sys

import orjson
from twisted.application import service
from twisted.logger import FileLogObserver, ILogObserver, Logger, formatEvent
from twisted.python.components import Componentized

FORMATS = ("text", "json")

log = Logger(namespace="chaind")


def json_line(event):
    """One event as a line of JSON."""
    when = event.get("log_time")
    level = event.get("log_level")
    record = {
        "time": datetime.datetime.fromtimestamp(when, datetime.timezone.utc).isoformat(timespec="microseconds")
        if when is not None else None,
        "level": level.name if level is not None else "info",
        "namespace": event.get("log_namespace"),
        "system": event.get("log_system"),
        "message": formatEvent(event),
    }
    failure = event.get("log_failure")
    if failure is not None:
        record["traceback"] = failure.getTraceback()
    return orjson.dumps(record).decode() + "\n"


def json_observer(out=None):
    return FileLogObserver(out or sys.stdout, json_line)


class LogLines:
    """A file-like `out` that turns each line written (the node's banner) into a log event, so that in
    JSON mode stdout holds only JSON."""

    def __init__(self, logger=log):
        self.logger = logger

    def write(self, text):
        for line in text.splitlines():
            self.logger.info("{line}", line=line)

    def flush(self):
        pass


class JsonLogged(service.MultiService):
    """Holds the node; when twistd adds it to its application, makes JSON lines the application's log
    observer (twistd reads it from the application before it starts logging)."""

    def __init__(self, node, observer=None):
        super().__init__()
        self.node = node
        self.observer = observer or json_observer()
        node.setServiceParent(self)

    def setServiceParent(self, parent):
        if isinstance(parent, Componentized):
            parent.setComponent(ILogObserver, self.observer)
        return super().setServiceParent(parent)
