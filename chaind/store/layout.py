"""Where a native module key lives in the multistore: its store's name and its key in that store's IAVL tree.

Native keys are `keys.compose(module, ...)`. The store is the module's SDK store key (auth's is "acc");
the key is the rest of the native key, except where the SDK v0.50 layout is known and light clients
read it. A module may place its keys itself (a mirror, `place`'s `mirrors`: bank, auth and staking, each in
its store_layout.py, whose values need the chain's bech32 prefix or SDK protos); here: bank's supplies
(0x00 | denom), whose values (the amount in decimal, as math.Int marshals) are already the SDK's; auth
accounts (0x01 | address, an Any), which the app writes in the SDK's form itself (their sequence is the EVM
nonce), so chaind's own account records stay out of the tree; slashing's params (0x00) and signing infos
(0x01 | len | address) and evidence's equivocations (0x00 | hash), whose values are the SDK's protos already;
slashing's missed-block bitmap chunks (0x02 | len | address | chunk index), whose values are the SDK's
bitsets; x/consensus's params (the collections Item "Consensus", a ConsensusParams). The evm module's params live in a
store of their own, `evmparams` (Evmos keeps them at 0x03 in its evm store), since this multistore's `evm`
entry is the EVM state root.
"""

ACC = "acc"
BANK = "bank"
_STORE_OF_MODULE = {"auth": ACC, "evm": "evmparams"}
_BANK_SUPPLY = b"\x06supply"
_AUTH_ACCOUNT = b"\x04acct"
_SLASHING_PARAMS = b"\x06params"
_SLASHING_INFO = b"\x02si"
_SLASHING_MISSED = b"\x06missed"
_EVIDENCE = b"\x02ev"
_CONSENSUS_PARAMS = b"\x06params"
_EVM_PARAMS = b"\x06params"
# The modules some of whose keys are placed otherwise than as the rest of the key in the module's store (locate's
# cases below); every other module's key is just that.
_PLACED_APART = frozenset({b"bank", b"slashing", b"evidence", b"consensus", b"evm", b"auth"})


def account(address):
    """x/auth's account key: 0x01 | address."""
    return b"\x01" + address


def store_name(module):
    return _STORE_OF_MODULE.get(module, module)


def locate(native_key):
    """(store name, key in its tree) of a native module key, or None for a key the tree does not hold."""
    end = 1 + native_key[0]
    module = native_key[1:end]
    rest = native_key[end:]
    if module not in _PLACED_APART:
        return store_name(module.decode()), rest
    module = module.decode()
    if module == "bank" and rest.startswith(_BANK_SUPPLY):
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


def place(changes, mirrors):
    """{store name: [(key in its tree, value or None to delete)]} of native module keys' changes ({native key:
    new value, None when deleted}). `mirrors`: {module name as bytes: entries(rest of the key, value) ->
    [(key, value)], or None to leave the key to `locate`}."""
    by_store = {}
    names = {}

    def entries_of(module):
        """The changes of `module`'s own store so far (its name worked out once)."""
        name = names.get(module)
        if name is None:
            name = names[module] = store_name(module.decode())
        entries = by_store.get(name)
        if entries is None:
            entries = by_store[name] = []
        return entries

    for native_key, value in changes.items():
        end = 1 + native_key[0]
        module = native_key[1:end]
        mirror = mirrors.get(module)
        if mirror is not None:
            found = mirror(native_key[end:], value)
            if found is not None:
                entries_of(module).extend(found)
                continue
        if module not in _PLACED_APART:
            # locate's answer for these modules' keys, without its call (distribution writes every validator's
            # record each block).
            entries_of(module).append((native_key[end:], value))
            continue
        found = locate(native_key)
        if found is not None:
            entries = by_store.get(found[0])
            if entries is None:
                entries = by_store[found[0]] = []
            entries.append((found[1], value))
    return by_store

