"""The txpool_* method table: the mempool's EVM txs as geth reports them, pending vs queued.

Pending txs are executable now (their nonces follow the sender's state nonce without a gap);
queued txs wait behind a gap.
"""

from chaind.api import encoding as enc
from chaind.api import params as p


class TxPoolApi:
    def __init__(self, app, mempool):
        self.app = app
        self.mempool = mempool

    def methods(self):
        return {
            "txpool_status": self.status,
            "txpool_content": self.content,
            "txpool_contentFrom": self.content_from,
            "txpool_inspect": self.inspect,
        }

    def _split(self, only=None):
        """{"pending": {sender: {nonce: tx}}, "queued": {...}} for EVM txs."""
        accounts = self.app.view().accounts
        out = {"pending": {}, "queued": {}}
        for sender, queue in self.mempool.content().items():
            if only is not None and sender != only:
                continue
            executable = self.mempool.pending_nonce(sender, accounts.get_nonce(sender))
            for nonce, tx in queue.items():
                if tx.kind == "evm":
                    side = "pending" if nonce < executable else "queued"
                    out[side].setdefault(sender, {})[nonce] = tx
        return out

    def status(self, params):
        p.at_most(params, 0)
        split = self._split()
        return {side: enc.q(sum(len(txs) for txs in split[side].values())) for side in split}

    def content(self, params):
        p.at_most(params, 0)
        return _render(self._split(), enc.transaction)

    def content_from(self, params):
        p.at_most(params, 1)
        sender = p.address(p.arg(params, 0), 0)
        split = self._split(only=sender)
        return {side: {str(n): enc.transaction(tx) for n, tx in split[side].get(sender, {}).items()} for side in split}

    def inspect(self, params):
        p.at_most(params, 0)
        return _render(self._split(), _summary)


def _render(split, render_tx):
    return {side: {enc.addr(sender): {str(nonce): render_tx(tx) for nonce, tx in txs.items()}
                   for sender, txs in senders.items()}
            for side, senders in split.items()}


def _summary(tx):
    """geth's one-line form: '<to>: <value> wei + <gas> gas × <fee cap> wei'."""
    e = tx.evm
    to = enc.addr(e.to) if e.to else "contract creation"
    return f"{to}: {e.value} wei + {e.gas} gas × {tx.max_fee} wei"
