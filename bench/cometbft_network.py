"""Issue 37's figures: blocks per second of a four-validator `chaind testnet` run by real CometBFT v0.38 with 100
EVM transfers a block, and how long a validator killed (both processes) takes to catch up once restarted.

Each home's genesis caps a block's gas at --per-block x 21,000 (consensus_params.block.max_gas, which chaind's
PrepareProposal keeps to), so a block holds exactly --per-block transfers while the mempools have them. The
four operators each send their share, signed ahead, to their own node's eth_sendRawTransaction (JSON-RPC
batches; chaind checks each and hands it to its CometBFT). The rate counts the run of full blocks, between the
header times of its first and last. Then node3 is killed, the three others make --away full blocks, node3 is
started again (chaind, then cometbft node) and timed until CometBFT reports the others' height.

    python bench/cometbft_network.py [--blocks 20] [--per-block 100] [--away 20] [--timeout-commit 1s]
"""

import argparse
import json
import pathlib
import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.request

from eth_account import Account
from eth_utils import to_checksum_address

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from chaind.keyring import Keyring  # noqa: E402
from cometbft_network import start_network  # noqa: E402
from helpers import install_test_engine  # noqa: E402

TRANSFER_GAS = 21000
EVM_CHAIN_ID = 9000
RECIPIENT = to_checksum_address("0x" + "ab" * 20)
BATCH = 50


def _prepare_homes(validators, per_block, timeout_commit):
    for v in validators:
        genesis_path = v.home / "config" / "genesis.json"
        genesis = json.loads(genesis_path.read_text())
        genesis["consensus_params"]["block"]["max_gas"] = str(per_block * TRANSFER_GAS)
        genesis_path.write_text(json.dumps(genesis, indent=2))
        if timeout_commit:
            config = v.home / "config" / "config.toml"
            config.write_text(re.sub(r'timeout_commit = "[^"]*"', f'timeout_commit = "{timeout_commit}"',
                                     config.read_text()))


def _signed(validator, count):
    """`count` transfers from the operator of `validator`, nonces from its pending count, as raw hex."""
    key = Keyring(validator.home, "test").private_key("validator")
    sender = Account.from_key(key).address
    nonce = int(validator.eth("eth_getTransactionCount", sender, "pending"), 16)
    return [Account.sign_transaction({"chainId": EVM_CHAIN_ID, "nonce": nonce + i, "to": RECIPIENT, "value": 1,
                                      "gas": TRANSFER_GAS, "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 1},
                                     key).raw_transaction.to_0x_hex() for i in range(count)]


def _send_all(validator, raws, errors):
    url = f"http://127.0.0.1:{validator.ports['json-rpc']}"
    for start in range(0, len(raws), BATCH):
        body = json.dumps([{"jsonrpc": "2.0", "id": i, "method": "eth_sendRawTransaction", "params": [raw]}
                           for i, raw in enumerate(raws[start:start + BATCH])]).encode()
        request = urllib.request.Request(url, data=body, headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as r:
            errors += [reply["error"] for reply in json.loads(r.read()) if "error" in reply]


def _load(senders, blocks, per_block):
    """Send blocks x per_block transfers, a share through each sender's node, all at once; the seconds taken."""
    total = blocks * per_block
    signed = [(v, _signed(v, total // len(senders) + (i < total % len(senders)))) for i, v in enumerate(senders)]
    errors = []
    threads = [threading.Thread(target=_send_all, args=(v, raws, errors)) for v, raws in signed]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise SystemExit(f"{len(errors)} transfers refused, the first: {errors[0]}")
    return time.monotonic() - started


def _nanos(rfc3339):
    seconds, _, fraction = rfc3339.rstrip("Z").partition(".")
    moment = time.mktime(time.strptime(seconds, "%Y-%m-%dT%H:%M:%S")) - time.timezone
    return int(moment) * 10**9 + int(fraction.ljust(9, "0"))


def _full_run(validator, first, last, per_block):
    """(heights, header times in ns) of the blocks of first..last holding per_block txs."""
    full = []
    for h in range(first, last + 1):
        block = validator.rpc("block", height=h)["block"]
        if len(block["data"]["txs"]) == per_block:
            full.append((h, _nanos(block["header"]["time"])))
    return full


def _wait_drained(validator, from_height, count, timeout):
    """The height at which `count` more txs than from_height's have been committed."""
    deadline = time.monotonic() + timeout
    seen, height = 0, from_height
    while seen < count:
        if time.monotonic() > deadline:
            raise SystemExit(f"only {seen} of {count} transfers committed in {timeout} s")
        top = validator.height()
        while height < top:
            height += 1
            seen += len(validator.rpc("block", height=height)["block"]["data"]["txs"])
        time.sleep(0.2)
    return height


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--blocks", type=int, default=20, help="full blocks of the four-validator run")
    parser.add_argument("--per-block", type=int, default=100)
    parser.add_argument("--away", type=int, default=20, help="full blocks made while node3 is down")
    parser.add_argument("--timeout-commit", default="", help="CometBFT's [consensus] timeout_commit "
                        "(default: what `chaind testnet` writes, 1s)")
    args = parser.parse_args()
    cometbft, error = install_test_engine("cometbft")
    if error:
        raise SystemExit(f"no cometbft: {error}")
    with tempfile.TemporaryDirectory(prefix="bench-cometbft-") as tmp:
        validators = start_network(cometbft, pathlib.Path(tmp), 4)
        _prepare_homes(validators, args.per_block, args.timeout_commit)
        try:
            for v in validators:
                v.start()
            for v in validators:
                v.wait_height(3, timeout=180)
            before = validators[0].height()
            sent_in = _load(validators, args.blocks, args.per_block)
            top = _wait_drained(validators[0], before, args.blocks * args.per_block, timeout=600)
            full = _full_run(validators[0], before + 1, top, args.per_block)
            span = (full[-1][1] - full[0][1]) / 1e9
            intervals = [(b[1] - a[1]) / 1e9 for a, b in zip(full, full[1:], strict=False) if b[0] == a[0] + 1]
            print(f"4 validators, {args.per_block} EVM transfers a block: {len(full)} full blocks "
                  f"({full[0][0]}..{full[-1][0]}) in {span:.2f} s of header time: {(len(full) - 1) / span:.2f} "
                  f"blocks/s, {(len(full) - 1) * args.per_block / span:.0f} transfers/s; consecutive block "
                  f"interval median {statistics.median(intervals):.2f} s; {args.blocks * args.per_block} "
                  f"transfers sent in {sent_in:.1f} s")

            validators[3].stop()
            others = validators[:3]
            killed_at = max(v.height() for v in others)
            _load(others, args.away, args.per_block)
            _wait_drained(others[0], killed_at, args.away * args.per_block, timeout=600)
            target = max(v.height() for v in others)
            started = time.monotonic()
            validators[3].start()
            validators[3].wait_height(target, timeout=600)
            caught_up = time.monotonic() - started
            print(f"node3 killed at height {killed_at}, restarted {target - killed_at} blocks behind "
                  f"({args.away * args.per_block} transfers among them): at height {target} "
                  f"{caught_up:.1f} s after its start (chaind, then cometbft node), "
                  f"{(target - killed_at) / caught_up:.1f} blocks/s")
        finally:
            for v in validators:
                v.stop()


if __name__ == "__main__":
    main()
