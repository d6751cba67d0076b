"""Start-to-exit time of `chaind query bank balances` against a running node (the bar: 400 ms).

Usage: bench/cli_query.py [--node tcp://127.0.0.1:26657] [--address chain1...] [--runs 20]
Without --node it starts a dev node of its own on free ports and stops it afterwards.
"""

import argparse
import os
import pathlib
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from results import Result, run_script

HERE = pathlib.Path(__file__).resolve().parent.parent
BAR_MS = 400.0
DEV0 = "chain17w0adeg64ky0daxwd2ugyuneellmjgnxkl0eq4"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_node(tmp):
    env = dict(os.environ, PYTHONPATH=str(HERE))
    home = pathlib.Path(tmp) / "home"
    subprocess.run([sys.executable, "-c", f"from chaind.home import Home; Home({str(home)!r}).init('dev', dev=True)"],
                   check=True, env=env, cwd=tmp)
    rpc = free_port()
    config = pathlib.Path(tmp) / "chaind.toml"
    config.write_text(f'[chain]\nblock-interval = 0\n[json-rpc]\naddress = "127.0.0.1:{free_port()}"\n'
                      f'ws-address = "127.0.0.1:{free_port()}"\n[cometbft-rpc]\naddress = "127.0.0.1:{rpc}"\n'
                      f'[grpc]\naddress = "127.0.0.1:{free_port()}"\n[rest]\naddress = "127.0.0.1:{free_port()}"\n')
    twistd = pathlib.Path(sys.executable).parent / "twistd"
    process = subprocess.Popen([str(twistd), "-n", "--pidfile=", "chaind", "--home", str(home), "--config",
                                str(config)], env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", rpc), timeout=0.1).close()
            return process, f"tcp://127.0.0.1:{rpc}"
        except OSError:
            time.sleep(0.05)
    process.terminate()
    raise SystemExit("the node did not open its CometBFT RPC")


def measure(args):
    tmp = tempfile.mkdtemp()
    process = None
    try:
        node = args.node
        if node is None:
            process, node = start_node(tmp)
        chaind = shutil.which("chaind", path=str(pathlib.Path(sys.executable).parent))
        command = [chaind, "query", "bank", "balances", args.address, "--node", node, "--home", tmp]
        env = dict(os.environ, PYTHONPATH=str(HERE))
        subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)     # warm the page cache
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
            times.append((time.perf_counter() - start) * 1000)
        median = statistics.median(times)
        print(f"chaind query bank balances: median {median:.1f} ms, min {min(times):.1f} ms, "
              f"max {max(times):.1f} ms over {args.runs} runs")
        print(f"bar {BAR_MS:.0f} ms: ratio {median / BAR_MS:.2f} ({'within' if median <= BAR_MS else 'OVER'})")
        return [Result("cli.query_balances", "chaind query bank balances, start to exit (median)", "ms", median,
                       BAR_MS, higher=False, issue=7, note=f"min {min(times):.0f} ms over {args.runs} runs")]
    finally:
        if process is not None:
            process.terminate()
            process.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--node")
    parser.add_argument("--address", default=DEV0)
    parser.add_argument("--runs", type=int, default=20)
    run_script(parser, measure, argv)


if __name__ == "__main__":
    main()
