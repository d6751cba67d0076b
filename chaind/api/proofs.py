"""EIP-1186 Merkle proofs (eth_getProof) from the committed EVM state trie.

Proof nodes are the RLP encodings of the trie nodes on the path to the key, root first.
"""

import rlp
from eth.rlp.accounts import Account
from eth_utils import keccak
from trie import HexaryTrie

from chaind import errors
from chaind.api import encoding as enc
from chaind.api import params as p
from chaind.store.evm_state import CommittedNodes

EMPTY_CODE_HASH = keccak(b"")
EMPTY_ROOT = HexaryTrie.BLANK_NODE_HASH


def storage_slot(value, index):
    """A storage key as geth decodes it: hex of at most 32 bytes, left-padded (odd length allowed)."""
    if not isinstance(value, str) or not p.is_hex(value):
        raise errors.invalid_argument(f"invalid argument {index}: hex string without 0x prefix")
    digits = value[2:]
    if len(digits) > 64:
        raise errors.invalid_argument(f"invalid argument {index}: hex string too long, want at most 32 bytes")
    return int(digits or "0", 16)


def account_proof(db, state_root, address, keys):
    """The eth_getProof result for `address` and `keys` [(as given, slot int)] at `state_root`."""
    nodes = CommittedNodes(db)
    state = HexaryTrie(nodes, state_root)
    key = keccak(address)
    encoded = state.get(key)
    account = rlp.decode(encoded, sedes=Account) if encoded else Account(0, 0, EMPTY_ROOT, EMPTY_CODE_HASH)
    storage = HexaryTrie(nodes, account.storage_root)
    storage_proof = []
    for given, slot in keys:
        slot_key = keccak(slot.to_bytes(32, "big"))
        raw = storage.get(slot_key)
        storage_proof.append({
            "key": given,
            "value": enc.q(rlp.decode(raw, sedes=rlp.sedes.big_endian_int) if raw else 0),
            "proof": _encoded(storage.get_proof(slot_key)) if account.storage_root != EMPTY_ROOT else [],
        })
    return {
        "address": enc.addr(address),
        "accountProof": _encoded(state.get_proof(key)),
        "balance": enc.q(account.balance),
        "codeHash": enc.d(account.code_hash),
        "nonce": enc.q(account.nonce),
        "storageHash": enc.d(account.storage_root),
        "storageProof": storage_proof,
    }


def _encoded(nodes):
    return [enc.d(rlp.encode(node)) for node in nodes]
