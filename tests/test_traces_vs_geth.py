"""Our debug_trace* held against geth's: the same signed txs on a chaind node and on geth --dev (both Prague).

Both chains see the same sender (dev account 0) with the same nonces, so contracts land at the same addresses
and each tx runs the same code with the same gas. Struct logs (memory, stack, storage), callTracer,
prestateTracer (plain and diff mode) and a JS tracer are compared field for field; what may differ by design
(the tx's hash and fee, the block's coinbase, balances that pay fees) is named in `_comparable`.
"""

import pytest
import pytest_twisted
import rlp
from eth_account import Account
from eth_utils import keccak, to_checksum_address
from web3 import Web3

from contracts import (
    FORWARDER_INIT,
    INIT,
    SPIN,
    init_code,
    token_init,
)
from evm_client import DEV0, DEV0_KEY, OTHER, rpc, w3
from geth_process import Geth, dev_genesis
from helpers import in_thread

pytestmark = [pytest.mark.external, pytest.mark.slow]

DEBUG = {"api": "eth,net,web3,debug"}
GETH_CHAIN_ID = 1337
# x/auth's fee_collector module account, where our chain's fees go.
FEE_COLLECTOR = "0xf1829676db577682e944fc3493d451b67ff3e29f"
OUR_CHAIN_ID = 9000

# The JS tracer of geth's documentation (an opcode histogram), plus what each step sees of the stack and memory.
JS_TRACER = """{
    counts: {}, seen: [],
    step: function(log, db) {
        var op = log.op.toString();
        this.counts[op] = (this.counts[op] || 0) + 1;
        if (op == "SSTORE" || op == "CALL" || op == "LOG3" || op == "RETURN")
            this.seen.push([log.getPC(), op, log.getDepth(), log.getGas(), log.getCost(),
                            log.stack.length() ? log.stack.peek(0).toString(16) : null,
                            log.memory.length(), toHex(log.contract.getAddress())]);
    },
    fault: function(log, db) { this.seen.push(["fault", log.op.toString(), log.getError()]); },
    result: function(ctx, db) {
        return {counts: this.counts, seen: this.seen, type: ctx.type, gasUsed: ctx.gasUsed,
                output: toHex(ctx.output), error: ctx.error || null};
    }
}"""


def word(n):
    return (n).to_bytes(32, "big").hex()


def address_after(nonce):
    """The address DEV0's contract creation with this nonce makes."""
    return to_checksum_address(keccak(rlp.encode([bytes.fromhex(DEV0[2:]), nonce]))[12:])


def scenario():
    """(name, tx) in nonce order: creations, stores, reads, reverts, out of gas, calls between contracts."""
    store, token, forwarder = address_after(0), address_after(4), address_after(7)
    spin = address_after(10)
    transfer = "a9059cbb" + word(int(OTHER, 16)) + word(10**18)
    balance_of = "70a08231" + word(int(DEV0, 16))
    return [
        ("deploy store", {"data": "0x" + INIT.hex(), "gas": 200000}),
        ("store", {"to": store, "data": "0x" + word((1 << 255) | 0xBEEF), "gas": 100000}),
        ("read", {"to": store, "data": "0x", "gas": 100000}),
        ("reverted store", {"to": store, "data": "0x" + word(0), "gas": 100000}),
        ("deploy token", {"data": "0x" + token_init(10**24).hex(), "gas": 400000}),
        ("token transfer", {"to": token, "data": "0x" + transfer, "gas": 100000}),
        ("token transfer short", {"to": token, "data": "0x" + "a9059cbb" + word(int(OTHER, 16)) + word(10**30),
                                  "gas": 100000}),
        ("deploy forwarder", {"data": "0x" + FORWARDER_INIT.hex(), "gas": 200000}),
        ("forwarded balanceOf", {"to": forwarder, "data": "0x" + word(0) + word(int(token, 16)) + balance_of,
                                 "gas": 200000}),
        ("forwarded then reverted", {"to": forwarder, "data": "0x" + word(1) + word(int(token, 16)) + transfer,
                                     "gas": 200000}),
        ("deploy spin", {"data": "0x" + init_code(SPIN).hex(), "gas": 100000}),
        ("out of gas", {"to": spin, "data": "0x", "gas": 30000}),
        ("store out of gas", {"to": store, "data": "0x" + word(7), "gas": 21000 + 16 * 1 + 4 * 31 + 2200}),
        ("read out of gas", {"to": store, "data": "0x", "gas": 21000 + 1000}),
        ("value transfer", {"to": OTHER, "value": 12345, "gas": 21000}),
        ("token balanceOf", {"to": token, "data": "0x" + balance_of, "gas": 100000}),
    ]


def run_scenario(web3, chain_id):
    """Sends every tx of the scenario (each waits for its receipt); their hashes in order."""
    hashes = []
    for nonce, (_name, tx) in enumerate(scenario()):
        tx = {"chainId": chain_id, "nonce": nonce, "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 10**9,
              "value": 0, **tx}
        signed = Account.sign_transaction(tx, DEV0_KEY)
        tx_hash = web3.eth.send_raw_transaction(signed.raw_transaction)
        web3.eth.wait_for_transaction_receipt(tx_hash, timeout=30, poll_latency=0.05)
        hashes.append(tx_hash.to_0x_hex())
    return hashes


TRACERS = {
    "struct logs": {"enableMemory": True, "enableReturnData": True},
    "callTracer": {"tracer": "callTracer", "tracerConfig": {"withLog": True}},
    "prestateTracer": {"tracer": "prestateTracer"},
    "prestateTracer diff": {"tracer": "prestateTracer", "tracerConfig": {"diffMode": True}},
    "js": {"tracer": JS_TRACER},
}


def _comparable(kind, trace, payers, ours):
    """The trace without what differs by design, each written down in README's tracing section:
    - prestateTracer: the accounts that take the fee (geth's coinbase; our fee collector and proposer, the chain's
      fees going to x/distribution) are left out, and the sender's balance (the two chains' base fees differ);
    - struct logs: our entries keep `"error": null` and `"memory": []`, and write each stack item as 64 hex
      digits and memory words and storage slots as bare hex, as the interface document describes them (and
      Evmos writes them), where geth leaves both out, writes stack items as 0x-quantities and memory words and
      slots with 0x first; our `returnValue` is bare hex, as the interface document and Evmos have it, where geth
      writes 0x first."""
    if kind.startswith("prestateTracer"):
        parts = [trace["pre"], trace["post"]] if "pre" in trace else [trace]
        for part in parts:
            for address in list(part):
                if address.lower() in payers:
                    del part[address]
                elif address.lower() == DEV0.lower():
                    part[address].pop("balance", None)
    if kind == "struct logs" and ours:
        for entry in trace["structLogs"]:
            if entry.get("error", "") is None:
                del entry["error"]
            if entry.get("memory") == []:
                del entry["memory"]
            if "stack" in entry:
                entry["stack"] = [hex(int(item, 16)) for item in entry["stack"]]
            if "memory" in entry:
                entry["memory"] = ["0x" + item for item in entry["memory"]]
            if "storage" in entry:
                entry["storage"] = {"0x" + k: "0x" + v for k, v in entry["storage"].items()}
        trace["returnValue"] = "0x" + trace["returnValue"]
    return trace


def fee_takers(*addresses):
    return {address.lower() for address in addresses}


@pytest_twisted.inlineCallbacks
def test_traces_match_geths(node_factory, geth_binary, tmp_path):
    node = node_factory(json_rpc=DEBUG)
    ours = yield in_thread(run_scenario, w3(node), OUR_CHAIN_ID)
    # geth's dev chain runs the forks after Prague too (Osaka, ...): ours is Prague's EVM.
    genesis = dev_genesis(geth_binary, "prague", {DEV0: 10**22})
    with Geth(geth_binary, tmp_path, genesis) as geth:
        theirs = yield in_thread(run_scenario, Web3(Web3.HTTPProvider(geth.url)), GETH_CHAIN_ID)
        # The coinbase that takes the fees on each side (prestateTracer lists it).
        our_block = (yield rpc(node, "eth_getTransactionReceipt", ours[0]))[1]["result"]["blockNumber"]
        our_coinbase = (yield rpc(node, "eth_getBlockByNumber", our_block, False))[1]["result"]["miner"]
        geth_coinbase = (yield in_thread(geth.rpc, "eth_getBlockByNumber", "latest", False))["miner"]
        payers = fee_takers(our_coinbase, geth_coinbase, FEE_COLLECTOR)
        differences = []
        for (name, _), our_hash, their_hash in zip(scenario(), ours, theirs, strict=True):
            for kind, config in TRACERS.items():
                reply = (yield rpc(node, "debug_traceTransaction", our_hash, config))[1]
                their = yield in_thread(geth.post, "debug_traceTransaction", their_hash, config)
                assert "error" not in their, (name, kind, their)
                assert "error" not in reply, (name, kind, reply)
                ours_now = _comparable(kind, reply["result"], payers, True)
                if ours_now != _comparable(kind, their["result"], payers, False):
                    differences.append((name, kind, reply["result"], their["result"]))
    assert not differences, _describe(differences)


def _describe(differences):
    lines = []
    for name, kind, ours, theirs in differences:
        lines.append(f"{name} / {kind}:")
        if kind == "struct logs":
            for i, (a, b) in enumerate(zip(ours["structLogs"], theirs["structLogs"], strict=False)):
                if a != b:
                    lines.append(f"  first differing step {i}: ours {a}\n  geth {b}")
                    break
            for key in ("gas", "failed", "returnValue"):
                if ours.get(key) != theirs.get(key):
                    lines.append(f"  {key}: ours {ours.get(key)!r} geth {theirs.get(key)!r}")
            if len(ours["structLogs"]) != len(theirs["structLogs"]):
                lines.append(f"  steps: ours {len(ours['structLogs'])} geth {len(theirs['structLogs'])}")
        else:
            lines.append(f"  ours {ours}\n  geth {theirs}")
    return "\n".join(lines)

