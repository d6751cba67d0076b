"""Where a native module key lives in the multistore: its store's name and its key in that store's IAVL tree.

Native keys are `keys.compose(module, ...)`. The store is the module's SDK store key (auth's is "acc");
the key is the rest of the native key, except where the SDK's own layout is known and light clients
read it: bank balances (0x02 | len(address) | address | denom) and supplies (0x00 | denom), whose values
(the amount in decimal, as math.Int marshals) are already the SDK's.
"""

from chaind.store import keys

_STORE_OF_MODULE = {"auth": "acc"}
_BANK_BALANCE = b"\x03bal"
_BANK_SUPPLY = b"\x06supply"


def bank_balance_key(address, denom):
    """The native key of a bank balance (chain/modules/bank's)."""
    return keys.compose("bank", "bal", address, denom)


def store_name(module):
    return _STORE_OF_MODULE.get(module, module)


def locate(native_key):
    """(store name, key in its tree) of a native module key."""
    end = 1 + native_key[0]
    module = native_key[1:end].decode()
    rest = native_key[end:]
    if module == "bank":
        if rest.startswith(_BANK_BALANCE):
            # compose's parts: address then denom, each length-prefixed
            at = len(_BANK_BALANCE)
            address = rest[at + 1:at + 1 + rest[at]]
            denom = rest[at + 2 + len(address):]
            return "bank", b"\x02" + bytes((len(address),)) + address + denom
        if rest.startswith(_BANK_SUPPLY):
            return "bank", b"\x00" + rest[len(_BANK_SUPPLY) + 1:]
    return store_name(module), rest
