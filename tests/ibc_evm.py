"""EVM steps on the chains of an ibc_chains.Pair: an EVM tx in a block of the pair's clock, and eth_call at the latest
height, with the calldata of a Solidity signature."""

from eth_abi import encode
from eth_account import Account
from eth_utils import keccak

import ibc_chains as ic
from chain_driver import PROPOSER
from chaind.api.calls import CallRunner
from chaind.chain import txs


def calldata(signature, *args):
    """A call's data: the selector of `signature` and its arguments ABI-encoded (tuples as written in it)."""
    inside = signature[signature.index("(") + 1:-1]
    if not inside:
        return keccak(signature.encode())[:4]
    return keccak(signature.encode())[:4] + encode(_types(inside), list(args))


def _types(inside):
    """The top-level types of a signature's argument list (a tuple's commas kept inside it)."""
    out, depth, start = [], 0, 0
    for i, char in enumerate(inside):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            out.append(inside[start:i])
            start = i + 1
    return out + [inside[start:]]


def eth_call(chain, to, data, sender=None):
    """eth_call at `chain`'s latest height; the output bytes."""
    found = {"to": "0x" + to.hex(), "data": "0x" + data.hex()}
    if sender is not None:
        found["from"] = "0x" + sender.hex()
    return bytes.fromhex(CallRunner(chain.app, 0, 10).call(found, chain.app.view(), {})[2:])


def evm_block(pair, chain, who, data, to=None, gas=400_000):
    """A block on `chain` (an empty one on the other) of one EVM tx by dev key `who`: a call of `to` (checksum
    address), or a create without it; the tx's result."""
    pair.clock += ic.S
    (pair.b if chain is pair.a else pair.a).block(pair.clock)
    key, genesis = chain.chain.keys[who], chain.genesis
    tx = {"chainId": genesis.evm_chain_id, "gas": gas, "maxFeePerGas": 10**10, "maxPriorityFeePerGas": 1,
          "nonce": chain.app.view().accounts.get_nonce(key.address), "data": data}
    if to is not None:
        tx["to"] = to
    raw = txs.wrap_evm(Account.sign_transaction(tx, key.private_key).raw_transaction, genesis.evm_chain_id,
                       genesis.base_denom).raw
    block, puts = chain.app.finalize_block([raw], pair.clock, PROPOSER)
    chain.app.commit(block, puts)
    return block.results[0]
