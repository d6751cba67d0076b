"""Where a native module key lives in the multistore: its store's name and its key in that store's IAVL tree.

Native keys are `keys.compose(module, ...)`. The store is the module's SDK store key (auth's is "acc");
the key is the rest of the native key, except where the SDK v0.50 layout is known and light clients
read it: bank balances (0x02 | len(address) | address | denom) and supplies (0x00 | denom), whose values
(the amount in decimal, as math.Int marshals) are already the SDK's; auth accounts (0x01 | address,
an Any), which the app writes in the SDK's form itself (their sequence is the EVM nonce), so chaind's own
account records stay out of the tree; slashing's params (0x00) and signing infos (0x01 | len | address) and
evidence's equivocations (0x00 | hash), whose values are the SDK's protos already; slashing's missed-block bitmap
chunks (0x02 | len | address | chunk index), whose values are the SDK's bitsets; x/consensus's params (the
collections Item "Consensus", a ConsensusParams). The evm module's params live in a store of their own,
`evmparams` (Evmos keeps them at 0x03 in its evm store), since this multistore's `evm` entry is the EVM state root.
"""

ACC = "acc"
BANK = "bank"
_STORE_OF_MODULE = {"auth": ACC, "evm": "evmparams"}
_BANK_BALANCE = b"\x03bal"
_BANK_SUPPLY = b"\x06supply"
_AUTH_ACCOUNT = b"\x04acct"
_SLASHING_PARAMS = b"\x06params"
_SLASHING_INFO = b"\x02si"
_SLASHING_MISSED = b"\x06missed"
_EVIDENCE = b"\x02ev"
_CONSENSUS_PARAMS = b"\x06params"
_EVM_PARAMS = b"\x06params"


def bank_balance(address, denom):
    """x/bank's balance key: 0x02 | len(address) | address | denom."""
    return b"\x02" + bytes((len(address),)) + address + denom.encode()


def account(address):
    """x/auth's account key: 0x01 | address."""
    return b"\x01" + address


def store_name(module):
    return _STORE_OF_MODULE.get(module, module)


def locate(native_key):
    """(store name, key in its tree) of a native module key, or None for a key the tree does not hold."""
    end = 1 + native_key[0]
    module = native_key[1:end].decode()
    rest = native_key[end:]
    if module == "bank":
        if rest.startswith(_BANK_BALANCE):
            # compose's parts: address then denom, each length-prefixed
            at = len(_BANK_BALANCE)
            address = rest[at + 1:at + 1 + rest[at]]
            return BANK, b"\x02" + bytes((len(address),)) + address + rest[at + 2 + len(address):]
        if rest.startswith(_BANK_SUPPLY):
            return BANK, b"\x00" + rest[len(_BANK_SUPPLY) + 1:]
    if module == "slashing":
        # x/slashing's params (0x00) and signing infos (0x01 | len | consensus address), both the SDK's protos.
        if rest == _SLASHING_PARAMS:
            return store_name(module), b"\x00"
        if rest.startswith(_SLASHING_INFO):
            return store_name(module), b"\x01" + rest[len(_SLASHING_INFO):]
        if rest.startswith(_SLASHING_MISSED):
            # compose's parts: the consensus address, then the chunk index (8 bytes, big-endian), each
            # length-prefixed; the SDK's key prefixes the address only.
            at = len(_SLASHING_MISSED)
            end = at + 1 + rest[at]
            return store_name(module), b"\x02" + rest[at:end] + rest[end + 1:]
    if module == "evidence" and rest.startswith(_EVIDENCE):
        # x/evidence's equivocations: 0x00 | hash, an Any (the SDK's interface value).
        return store_name(module), b"\x00" + rest[len(_EVIDENCE) + 1:]
    if module == "consensus" and rest == _CONSENSUS_PARAMS:
        return store_name(module), b"Consensus"
    if module == "evm" and rest == _EVM_PARAMS:
        return store_name(module), b"\x03"
    if module == "auth" and rest.startswith(_AUTH_ACCOUNT):
        return None
    return store_name(module), rest
