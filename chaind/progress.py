"""Progress of long work (a replay, an import): height, rate and time left, for a terminal or a log.

On a terminal one line is redrawn in place a few times a second; elsewhere (a pipe, a log file) a plain
line is written every `interval` seconds, and always a last one when the work ends.
"""

import time

REDRAW = 0.1            # seconds between redraws of the terminal line
CLEAR_TO_END = "\x1b[K"


class Progress:
    """`unit` names what is counted: "blocks" (counted as heights) or a plural noun ("entries", ...);
    `start` is where the count starts (None: just before the first update's)."""

    def __init__(self, what, out, tty=None, interval=10.0, clock=time.monotonic, unit="blocks", start=None):
        self.what = what
        self.unit = unit
        self.out = out
        self.tty = out.isatty() if tty is None else tty
        self.interval = REDRAW if self.tty else interval
        self.clock = clock
        self.started = self.last_shown = clock()
        self.first = start
        self.open_line = False

    def update(self, height, last):
        """`height` is done; `last` is where the work ends (None: not known)."""
        now = self.clock()
        if self.first is None:
            self.first = height - 1
        if (last is None or height < last) and now - self.last_shown < self.interval:
            return
        self.last_shown = now
        line = self.line(height, last, now)
        if self.tty:
            self.open_line = last is None or height < last
            self.out.write("\r" + line + CLEAR_TO_END + ("" if self.open_line else "\n"))
        else:
            self.out.write(line + "\n")
        self.out.flush()

    def end(self):
        """Work that stopped early: end the terminal line, so what follows starts on its own."""
        if self.open_line:
            self.out.write("\n")
            self.out.flush()
            self.open_line = False

    def line(self, height, last, now):
        done = height - self.first
        elapsed = now - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        if last is None:
            return f"{self.what}: {height:,} {self.unit}, {rate:,.1f} {self.unit}/s"
        left = (last - height) / rate if rate > 0 else None
        where = f"height {height}/{last}" if self.unit == "blocks" else f"{height:,}/{last:,} {self.unit}"
        return (f"{self.what}: {where} ({100 * done / max(last - self.first, 1):.0f}%), "
                f"{rate:,.1f} {self.unit}/s, {'done' if height >= last else 'time left ' + _duration(left)}")


def _duration(seconds):
    if seconds is None:
        return "unknown"
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"
