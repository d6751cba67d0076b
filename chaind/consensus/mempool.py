"""Pending txs, ordered per sender by nonce; a higher fee replaces a tx of the same nonce.

A native tx with several signers is ordered by its first signer (the SDK's mempool does the same); each other
signer's sequence is a slot it holds too, which no other pending tx may use, and the tx is executable only
when every signer's account has reached its sequence.
Lives on the reactor thread. check_tx has already validated each tx against committed state.
"""

import attrs

from chaind.chain import errors


@attrs.define
class _Sender:
    """One sender's txs by nonce, and where its executable run of nonces starts and ends."""

    txs: dict = attrs.Factory(dict)     # nonce -> tx
    floor: int = 0                      # the sender's state nonce as last seen; no tx below it
    ready: int = 0                      # first nonce missing from `floor` on: txs below it are executable

    def advance(self):
        while self.ready in self.txs:
            self.ready += 1

    @property
    def queued(self):
        """Txs waiting behind a nonce gap."""
        return len(self.txs) - (self.ready - self.floor)


class Mempool:
    """Like geth's pool, a sender's executable txs are limited only by the pool's size, and its txs
    behind a nonce gap by max_queued_per_sender."""

    def __init__(self, settings):
        self.settings = settings
        self._senders = {}                                  # sender -> _Sender
        self._by_hash = {}                                  # native hash -> tx
        self._evm_hashes = {}                               # EVM hash -> tx
        self._cosigned = {}                                 # (address, sequence) -> tx, of non-first signers

    def __len__(self):
        return len(self._by_hash)

    def total_bytes(self):
        """Bytes of the txs held (CometBFT's mempool size_bytes)."""
        return sum(len(tx.raw) for tx in self._by_hash.values())

    def add(self, tx, state_nonce):
        """Add a checked tx (`state_nonce`: its sender's nonce in the state it was checked against);
        returns the tx it replaced, if any. Raises TxError when refused."""
        s = self.settings
        if tx.hash in self._by_hash:
            raise errors.already_known()
        if len(tx.raw) > s.max_tx_bytes:
            raise errors.tx_too_large(f"tx of {len(tx.raw)} bytes exceeds {s.max_tx_bytes}")
        sender = self._senders.get(tx.sender)
        if sender is None:
            sender = _Sender(floor=state_nonce, ready=state_nonce)
        elif state_nonce > sender.floor:
            self._drop_below(sender, state_nonce)
        if tx.nonce < sender.floor:
            # Checked against a state older than the block that has since used this nonce.
            raise errors.wrong_sequence(sender.floor, tx.nonce,
                                        f"nonce too low: next nonce {sender.floor}, tx nonce {tx.nonce}")
        old = sender.txs.get(tx.nonce)
        if old is not None:
            bump = 100 + s.price_bump
            if not (_fee(tx)[0] * 100 >= _fee(old)[0] * bump and _fee(tx)[1] * 100 >= _fee(old)[1] * bump):
                raise errors.insufficient_fee("replacement transaction underpriced",
                                              "replacement transaction underpriced")
        self._check_slots(tx, old)
        if old is not None:
            self._forget(old)
        elif len(self._by_hash) >= s.size:
            raise errors.mempool_full(f"mempool holds {s.size} txs")
        elif tx.nonce > sender.ready and sender.queued >= s.max_queued_per_sender:
            raise errors.mempool_full(f"sender has {s.max_queued_per_sender} txs queued behind a nonce gap")
        self._senders[tx.sender] = sender
        sender.txs[tx.nonce] = tx
        sender.advance()
        self._by_hash[tx.hash] = tx
        if tx.kind == "evm":
            self._evm_hashes[tx.evm_hash] = tx
        for slot in _cosigners(tx):
            self._cosigned[slot] = tx
        return old

    def _check_slots(self, tx, old):
        """No two pending txs use one account's sequence, whether as first signer or as another."""
        for address, sequence in _signed(tx):
            holder = self._cosigned.get((address, sequence))
            sender = self._senders.get(address)
            if holder is None and sender is not None and (address, sequence) != (tx.sender, tx.nonce):
                holder = sender.txs.get(sequence)
            if holder is not None and holder is not old:
                detail = f"sequence {sequence} of 0x{address.hex()} is used by pending tx {holder.hash.hex().upper()}"
                raise errors.TxError(errors.SDK, 32, f"{detail}: incorrect account sequence", detail)

    def get(self, tx_hash=None, evm_hash=None):
        return self._by_hash.get(tx_hash) if evm_hash is None else self._evm_hashes.get(evm_hash)

    def pending_nonce(self, sender, state_nonce):
        """The next nonce for `sender` counting its executable pending txs."""
        found = self._senders.get(sender)
        if found is None:
            return state_nonce
        if state_nonce == found.floor:
            return found.ready
        # A block has moved the state nonce and remove_committed has not run yet.
        nonce = state_nonce
        while nonce in found.txs:
            nonce += 1
        return nonce

    def select(self, nonce_of, limit, gas_limit):
        """Executable txs for the next block: per sender in nonce order, highest fee first; a tx with other
        signers waits until each of their accounts is at its sequence."""
        nonces = {}

        def nonce(address):
            if address not in nonces:
                nonces[address] = nonce_of(address)
            return nonces[address]

        heads = {}
        for address, sender in self._senders.items():
            if nonce(address) in sender.txs:
                heads[address] = nonce(address)
        chosen, gas, waiting = [], 0, {}     # waiting: heads whose other signers are not at their sequence yet
        while heads and len(chosen) < limit:
            address = max(heads, key=lambda a: (_fee(self._senders[a].txs[heads[a]]), -heads[a]))
            tx = self._senders[address].txs[heads[address]]
            if gas + tx.gas > gas_limit:
                del heads[address]
                continue
            if not all(nonce(a) == n for a, n in _cosigners(tx)):
                waiting[address] = heads.pop(address)
                continue
            chosen.append(tx)
            gas += tx.gas
            for signer, _ in _signed(tx):
                nonces[signer] += 1
                pending = self._senders.get(signer)
                if pending is not None and nonces[signer] in pending.txs:
                    heads[signer] = nonces[signer]
                else:
                    heads.pop(signer, None)
            for other, at in list(waiting.items()):
                del waiting[other]
                if at == nonce(other):      # not passed by a tx it co-signed meanwhile
                    heads[other] = at
        return chosen

    def remove_committed(self, nonce_of):
        """Drop txs whose nonce is now below their sender's state nonce."""
        for address in list(self._senders):
            sender = self._senders[address]
            self._drop_below(sender, nonce_of(address))
            if not sender.txs:
                del self._senders[address]
        # A block may have used another signer's sequence that a pending tx still counts on.
        stale = {tx.hash: tx for (address, sequence), tx in self._cosigned.items() if sequence < nonce_of(address)}
        for tx in stale.values():
            self.drop(tx)

    def txs(self):
        return list(self._by_hash.values())

    def drop(self, tx):
        """Take a pending tx out (a dev node's anvil_dropTransaction); its sender's later txs wait
        behind the gap it leaves."""
        self._forget(tx)
        sender = self._senders.get(tx.sender)
        if sender is not None:
            sender.ready = min(sender.ready, tx.nonce)
            if not sender.txs:
                del self._senders[tx.sender]

    def drop_above(self, gas_limit):
        """Take out the pending txs that want more gas than a block may use, as CometBFT's recheck does with
        PostCheckMaxGas once the consensus params lower max_gas: no block could carry them. Returns them."""
        above = [tx for tx in self._by_hash.values() if tx.gas > gas_limit]
        for tx in above:
            self.drop(tx)
        return above

    def clear(self):
        """Take every pending tx out; returns them."""
        txs = list(self._by_hash.values())
        self._senders.clear()
        self._by_hash.clear()
        self._evm_hashes.clear()
        self._cosigned.clear()
        return txs

    def remove(self, tx_hash):
        """Drop one tx by its native hash (CometBFT's recheck evicted it from the mempool we mirror)."""
        tx = self._by_hash.get(tx_hash)
        if tx is None:
            return
        self._forget(tx)
        sender = self._senders.get(tx.sender)
        if sender is not None and not sender.txs:
            del self._senders[tx.sender]

    def content(self):
        """{sender: {nonce: tx}} split into (pending, queued) as geth's txpool reports them."""
        return {address: dict(sorted(sender.txs.items())) for address, sender in self._senders.items()}

    def _drop_below(self, sender, nonce):
        """Raise the sender's floor to its state nonce `nonce`, dropping the txs below it."""
        if nonce <= sender.floor:
            return
        # Walk the used nonces rather than the whole queue: a block takes few of a long queue.
        if nonce - sender.floor <= len(sender.txs):
            stale = [sender.txs[n] for n in range(sender.floor, nonce) if n in sender.txs]
        else:
            stale = [tx for n, tx in sender.txs.items() if n < nonce]
        for tx in stale:
            self._forget(tx)
        sender.floor = nonce
        sender.ready = max(sender.ready, nonce)
        sender.advance()

    def _forget(self, tx):
        self._by_hash.pop(tx.hash, None)
        for slot in _cosigners(tx):
            if self._cosigned.get(slot) is tx:
                del self._cosigned[slot]
        if tx.kind == "evm":
            self._evm_hashes.pop(tx.evm_hash, None)
        sender = self._senders.get(tx.sender)
        if sender is not None and sender.txs.get(tx.nonce) is tx:
            del sender.txs[tx.nonce]


def _signed(tx):
    """(address, sequence) of each signer of a tx, first signer first."""
    if tx.kind == "evm":
        return [(tx.sender, tx.nonce)]
    return [(s.address, s.sequence) for s in tx.signers]


def _cosigners(tx):
    """(address, sequence) of the signers after the first."""
    return _signed(tx)[1:]


def _fee(tx):
    """(fee cap, tip cap) per gas."""
    if tx.kind == "evm":
        return tx.max_fee, tx.max_tip
    price = sum(a for _, a in tx.fee) // max(tx.gas, 1)
    return price, price
