"""auth's state: account numbers and public keys. An account's sequence is its EVM nonce."""

import orjson

from chaind.crypto.addresses import module_address
from chaind.crypto.keys import ETH_SECP256K1
from chaind.store.keys import compose

# x/auth's own module account: the fees of every tx (and the EVM's coinbase) land here.
FEE_COLLECTOR = module_address("fee_collector")

NEXT_NUMBER = compose("auth", "next")
_ACCOUNTS = compose("auth", "acct")


def _key(address):
    return compose("auth", "acct", address)


def account(state, address):
    """(account_number, compressed pubkey or b"") of a known account, else None."""
    raw = state.store.get(_key(address))
    if raw is None:
        return None
    number, pubkey = orjson.loads(raw)[:2]
    return number, bytes.fromhex(pubkey)


def key_type(state, address):
    """The kind of key (crypto.keys.ETH_SECP256K1 or SECP256K1) an account signs with, None before its first tx."""
    raw = state.store.get(_key(address))
    if raw is None:
        return None
    record = orjson.loads(raw)
    if not record[1]:
        return None
    return record[2] if len(record) > 2 else ETH_SECP256K1


def ensure_account(state, address):
    """The account's number, creating the account (next number) if it is new."""
    found = account(state, address)
    if found is not None:
        return found[0]
    raw = state.store.get(NEXT_NUMBER)
    number = int(raw) if raw else 0
    state.store.set(NEXT_NUMBER, str(number + 1).encode())
    state.store.set(_key(address), orjson.dumps([number, ""]))
    return number


def set_public_key(state, address, pubkey, kind=ETH_SECP256K1):
    number = ensure_account(state, address)
    state.store.set(_key(address), orjson.dumps([number, pubkey.hex(), kind]))


def sequence(state, address):
    return state.accounts.get_nonce(address)


def all_addresses(state):
    """The address of every account, in byte order (all are 20 bytes: one length byte precedes each)."""
    for key, _ in state.store.iterate(_ACCOUNTS):
        yield key[len(_ACCOUNTS) + 1:]
