"""The EVM accounts each committed block wrote, remembered under the state root it made: the next block's check and
execution, and queries at the head, read their sender's and recipient's records without walking the account trie.

A root names the whole state, so a record kept under it is true for any store that holds that root.
"""

import collections
import threading

# Records kept (a block writes a handful: sender, recipient, fee collector, module accounts); the oldest go first.
KEPT = 4096
_records = collections.OrderedDict()      # (state root, address) -> the account's RLP (b"": no account)
_lock = threading.Lock()


def remember(root, records):
    """Keep `records` ({address: RLP, b"" for a deleted account}) as the accounts under state root `root`."""
    with _lock:
        for address, encoded in records.items():
            _records[(root, address)] = encoded
        while len(_records) > KEPT:
            _records.popitem(last=False)


def get(root, address):
    """The account RLP of `address` under `root` (b"" when it has none), or None when no block here wrote it."""
    return _records.get((root, address))
