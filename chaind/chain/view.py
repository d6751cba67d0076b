"""A read-only view of committed state at one height: native store plus EVM accounts."""

import attrs
from eth.db.account import AccountDB
from eth.db.atomic import AtomicDB

from chaind.store.evm_state import CommittedNodes
from chaind.store.versioned import VersionedReader


@attrs.frozen
class StateView:
    """What services read: `store` (native modules) and `accounts` (py-evm balances, nonces, code).

    The writer's in-progress block offers the same two attributes.
    """

    height: int
    store: object
    accounts: object

    @classmethod
    def committed(cls, db, height, evm_state_root):
        return cls(height, VersionedReader(db, height),
                   AccountDB(AtomicDB(CommittedNodes(db)), evm_state_root))
