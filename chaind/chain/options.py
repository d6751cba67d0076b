"""App's settings, given once when it is built (node.py makes them of its config): pruning and caches, which txs
it admits, upgrade handlers, invariant checks, the validator key that signs the commits of the blocks it makes."""

import hashlib
import types
from collections.abc import Callable, Mapping

import attrs
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

# An upgrade handler: handler(app, ctx, plan, module versions) -> the new module versions (chain/modules/upgrade/).
UpgradeHandler = Callable[..., Mapping[str, int]]


def _read_only(handlers: Mapping[str, UpgradeHandler]) -> Mapping[str, UpgradeHandler]:
    return types.MappingProxyType(dict(handlers))


@attrs.frozen
class AppOptions:
    pruning: int = 0                    # heights of state kept below the head (0: every height)
    prune_interval: int = 100           # every how many blocks a pruning pass runs, and how far it trails the window
    iavl_cache_nodes: int = 150_000     # IAVL nodes the multistore keeps decoded
    subspace_max_keys: int = 10_000     # keys of one params subspace read at most
    state_cache_keys: int = 100_000     # native keys of the head's state kept in memory
    # The node's [json-rpc] allow-unprotected-txs: eth_sendRawTransaction takes unprotected txs (the evm param
    # allow_unprotected_txs decides whether the chain runs them).
    allow_unprotected: bool = False
    # Unsigned txs of impersonated accounts may run: a dev chain, whose node serves the dev namespace.
    allow_impersonated: bool = False
    check_invariants_every: int = 0     # crisis checks every invariant every this many blocks (0: never)
    # The upgrade handlers this binary has, by plan name.
    upgrade_handlers: Mapping[str, UpgradeHandler] = attrs.field(factory=dict, converter=_read_only)
    # A handler for a plan not yet due stops the chain (the SDK's check); a replay of the whole history has them.
    refuse_early_upgrades: bool = True
    # The validator that signs precommits; without one, the commits this node makes carry no signatures.
    vote_key: Ed25519PrivateKey | None = None
    validator_address: bytes = b""
    # The app hash a new store's genesis record holds, which InitChain answers and the first header carries (as its
    # app hash and its last results hash): baseapp's SHA-256 of nothing, as CometBFT and the SDK make it. Chains made
    # before 2026-11-28 hold an empty one; `chaind replay` passes the replayed chain's own (chain/replay.py).
    genesis_app_hash: bytes = hashlib.sha256(b"").digest()
