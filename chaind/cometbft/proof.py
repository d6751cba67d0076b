"""Merkle inclusion proofs of a tx in its block's data_hash, as CometBFT's TxProof (crypto/merkle)."""

import hashlib

from chaind.cometbft.encode import b64, hexu


def _leaf(item):
    return hashlib.sha256(b"\x00" + item).digest()


def _inner(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def _root_and_aunts(items, index):
    """(root, aunts of items[index], bottom-up) of CometBFT's simple Merkle tree."""
    if len(items) == 1:
        return _leaf(items[0]), []
    split = 1 << ((len(items) - 1).bit_length() - 1)
    if index < split:
        left, aunts = _root_and_aunts(items[:split], index)
        right, _ = _root_and_aunts(items[split:], 0)
        return _inner(left, right), aunts + [right]
    left, _ = _root_and_aunts(items[:split], 0)
    right, aunts = _root_and_aunts(items[split:], index - split)
    return _inner(left, right), aunts + [left]


def tx_proof(txs, index):
    """The `proof` of ResultTx for txs[index]: leaves are the SHA-256 of each tx."""
    leaves = [hashlib.sha256(t).digest() for t in txs]
    root, aunts = _root_and_aunts(leaves, index)
    return {"root_hash": hexu(root), "data": b64(txs[index]),
            "proof": {"total": str(len(txs)), "index": str(index), "leaf_hash": b64(_leaf(leaves[index])),
                      "aunts": [b64(a) for a in aunts]}}
