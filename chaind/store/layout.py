"""Where a native module key lives in the multistore: its store's name and its key in that store's IAVL tree.

Native keys are `keys.compose(module, ...)`. Each module declares its store (the SDK's store key: auth's is "acc")
and its layout (chain/module.py's Store): the entries in the SDK's layout of the keys light clients read (bank's
balances, staking's records, slashing's signing infos...), each in the module's store_layout.py; every other key
is the rest of the native key, in the store named as the module. A Layout is built from what the registry's
modules declare (chain/module.py's stores_of).
"""

from collections.abc import Callable, Mapping

# A module's layout: entries(rest of a native key after its module part, new value or None when deleted) ->
# [(key in the module's IAVL store, value or None to delete)], or None to keep the key as it is.
Entries = Callable[[bytes, bytes | None], list | None]


class Layout:
    """The stores of the modules, by module name: {module name as bytes: (store name, Entries or None)}; a module
    not listed has a store named as it, its keys as they are."""

    def __init__(self, stores: Mapping[bytes, tuple[str, Entries | None]] | None = None) -> None:
        self._stores = dict(stores or {})

    def store_name(self, module: str) -> str:
        found = self._stores.get(module.encode())
        return module if found is None else found[0]

    def locate(self, native_key: bytes) -> list:
        """[(store name, key in its tree)] of a native module key (as its deletion places it): none for a key the
        tree does not hold."""
        return [(store, key) for store, entries in self.place({native_key: None}).items() for key, _ in entries]

    def place(self, changes: Mapping[bytes, bytes | None]) -> dict[str, list]:
        """{store name: [(key in its tree, value or None to delete)]} of native module keys' changes ({native key:
        new value, None when deleted})."""
        by_store: dict[str, list] = {}
        stores = self._stores
        # (store's entries so far, the module's Entries) by module, worked out once per module
        found_for: dict[bytes, tuple[list, Entries | None]] = {}
        for native_key, value in changes.items():
            end = 1 + native_key[0]
            module = native_key[1:end]
            found = found_for.get(module)
            if found is None:
                name, placer = stores.get(module) or (module.decode(), None)
                entries = by_store.get(name)
                if entries is None:
                    entries = by_store[name] = []
                found = found_for[module] = (entries, placer)
            entries, placer = found
            if placer is not None:
                placed = placer(native_key[end:], value)
                if placed is not None:
                    entries.extend(placed)
                    continue
            entries.append((native_key[end:], value))
        return by_store
