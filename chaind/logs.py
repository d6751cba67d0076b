"""Log output: twistd's text for people, or one JSON object per line for machines (`--log-format json`), each
passing events at the node's log level or above (`[node] log-level`, `--log-level`, `--quiet`).

A JSON line: {"time", "level", "namespace", "system", "message"}, plus "traceback" when a failure is logged.
"""

import datetime
import sys

import orjson
from twisted.application import service
from twisted.logger import (
    FileLogObserver,
    FilteringLogObserver,
    ILogObserver,
    LegacyLogObserverWrapper,
    Logger,
    LogLevel,
    LogLevelFilterPredicate,
    formatEvent,
    formatEventAsClassicLogText,
    formatTime,
    timeFormatRFC3339,
)
from twisted.python import logfile
from twisted.python.components import Componentized

FORMATS = ("text", "json")
LEVELS = {"debug": LogLevel.debug, "info": LogLevel.info, "warn": LogLevel.warn, "error": LogLevel.error}

BANNER = "chaind.banner"
log = Logger(namespace=BANNER)


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


def text_observer(twistd_options=None):
    """The text observer twistd makes from its own options (-n, --logfile, --syslog), which an application's
    observer replaces: stdout when not daemonized and no file is named, else the file (twistd.log by default)."""
    options = twistd_options or {"nodaemon": True}
    if options.get("syslog"):
        from twisted.python import syslog

        return LegacyLogObserverWrapper(syslog.SyslogObserver(options.get("prefix") or "twisted").emit)
    name = options.get("logfile")
    if name == "-" or (options.get("nodaemon") and not name):
        return text_file_observer(sys.stdout)
    return text_file_observer(logfile.LogFile.fromFullPath(name or "twistd.log"))


def text_file_observer(out):
    """Twisted's textFileLogObserver (the same lines), its time text made once a second: a block's line each
    block, under automine one per tx, spent a fifth of its time on time zones and strftime."""
    times = _SecondTimes()

    def classic_line(event):
        # A "{line}" event (a block's line, the banner's) holds its text already: Twisted's format call and the
        # steps around it were a third of the block line's cost on the reactor.
        text = event.get("line")
        if (event.get("log_format") != "{line}" or text.__class__ is not str or not text or "log_failure" in event
                or "log_flattened" in event):
            return formatEventAsClassicLogText(event, formatTime=times.text)
        system = event.get("log_system")
        if system is None:
            level = event.get("log_level")
            system = f"{event.get('log_namespace', '-')}#{'-' if level is None else level.name}"
        line = f"{times.text(event.get('log_time'))} [{system}] {text}"
        return (line.replace("\n", "\n\t") if "\n" in line else line) + "\n"

    return FileLogObserver(out, classic_line)


class _SecondTimes:
    """formatTime's RFC 3339 text (whole seconds, so one text serves every event of a second)."""

    def __init__(self):
        self.second, self.last = None, None

    def text(self, when):
        if when is None:
            return formatTime(when, timeFormatRFC3339)
        second = int(when)
        if second != self.second:
            self.second, self.last = second, formatTime(when, timeFormatRFC3339)
        return self.last


def filtered(observer, level):
    """`observer`, passed only the events at `level` (a LEVELS name) or above; the start banner always passes,
    as it does in text mode, where it is printed rather than logged."""
    predicate = LogLevelFilterPredicate(defaultLogLevel=LEVELS[level])
    predicate.setLogLevelForNamespace(BANNER, LogLevel.info)
    return FilteringLogObserver(observer, [predicate])


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


class Logged(service.MultiService):
    """Holds the node; when twistd adds it to its application, makes `observer` (text or JSON lines, filtered
    by level) the application's log observer (twistd reads it from the application before it starts logging)."""

    def __init__(self, node, observer):
        super().__init__()
        self.node = node
        self.observer = observer
        node.setServiceParent(self)

    def setServiceParent(self, parent):
        if isinstance(parent, Componentized):
            parent.setComponent(ILogObserver, self.observer)
        return super().setServiceParent(parent)
