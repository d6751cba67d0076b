"""Pending txs, ordered per sender by nonce; a higher fee replaces a tx of the same nonce.

Lives on the reactor thread. check_tx has already validated each tx against committed state.
"""

import collections

from chaind.chain import errors


class Mempool:
    def __init__(self, settings):
        self.settings = settings
        self._by_sender = collections.defaultdict(dict)   # sender -> nonce -> tx
        self._by_hash = {}                                  # native hash -> tx
        self._evm_hashes = {}                               # EVM hash -> tx

    def __len__(self):
        return len(self._by_hash)

    def add(self, tx):
        """Add a checked tx; returns the tx it replaced, if any. Raises TxError when refused."""
        s = self.settings
        if tx.hash in self._by_hash:
            raise errors.already_known()
        if len(tx.raw) > s.max_tx_bytes:
            raise errors.tx_too_large(f"tx of {len(tx.raw)} bytes exceeds {s.max_tx_bytes}")
        queue = self._by_sender[tx.sender]
        old = queue.get(tx.nonce)
        if old is not None:
            bump = 100 + s.price_bump
            if not (_fee(tx)[0] * 100 >= _fee(old)[0] * bump and _fee(tx)[1] * 100 >= _fee(old)[1] * bump):
                raise errors.insufficient_fee("replacement transaction underpriced",
                                              "replacement transaction underpriced")
            self._forget(old)
        elif len(self._by_hash) >= s.size:
            raise errors.mempool_full(f"mempool holds {s.size} txs")
        elif len(queue) >= s.max_per_sender:
            raise errors.mempool_full(f"sender has {s.max_per_sender} pending txs")
        queue[tx.nonce] = tx
        self._by_hash[tx.hash] = tx
        if tx.kind == "evm":
            self._evm_hashes[tx.evm_hash] = tx
        return old

    def get(self, tx_hash=None, evm_hash=None):
        return self._by_hash.get(tx_hash) if evm_hash is None else self._evm_hashes.get(evm_hash)

    def pending_nonce(self, sender, state_nonce):
        """The next nonce for `sender` counting its executable pending txs."""
        queue = self._by_sender.get(sender, {})
        nonce = state_nonce
        while nonce in queue:
            nonce += 1
        return nonce

    def select(self, nonce_of, limit, gas_limit):
        """Executable txs for the next block: per sender in nonce order, highest fee first."""
        heads = {}
        for sender, queue in self._by_sender.items():
            nonce = nonce_of(sender)
            if nonce in queue:
                heads[sender] = nonce
        chosen, gas = [], 0
        while heads and len(chosen) < limit:
            sender = max(heads, key=lambda s: (_fee(self._by_sender[s][heads[s]]), -heads[s]))
            tx = self._by_sender[sender][heads[sender]]
            if gas + tx.gas <= gas_limit:
                chosen.append(tx)
                gas += tx.gas
                nxt = heads[sender] + 1
                if nxt in self._by_sender[sender]:
                    heads[sender] = nxt
                    continue
            del heads[sender]
        return chosen

    def remove_committed(self, nonce_of):
        """Drop txs whose nonce is now below their sender's state nonce."""
        for sender in list(self._by_sender):
            nonce = nonce_of(sender)
            queue = self._by_sender[sender]
            for stale in [n for n in queue if n < nonce]:
                self._forget(queue[stale])
            if not queue:
                del self._by_sender[sender]

    def content(self):
        """{sender: {nonce: tx}} split into (pending, queued) as geth's txpool reports them."""
        return {sender: dict(sorted(queue.items())) for sender, queue in self._by_sender.items()}

    def _forget(self, tx):
        self._by_hash.pop(tx.hash, None)
        if tx.kind == "evm":
            self._evm_hashes.pop(tx.evm_hash, None)
        queue = self._by_sender.get(tx.sender)
        if queue is not None and queue.get(tx.nonce) is tx:
            del queue[tx.nonce]


def _fee(tx):
    """(fee cap, tip cap) per gas."""
    if tx.kind == "evm":
        return tx.max_fee, tx.max_tip
    price = sum(a for _, a in tx.fee) // max(tx.gas, 1)
    return price, price
