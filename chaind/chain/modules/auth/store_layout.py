"""auth's records as x/auth v0.50 lays them out in its IAVL store, "acc" (keeper.go's collections): the accounts
0x01 | address -> the account's Any, which the app writes in the SDK's form itself (their sequence is the EVM
nonce), so chaind's own account records stay out of the tree; the account-number index "accountNumber" |
big-endian number -> address (a Unique index), and the next account number 0x02 (a Sequence: big-endian uint64).
"""

import orjson

STORE = "acc"
_ACCOUNT = b"\x04acct"
_NEXT = b"\x04next"
NUMBER_INDEX = b"accountNumber"


def account(address):
    """x/auth's account key: 0x01 | address."""
    return b"\x01" + address


def entries(rest, value):
    """[(key in the acc store, value or None to delete)] of an auth native key (`rest`: the key after its module
    part), or None for a key kept as it is."""
    if rest.startswith(_ACCOUNT):
        if value is None:
            # Accounts are never removed, so no index entry goes with a deletion.
            return []
        number = orjson.loads(value)[0]
        return [(NUMBER_INDEX + number.to_bytes(8, "big"), rest[len(_ACCOUNT) + 1:])]
    if rest == _NEXT:
        return [(b"\x02", None if value is None else int(value).to_bytes(8, "big"))]
    return None


def layout(bech32_prefix):
    return entries
