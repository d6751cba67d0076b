"""A node as a real process (`twistd -n chaind` from this checkout): started until its banner names every face's
port, killed with SIGKILL or stopped with SIGTERM."""

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TWISTD = Path(sys.executable).parent / "twistd"


class NodeProcess:
    """`twistd -n chaind` as a real process, running this checkout's code."""

    def __init__(self, home, config, cwd, args=None, env=None):
        """`args` (with `env`): another command line that runs the node, `chaind start` say."""
        self.args = args or [str(TWISTD), "-n", "--pidfile=", "chaind", "--home", str(home), "--config", str(config)]
        self.env = env
        self.cwd = cwd
        self.process = None
        self.output = []

    def start(self, timeout=60):
        env = self.env or {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
        self.process = subprocess.Popen(self.args, cwd=self.cwd, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.process.stdout, lines), daemon=True).start()
        deadline, ports = time.monotonic() + timeout, {}
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.2)
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            if line is None:
                break
            found = re.match(r"([a-z-]+): [a-z+]+://127\.0\.0\.1:(\d+)", line)
            if found:
                ports[found.group(1)] = int(found.group(2))
            if "json-rpc namespaces:" in line:      # the banner names every face before this line
                return ports
        self.kill()
        raise AssertionError("node did not start:\n" + "".join(self.output[-40:]))

    def _read(self, stream, lines):
        for line in stream:
            self.output.append(line)
            lines.put(line)
        lines.put(None)

    def kill(self):
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        if self.process is not None:
            self.process.wait(timeout=30)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)
