"""Random signed EVM txs of each type for the check path's tests: fields, their RLP, a signature over py-evm's
own signing message (so that the message is not the code under test's)."""

import coincurve
import rlp
from eth.vm.forks.prague import PragueVM
from eth_hash.auto import keccak

CHAIN_ID = 9000
GAS = {0: 2, 1: 3, 2: 4}           # where each type's gas limit is in its fields
BUILDER = PragueVM.get_transaction_builder()


def fields(rng, type_id, chain_id=CHAIN_ID, big=False, access=None):
    """The fields before the signature, random; `big`: integers past their uint limits now and then;
    `access`: whether the tx has an access list (None: at random)."""
    def number(bits):
        return rng.choice([0, 1, rng.getrandbits(bits), 2**bits - 1] + ([2**bits, 2**(bits + 8)] if big else []))
    to = rng.choice([b"", rng.randbytes(20)])
    data = rng.choice([b"", b"\0", rng.randbytes(rng.randrange(1, 60)), rng.randbytes(rng.randrange(60, 400))])
    common = [to, number(256), data]
    entries = rng.choice([0, 0, 1, 3]) if access is None else rng.choice([1, 3]) if access else 0
    accesses = [[rng.randbytes(20), [rng.randbytes(32) for _ in range(rng.randrange(3))]] for _ in range(entries)]
    gas = rng.choice([0, 21000, 53000, rng.randrange(21000, 10**7), 2**64 - 1] + ([2**256] if big else []))
    nonce = rng.choice([0, 1, rng.getrandbits(64), 2**64 - 2, 2**64 - 1] + ([2**64, 2**70] if big else []))
    if type_id == 0:
        return [nonce, number(256), gas, *common]
    if type_id == 1:
        return [chain_id, nonce, number(256), gas, *common, accesses]
    return [chain_id, nonce, number(256), number(256), gas, *common, accesses]


def encode(type_id, fields, v, r, s):
    return (bytes((type_id,)) if type_id else b"") + rlp.encode([*fields, v, r, s])


def signature(rng, type_id, fields, legacy_chain_id=None):
    """(v or y_parity, r, s) of `fields` signed by a random key; a legacy tx's v is EIP-155's for
    `legacy_chain_id`, or 27/28 without one."""
    placeholder_v = (27 if legacy_chain_id is None else 35 + 2 * legacy_chain_id) if type_id == 0 else 0
    message = BUILDER.decode(encode(type_id, fields, placeholder_v, 1, 1)).get_message_for_signing()
    signed = coincurve.PrivateKey(rng.randbytes(32)).sign_recoverable(keccak(message), hasher=None)
    return placeholder_v + signed[64], int.from_bytes(signed[:32], "big"), int.from_bytes(signed[32:64], "big")


def signed(rng, type_id, **kwargs):
    """A random tx of `type_id`, signed (an EIP-155 one half the time for a legacy tx)."""
    chosen = fields(rng, type_id, **kwargs)
    legacy_chain_id = rng.choice([None, CHAIN_ID]) if type_id == 0 else None
    return encode(type_id, chosen, *signature(rng, type_id, chosen, legacy_chain_id))
