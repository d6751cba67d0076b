"""EVM execution speed (issue 36): Mgas/s of cheap-opcode loops and an ERC-20 transfer mix through eth_call,
and the time of one mined 29M-gas tx into a JUMPDEST sled; on our node and on Anvil in the same run.

    python bench/evm_speed.py [--quick] [--no-peer] [--cache ~/.cache/chaind-peers]
    python bench/evm_speed.py --in-process [--gas 2000000]
    python bench/evm_speed.py --block-gas 5000000

Each mix is a create-call (eth_call without `to`) of the same initcode on both nodes: a loop of the mix's
body that runs while GAS is above a floor, then returns the gas left, so the gas it executed is known exactly.
--in-process runs each mix here instead, on py-evm's own interpreter loop and then on the fast one (the same
NativeState, one right after the other), for a before/after ratio that a busy box skews less: best of --runs, each
from a collected heap, with the node's garbage collector setting.
"""

import argparse
import gc
import pathlib
import time

from eth_account import Account
from eth_utils import to_checksum_address

from dev_methods import DEV0_KEY, Client, cpu_seconds
from devnode import DevNode
from peers import VERSIONS, Peer, npm_install
from results import Result, run_script

CONFIG = ('api = "eth,net,web3"\nevm-timeout = 600.0\ngas-cap = 0\n'
          '[chain]\nblock-interval = 0.0\nempty-blocks = false\n')
SLED_GAS = 29_000_000
SLED_BYTES = 24_000

# -- a tiny assembler ----------------------------------------------------------------------------------

OP = {"STOP": 0x00, "ADD": 0x01, "MUL": 0x02, "SUB": 0x03, "DIV": 0x04, "LT": 0x10, "GT": 0x11, "EQ": 0x14,
      "ISZERO": 0x15, "SHL": 0x1b,
      "SHR": 0x1c, "SHA3": 0x20, "CALLER": 0x33, "CALLDATALOAD": 0x35, "CODECOPY": 0x39, "POP": 0x50,
      "MLOAD": 0x51, "MSTORE": 0x52, "SLOAD": 0x54, "SSTORE": 0x55, "JUMP": 0x56, "JUMPI": 0x57, "GAS": 0x5a,
      "JUMPDEST": 0x5b, "LOG1": 0xa1, "LOG3": 0xa3, "CREATE": 0xf0, "CALL": 0xf1, "RETURN": 0xf3, "REVERT": 0xfd,
      **{f"DUP{n}": 0x7f + n for n in range(1, 17)}, **{f"SWAP{n}": 0x8f + n for n in range(1, 17)}}


def asm(*items):
    """Bytes of a program: op names, ("push", value[, width]), ("label", name), ("ref", name) (a PUSH2 of a
    label's offset)."""
    out, labels, refs = bytearray(), {}, []
    for item in items:
        if isinstance(item, str):
            out.append(OP[item])
        elif item[0] == "push":
            value = item[1]
            width = item[2] if len(item) > 2 else max(1, (value.bit_length() + 7) // 8)
            out.append(0x5f + width)
            out += value.to_bytes(width, "big")
        elif item[0] == "label":
            labels[item[1]] = len(out)
            out.append(OP["JUMPDEST"])
        elif item[0] == "ref":
            out.append(0x61)
            refs.append((len(out), item[1]))
            out += b"\0\0"
        elif item[0] == "raw":
            out += item[1]
    for at, name in refs:
        out[at:at + 2] = labels[name].to_bytes(2, "big")
    return bytes(out)


def deployer(runtime, constructor=b""):
    """Initcode that runs `constructor` then returns `runtime` (appended after it)."""
    head_len = len(constructor) + 13
    return constructor + asm(("push", len(runtime), 2), "DUP1", ("push", head_len, 2), ("push", 0), "CODECOPY",
                             ("push", 0), "RETURN") + runtime


FLOOR = 200_000      # the loop stops once GAS is under this; a CALL in the body needs room


def loop(body, prefix=(), repeat=16):
    """Initcode: prefix, then `repeat` bodies per pass while GAS > FLOOR, then RETURN of the gas left."""
    return asm(*prefix, ("label", "top"), *(list(body) * repeat), ("push", FLOOR, 4), "GAS", "GT", ("ref", "top"),
               "JUMPI", "GAS", ("push", 0), "MSTORE", ("push", 32), ("push", 0), "RETURN")


TRANSFER_SIG = 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef
TOKEN_RUNTIME = asm(
    ("push", 0), "CALLDATALOAD", ("push", 0xe0), "SHR", ("push", 0xa9059cbb, 4), "EQ", ("ref", "transfer"), "JUMPI",
    ("push", 0), "DUP1", "REVERT",
    ("label", "transfer"),
    "CALLER", ("push", 0), "MSTORE", ("push", 0), ("push", 32), "MSTORE", ("push", 64), ("push", 0), "SHA3",
    "DUP1", "SLOAD", ("push", 0x24), "CALLDATALOAD", "DUP1", "DUP3", "LT", ("ref", "fail"), "JUMPI",
    "DUP1", "DUP3", "SUB", "DUP4", "SSTORE",
    ("push", 4), "CALLDATALOAD", ("push", 0), "MSTORE", ("push", 64), ("push", 0), "SHA3",
    "DUP1", "SLOAD", "DUP3", "ADD", "SWAP1", "SSTORE",
    ("push", 0), "MSTORE", ("push", 4), "CALLDATALOAD", "CALLER", ("push", TRANSFER_SIG, 32), ("push", 32),
    ("push", 0), "LOG3", ("push", 1), ("push", 0), "MSTORE", ("push", 32), ("push", 0), "RETURN",
    ("label", "fail"), ("push", 0), "DUP1", "REVERT")
# The constructor gives its caller (the driving initcode) 2**128 tokens.
TOKEN_INIT = deployer(TOKEN_RUNTIME, asm("CALLER", ("push", 0), "MSTORE", ("push", 0), ("push", 32), "MSTORE",
                                         ("push", 1 << 128, 17), ("push", 64), ("push", 0), "SHA3", "SSTORE"))
# An account whose code is one STOP.
EMPTY_INIT = asm(("push", 0), ("push", 0), "MSTORE", ("push", 1), ("push", 31), "RETURN")


def create_from_code(init):
    """Prefix ops that CREATE a contract from `init` (copied from this initcode's tail at run time is awkward,
    so it is MSTOREd 32 bytes at a time) and leave its address on the stack."""
    ops = []
    padded = init + b"\0" * (-len(init) % 32)
    for i in range(0, len(padded), 32):
        ops += [("push", int.from_bytes(padded[i:i + 32], "big"), 32), ("push", i, 2), "MSTORE"]
    return ops + [("push", len(init), 2), ("push", 0), ("push", 0), "CREATE"]


# A Uniswap-V2-style pair: swap(amountIn) (calldata: the amount) prices the output by the constant product with the
# 0.3% fee from reserves in slots 0 and 1, writes both reserves, sends the output token (the token above, whose
# address is in slot 2) to its caller with a nested CALL to transfer, and logs a Swap. Its constructor creates the
# token (so the pair holds its 2**128) and sets both reserves to 10**24.
SWAP_SIG = 0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822
PAIR_RUNTIME = asm(
    ("push", 0), "CALLDATALOAD", ("push", 997, 2), "MUL", "DUP1", ("push", 0x80), "MSTORE",
    ("push", 1), "SLOAD", "MUL", ("push", 0x80), "MLOAD", ("push", 0), "SLOAD", ("push", 1000, 2), "MUL", "ADD",
    "SWAP1", "DIV", "DUP1", ("push", 0xa0), "MSTORE",
    ("push", 0), "CALLDATALOAD", ("push", 0), "SLOAD", "ADD", ("push", 0), "SSTORE",
    "DUP1", ("push", 1), "SLOAD", "SUB", ("push", 1), "SSTORE",
    ("push", 0xa9059cbb, 4), ("push", 0xe0), "SHL", ("push", 0), "MSTORE", "CALLER", ("push", 4), "MSTORE",
    ("push", 0x24), "MSTORE",
    ("push", 32), ("push", 0), ("push", 0x44), ("push", 0), ("push", 0), ("push", 2), "SLOAD", "GAS", "CALL",
    "ISZERO", ("ref", "fail"), "JUMPI",
    ("push", SWAP_SIG, 32), ("push", 32), ("push", 0xa0), "LOG1", ("push", 32), ("push", 0xa0), "RETURN",
    ("label", "fail"), ("push", 0), "DUP1", "REVERT")


def _pair_init():
    constructor = asm(*create_from_code(TOKEN_INIT), ("push", 2), "SSTORE", ("push", 10**24, 10), ("push", 0),
                      "SSTORE", ("push", 10**24, 10), ("push", 1), "SSTORE")
    return deployer(PAIR_RUNTIME, constructor)


MIXES = {
    "jumpdest": loop(["JUMPDEST"], repeat=256),
    "push_pop": loop([("push", 1), "POP"], repeat=64),
    "add_mul": loop([("push", 3), "MUL", ("push", 1), "ADD"], prefix=[("push", 1)], repeat=32),
    "mstore_mload": loop([("push", 0), "MLOAD", ("push", 32), "MSTORE"], repeat=32),
    "keccak_32": loop([("push", 32), ("push", 0), "SHA3", "POP"], repeat=32),
    "sload_warm": loop([("push", 0), "SLOAD", "POP"], repeat=32),
    "call_empty": loop([("push", 0), "DUP1", "DUP1", "DUP1", "DUP1", "DUP6", "GAS", "CALL", "POP"],
                       prefix=create_from_code(EMPTY_INIT), repeat=8),
    "call_identity": loop([("push", 32), ("push", 0), ("push", 32), ("push", 0), ("push", 0), ("push", 4), "GAS",
                           "CALL", "POP"], repeat=8),
    "erc20_transfer": loop([("push", 0xa9059cbb, 4), ("push", 0xe0), "SHL", ("push", 0), "MSTORE",
                            "DUP1", ("push", 4), "MSTORE", ("push", 1), ("push", 0x24), "MSTORE",
                            ("push", 32), ("push", 0), ("push", 0x44), ("push", 0), ("push", 0), "DUP7", "GAS",
                            "CALL", "POP", ("push", 1), "ADD"],
                           prefix=create_from_code(TOKEN_INIT) + [("push", 1000, 2)], repeat=1),
    "uniswap_swap": loop([("push", 10**18, 8), ("push", 0), "MSTORE", ("push", 32), ("push", 0), ("push", 32),
                          ("push", 0), ("push", 0), "DUP6", "GAS", "CALL", "POP"],
                         prefix=create_from_code(_pair_init()), repeat=1),
}
REALISTIC = ("erc20_transfer", "uniswap_swap")


def intrinsic(data):
    zeros = data.count(0)
    return 21000 + 32000 + 4 * zeros + 16 * (len(data) - zeros) + 2 * ((len(data) + 31) // 32)


def run_mix(client, code, gas):
    """(Mgas/s, seconds, gas executed) of one eth_call of `code` with `gas`."""
    call = {"data": "0x" + code.hex(), "gas": hex(gas)}
    began = time.perf_counter()
    out = client.call("eth_call", call, "latest")
    took = time.perf_counter() - began
    left = int(out, 16)
    executed = gas - intrinsic(code) - left
    return executed / took / 1e6, took, executed


def mixes(client, gas, runs, pid=None):
    """({mix: Mgas/s (best of runs)}, {mix: Mgas/s of the node's CPU over all runs}, empty without the node's pid).
    On a shared box the wall figure follows the node's share of a core; the CPU one does not (it counts 10 ms
    ticks: give a fast mix enough gas)."""
    out, cpu = {}, {}
    for name, code in MIXES.items():
        best = executed = spent = 0
        for _ in range(runs):
            before = cpu_seconds(pid) if pid else 0.0
            rate, _, gas_executed = run_mix(client, code, gas)
            if pid:
                spent += cpu_seconds(pid) - before
            best, executed = max(best, rate), executed + gas_executed
        out[name] = best
        if pid and spent:
            cpu[name] = executed / spent / 1e6
    return out, cpu


def sender(client):
    """(send, next nonce): send(tx) signs tx (with its "nonce") as dev0, sends it and returns its receipt."""
    chain_id = int(client.call("eth_chainId"), 16)
    nonce = int(client.call("eth_getTransactionCount", Account.from_key(DEV0_KEY).address, "pending"), 16)

    def send(tx):
        tx = {"type": 2, "chainId": chain_id, "nonce": tx.pop("nonce"), "maxFeePerGas": 100 * 10**9,
              "maxPriorityFeePerGas": 10**9, "value": 0, **tx}
        raw = "0x" + bytes(Account.sign_transaction(tx, DEV0_KEY).raw_transaction).hex()
        tx_hash = client.call("eth_sendRawTransaction", raw)
        while (receipt := client.call("eth_getTransactionReceipt", tx_hash)) is None:
            time.sleep(0.01)
        return receipt

    return send, nonce


def sled_seconds(client):
    """Seconds from sending one 29M-gas tx into a deployed JUMPDEST sled (24,000 of them, then a jump back to 0)
    to its receipt; its deployment is not timed."""
    send, nonce = sender(client)
    runtime = bytes([OP["JUMPDEST"]]) * SLED_BYTES + asm(("push", 0), "JUMP")
    deployed = send({"nonce": nonce, "data": "0x" + deployer(runtime).hex(), "gas": 8_000_000})
    assert deployed["status"] == "0x1", deployed
    began = time.perf_counter()
    receipt = send({"nonce": nonce + 1, "to": to_checksum_address(deployed["contractAddress"]), "gas": SLED_GAS})
    took = time.perf_counter() - began
    assert int(receipt["gasUsed"], 16) == SLED_GAS, receipt       # runs out of gas, as it must
    return took


def measure_node(url, args, pid=None):
    client = Client(url)
    figures, cpu = mixes(client, args.gas, args.runs, pid)
    for name, rate in figures.items():
        node_cpu = f"  (node CPU {cpu[name]:8.2f} Mgas/s)" if name in cpu else ""
        print(f"  {name:16} {rate:8.2f} Mgas/s{node_cpu}", flush=True)
    sled = sled_seconds(client)
    print(f"  29M-gas JUMPDEST-sled tx: {sled:.2f} s", flush=True)
    return figures, sled, cpu


def measure(args):
    print(f"ours ({args.gas:,} gas per eth_call, best of {args.runs}):", flush=True)
    with DevNode(config=CONFIG) as node:
        ours, our_sled, our_cpu = measure_node(node.url, args, node.pid)
    peer = None
    if not args.no_peer:
        cache = pathlib.Path(args.cache).expanduser()
        anvil_dir = npm_install(cache / "anvil", "@foundry-rs/anvil", VERSIONS["@foundry-rs/anvil"])
        # As peers.install has it: the platform package's binary itself.
        installed = {"anvil": ([str(anvil_dir.parent / "anvil-linux-amd64" / "bin" / "anvil")], cache / "anvil")}
        print("anvil:", flush=True)
        with Peer("anvil", installed) as anvil:
            peer = measure_node(anvil.url, args)[:2]
    results = []
    for name, rate in ours.items():
        target = None
        note = f"node CPU {our_cpu[name]:.2f} Mgas/s" if name in our_cpu else ""
        if peer is not None:
            note += f"; anvil {peer[0][name]:.1f} Mgas/s, ours/anvil {rate / peer[0][name]:.4f}"
        results.append(Result(f"evm.{name}", f"eth_call loop: {name}", "Mgas/s", rate, target=target, issue=36,
                              note=note))
    worst = min(v for k, v in ours.items() if k not in REALISTIC)
    results.append(Result("evm.worst_cheap", "worst cheap-opcode mix", "Mgas/s", worst, target=10.0, issue=36))
    results.append(Result("evm.sled_29m", "29M-gas JUMPDEST-sled tx, send to receipt", "s", our_sled, target=3.0,
                          higher=False, issue=36,
                          note="" if peer is None else f"anvil {peer[1]:.2f} s"))
    print(f"worst cheap mix {worst:.2f} Mgas/s (bar >= 10); sled tx {our_sled:.2f} s (bar <= 3)", flush=True)
    if peer is not None:
        print("ours/anvil: " + ", ".join(f"{k} {ours[k] / peer[0][k]:.4f}" for k in ours)
              + f"; sled {peer[1] / our_sled:.4f}", flush=True)
    return results


WORST = ("call_empty", "call_identity")


def full_blocks(args):
    """[Result]: a block holding one tx of args.block_gas gas that runs each WORST mix (its initcode, mined), timed
    from send to receipt and in the node's CPU seconds: what a full block of the slowest gas costs the node."""
    results = []
    with DevNode(config=CONFIG) as node:
        client = Client(node.url)
        send, nonce = sender(client)
        send({"nonce": nonce, "to": Account.from_key(DEV0_KEY).address, "gas": 21000})     # a warm-up block
        for at, name in enumerate(WORST, 1):
            began, cpu = time.perf_counter(), cpu_seconds(node.pid)
            receipt = send({"nonce": nonce + at, "data": "0x" + MIXES[name].hex(), "gas": args.block_gas})
            took, node_cpu = time.perf_counter() - began, cpu_seconds(node.pid) - cpu
            assert receipt["status"] == "0x1", receipt
            used = int(receipt["gasUsed"], 16)
            print(f"  {name:16} a block of {used:,} gas: {took:.2f} s send to receipt, {node_cpu:.2f} s of the "
                  f"node's CPU ({used / node_cpu / 1e6:.2f} Mgas/s)", flush=True)
            results.append(Result(f"evm.block.{name}", f"a {used:,}-gas block of {name}, node CPU", "s", node_cpu,
                                  higher=False, issue=36, note=f"send to receipt {took:.2f} s"))
    return results


def in_process(args):
    """[Result]: each mix as a create message on a fresh NativeState, py-evm's loop then the fast loop."""
    from eth.constants import BLANK_ROOT_HASH
    from eth.db.account import AccountDB
    from eth.db.atomic import AtomicDB
    from eth.vm.execution_context import ExecutionContext
    from eth.vm.forks.prague.computation import PragueComputation
    from eth.vm.forks.prague.state import PragueState
    from eth.vm.message import Message
    from eth.vm.transaction_context import BaseTransactionContext

    from chaind import collector
    from chaind.chain.modules.evm.state import NativeComputation, NativeState
    from chaind.config import NodeSettings
    from chaind.store.evm_accounts import FastAccountDB

    # py-evm's own loop, call frames and snapshots (NativeState's, NativeComputation's and FastAccountDB's shortcuts
    # undone).
    stock_state = type("StockState", (NativeState,), {
        "computation_class": type("StockComputation", (NativeComputation,), {
            "_fast_loop": False, "__init__": PragueComputation.__init__,
            "prepare_child_message": PragueComputation.prepare_child_message}),
        "account_db_class": type("StockAccountDB", (FastAccountDB,), {
            "touch_account": AccountDB.touch_account, "get_code": AccountDB.get_code, "commit": AccountDB.commit,
            "state_root": AccountDB.state_root}),
        "snapshot": PragueState.snapshot, "revert": PragueState.revert, "commit": PragueState.commit})
    context = ExecutionContext(coinbase=b"\0" * 20, timestamp=1, block_number=1, difficulty=0, mix_hash=b"\0" * 32,
                               gas_limit=30_000_000, prev_hashes=(), chain_id=9000, base_fee_per_gas=0,
                               excess_blob_gas=0)

    # The node's collector setting (chaind/collector.py): Python's default collects young objects 28 times as often,
    # and a CALL loop's frames, alive to the tx's end, made most of its time then.
    collector.tune(NodeSettings().gc_young_threshold)

    def rate(state_class, code):
        """Best Mgas/s of args.runs runs, each from a collected heap (a run's frames then meet the same collections)."""
        best = 0.0
        for _ in range(args.runs):
            gc.collect()
            state = state_class(AtomicDB(), context, BLANK_ROOT_HASH)
            message = Message(gas=args.gas, to=b"", sender=b"\1" * 20, value=0, data=b"", code=code,
                              create_address=b"\2" * 20)
            began = time.process_time()
            computation = state_class.computation_class.apply_create_message(
                state, message, BaseTransactionContext(0, b"\1" * 20))
            took = time.process_time() - began
            assert computation.is_success, computation.error
            best = max(best, (args.gas - computation.get_gas_remaining()) / took / 1e6)
        return best

    results = []
    for name, code in MIXES.items():
        before, after = rate(stock_state, code), rate(NativeState, code)
        print(f"  {name:16} py-evm loop {before:8.2f}  fast loop {after:8.2f} Mgas/s  x{after / before:.1f}",
              flush=True)
        results.append(Result(f"evm.in_process.{name}", f"in process, fast loop: {name}", "Mgas/s", after,
                              issue=36, note=f"py-evm's loop {before:.2f} Mgas/s"))
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="2M gas per call, one run each (default 10M, best of 3)")
    parser.add_argument("--gas", type=int, help="gas of each eth_call")
    parser.add_argument("--runs", type=int, help="runs of each mix; the best counts")
    parser.add_argument("--no-peer", action="store_true", help="our node only")
    parser.add_argument("--cache", default="~/.cache/chaind-peers", help="where npm installs Anvil")
    parser.add_argument("--in-process", action="store_true",
                        help="no node: each mix on py-evm's loop and on the fast loop, in this process")

    parser.add_argument("--block-gas", type=int,
                        help="no mixes: time a mined block of one tx of this much gas of each of " + ", ".join(WORST))

    def measure_args(args):
        args.gas = args.gas or (2_000_000 if args.quick else 10_000_000)
        args.runs = args.runs or (1 if args.quick else 3)
        if args.block_gas:
            return full_blocks(args)
        return in_process(args) if args.in_process else measure(args)

    run_script(parser, measure_args, argv)


if __name__ == "__main__":
    main()
