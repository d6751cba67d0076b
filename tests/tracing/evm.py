"""Test helpers: a tiny assembler and an in-memory py-evm Prague state to run txs on.

Listings are text: opcode names, hex immediates after PUSHn, ":label" marks and "@label"
(a PUSH2 of the label's offset).
"""

from eth.constants import BLANK_ROOT_HASH
from eth.db.atomic import AtomicDB
from eth.vm.execution_context import ExecutionContext
from eth.vm.forks.prague import PragueVM
from eth.vm.forks.prague.state import PragueState
from eth.vm.spoof import SpoofTransaction

from chaind.tracing import opcodes as ops

CODES = {name: value for value, name in enumerate(ops.NAMES) if " " not in name}
SENDER = bytes.fromhex("a0" * 20)
COINBASE = bytes.fromhex("c0" * 20)
GAS_PRICE = 7
CHAIN_ID = 9000


def asm(listing):
    tokens = listing.split()
    labels, pc, i = {}, 0, 0
    while i < len(tokens):                    # first pass: label offsets
        token = tokens[i]
        if token.startswith(":"):
            labels[token[1:]] = pc
        elif token.startswith("@"):
            pc += 3
        else:
            pc += 1
            if token.startswith("PUSH") and token != "PUSH0":
                pc += int(token[4:])
                i += 1
        i += 1
    out = bytearray()
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.startswith(":"):
            pass
        elif token.startswith("@"):
            out += bytes([0x61]) + labels[token[1:]].to_bytes(2, "big")
        else:
            out.append(CODES[token])
            if token.startswith("PUSH") and token != "PUSH0":
                width = int(token[4:])
                i += 1
                out += int(tokens[i], 16).to_bytes(width, "big")
        i += 1
    return bytes(out)


def initcode(runtime):
    """Init code that returns `runtime` (CODECOPY of the bytes after a 15-byte prefix)."""
    n = len(runtime)
    prefix = asm(f"PUSH2 {n:04x} PUSH2 000f PUSH1 00 CODECOPY PUSH2 {n:04x} PUSH1 00 RETURN")
    assert len(prefix) == 15
    return prefix + runtime


def make_state(balance=10 ** 24, accounts=None):
    """A fresh Prague state (base fee 0) with SENDER funded; accounts: {address: code}."""
    context = ExecutionContext(
        coinbase=COINBASE, timestamp=1_700_000_000, block_number=5, difficulty=0, mix_hash=bytes(32),
        gas_limit=30_000_000, prev_hashes=(), chain_id=CHAIN_ID, base_fee_per_gas=0, excess_blob_gas=0)
    state = PragueState(AtomicDB(), context, BLANK_ROOT_HASH)
    state.set_balance(SENDER, balance)
    for address, code in (accounts or {}).items():
        state.set_code(address, code)
    state.persist()
    return state


def tx(state, to=b"", data=b"", value=0, gas=1_000_000, sender=SENDER):
    unsigned = PragueVM.get_transaction_builder().create_unsigned_transaction(
        nonce=state.get_nonce(sender), gas_price=GAS_PRICE, gas=gas, to=to, value=value, data=data)
    return SpoofTransaction(unsigned, from_=sender)
