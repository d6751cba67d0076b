"""The py-evm account database on LevelDB: trie nodes and code are kept by hash.

Nodes are never overwritten, so the state of any kept height is read through its root.
"""

from eth.db.atomic import AtomicDB
from eth.db.backends.base import BaseDB

from chaind.store import keys


class CommittedNodes(BaseDB):
    """Trie nodes as committed on disk; read-only."""

    def __init__(self, db):
        self._db = db

    def __getitem__(self, key):
        value = self._db.get(keys.EVM_NODE + key)
        if value is None:
            raise KeyError(key)
        return value

    def _exists(self, key):
        return self._db.get(keys.EVM_NODE + key) is not None

    def __setitem__(self, key, value):
        raise TypeError("committed state is read-only")

    def __delitem__(self, key):
        raise TypeError("committed state is read-only")


class PendingNodes(CommittedNodes):
    """Nodes written while executing, held in memory on top of the committed ones.

    The block writer drains them into the block's write batch; an eth_call just drops them.
    """

    def __init__(self, db):
        super().__init__(db)
        self.written = {}

    def __getitem__(self, key):
        try:
            return self.written[key]
        except KeyError:
            return super().__getitem__(key)

    def _exists(self, key):
        return key in self.written or super()._exists(key)

    def __setitem__(self, key, value):
        self.written[key] = value

    def __delitem__(self, key):
        # Nodes are shared between heights: only a pruning pass (store/pruning.py) may delete them.
        pass

    def batch_puts(self):
        return {keys.EVM_NODE + key: value for key, value in self.written.items()}


def pending_state_db(db):
    """An AtomicDB for py-evm whose writes stay in memory until committed."""
    pending = PendingNodes(db)
    return pending, AtomicDB(pending)
