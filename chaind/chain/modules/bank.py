"""bank: balances per denom, and MsgSend / MsgMultiSend.

The base denom's balance is the EVM balance: one source of truth.
"""

import functools

from chaind.chain import errors
from chaind.chain.block import event
from chaind.chain.msgs import MsgHandler
from chaind.crypto.addresses import AddressError, parse, to_bech32
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2
from chaind.store.keys import compose

CODESPACE = "bank"


# Every tx's events name its sender and recipient in bech32; the same addresses recur block after block.
_bech32 = functools.lru_cache(maxsize=16384)(to_bech32)


def _balance_key(address, denom):
    return compose("bank", "bal", address, denom)


def _supply_key(denom):
    return compose("bank", "supply", denom)


class Bank:
    def __init__(self, base_denom, prefix):
        self.base_denom = base_denom
        self.prefix = prefix

    def bech32(self, address):
        return _bech32(self.prefix, address)

    def balance(self, state, address, denom):
        if denom == self.base_denom:
            return state.accounts.get_balance(address)
        raw = state.store.get(_balance_key(address, denom))
        return int(raw) if raw else 0

    def all_balances(self, state, address):
        """[(denom, amount)] with amount > 0, sorted by denom as the SDK returns them."""
        found = [(_denom_of(key), int(v)) for key, v in state.store.iterate(compose("bank", "bal", address))]
        base = state.accounts.get_balance(address)
        if base:
            found.append((self.base_denom, base))
        return sorted((d, a) for d, a in found if a > 0)

    def supply(self, state, denom):
        raw = state.store.get(_supply_key(denom))
        return int(raw) if raw else 0

    def total_supply(self, state):
        """[(denom, amount)] of every minted denom, sorted by denom (keys sort by denom length first)."""
        return sorted((_denom_of(key), int(v)) for key, v in state.store.iterate(compose("bank", "supply")))

    def mint(self, state, address, denom, amount):
        """Create coins (genesis only for now)."""
        self._add(state, address, denom, amount)
        state.store.set(_supply_key(denom), str(self.supply(state, denom) + amount).encode())

    def send(self, state, sender, recipient, coins):
        """Move coins and return the SDK's coin_spent, coin_received, transfer events."""
        self._require(state, sender, coins)
        for denom, amount in coins:
            self._add(state, sender, denom, -amount)
            self._add(state, recipient, denom, amount)
        return self.transfer_events(sender, recipient, coins)

    def burn_from(self, state, address, coins):
        """Take coins out of an account (the input side of a multi-send): coin_spent."""
        self._require(state, address, coins)
        for denom, amount in coins:
            self._add(state, address, denom, -amount)
        return [event("coin_spent", ("spender", self.bech32(address)), ("amount", format_coins(coins)))]

    def burn(self, state, address, coins):
        """Destroy coins an account holds (the SDK's BurnCoins from a module account): coin_spent, burn."""
        events = self.burn_from(state, address, coins)
        for denom, amount in coins:
            state.store.set(_supply_key(denom), str(self.supply(state, denom) - amount).encode())
        events.append(event("burn", ("burner", self.bech32(address)), ("amount", format_coins(coins))))
        return events

    def credit(self, state, address, coins):
        """Put coins into an account (an output of a multi-send): coin_received."""
        for denom, amount in coins:
            self._add(state, address, denom, amount)
        return [event("coin_received", ("receiver", self.bech32(address)), ("amount", format_coins(coins)))]

    def _require(self, state, address, coins):
        for denom, amount in coins:
            have = self.balance(state, address, denom)
            if have < amount:
                raise errors.insufficient_funds(
                    f"spendable balance {have}{denom} is smaller than {amount}{denom}")

    def transfer_events(self, sender, recipient, coins):
        text = format_coins(coins)
        sender_b32, recipient_b32 = self.bech32(sender), self.bech32(recipient)
        return [event("coin_spent", ("spender", sender_b32), ("amount", text)),
                event("coin_received", ("receiver", recipient_b32), ("amount", text)),
                event("transfer", ("recipient", recipient_b32), ("sender", sender_b32), ("amount", text))]

    def _add(self, state, address, denom, delta):
        if denom == self.base_denom:
            state.accounts.delta_balance(address, delta)
            return
        value = self.balance(state, address, denom) + delta
        key = _balance_key(address, denom)
        if value:
            state.store.set(key, str(value).encode())
        else:
            state.store.delete(key)


def _denom_of(key):
    """The last part of a composed balance key."""
    parts, i = [], 0
    while i < len(key):
        n = key[i]
        parts.append(key[i + 1:i + 1 + n])
        i += 1 + n
    return parts[-1].decode()


def format_coins(coins):
    """"10achain,5stake": the SDK's Coins.String(), sorted by denom."""
    return ",".join(f"{amount}{denom}" for denom, amount in sorted(coins) if amount)


def validate_coins(coins):
    seen = set()
    for denom, amount in coins:
        if amount <= 0:
            raise errors.invalid_coins(f"{amount}{denom}")
        if denom in seen:
            raise errors.invalid_coins(f"duplicate denomination {denom}")
        seen.add(denom)


# -- messages ----------------------------------------------------------------------------------

def _coins(proto_coins):
    try:
        coins = [(c.denom, int(c.amount)) for c in proto_coins]
    except ValueError:
        raise errors.invalid_coins("amount is not an integer") from None
    validate_coins(coins)
    return coins


def _address(app, text, what="address"):
    try:
        return parse(text, app.genesis.bech32_prefix)
    except AddressError as e:
        raise errors.invalid_address(f"invalid {what}: {e}") from None


def _validate_send(app, msg):
    _address(app, msg.from_address, "from address")
    _address(app, msg.to_address, "to address")
    if not _coins(msg.amount):
        raise errors.invalid_coins("empty amount")


def _send(app, ctx, msg, signer):
    recipient = _address(app, msg.to_address)
    app.ensure_account(ctx, recipient)
    events = app.bank.send(ctx, signer, recipient, _coins(msg.amount))
    events.append(event("message", ("sender", app.bank.bech32(signer))))
    return events, tx_pb2.MsgSendResponse()


def _validate_multi_send(app, msg):
    if not msg.inputs:
        raise errors.TxError(CODESPACE, 2, "no inputs to send transaction")
    if len(msg.inputs) != 1:
        raise errors.TxError(CODESPACE, 9, "multiple senders not allowed")
    if not msg.outputs:
        raise errors.TxError(CODESPACE, 3, "no outputs to send transaction")
    total_in, total_out = {}, {}
    for side, totals in ((msg.inputs, total_in), (msg.outputs, total_out)):
        for entry in side:
            _address(app, entry.address)
            coins = _coins(entry.coins)
            if not coins:
                raise errors.invalid_coins(f"empty coins for {entry.address}")
            for denom, amount in coins:
                totals[denom] = totals.get(denom, 0) + amount
    if total_in != total_out:
        raise errors.TxError(CODESPACE, 4, "sum inputs != sum outputs")


def _multi_send(app, ctx, msg, signer):
    """x/bank v0.50 InputOutputCoins: take from the one input, then credit each output."""
    bank = app.bank
    sender_b32 = bank.bech32(signer)
    taken = _coins(msg.inputs[0].coins)
    events = bank.burn_from(ctx, signer, taken)
    events.append(event("message", ("sender", sender_b32)))
    for output in msg.outputs:
        recipient = _address(app, output.address)
        app.ensure_account(ctx, recipient)
        coins = _coins(output.coins)
        events += bank.credit(ctx, recipient, coins)
        events.append(event("transfer", ("recipient", bank.bech32(recipient)), ("amount", format_coins(coins))))
    return events, tx_pb2.MsgMultiSendResponse()


MESSAGES = (
    MsgHandler("/cosmos.bank.v1beta1.MsgSend", tx_pb2.MsgSend, lambda m: m.from_address,
               _validate_send, _send),
    MsgHandler("/cosmos.bank.v1beta1.MsgMultiSend", tx_pb2.MsgMultiSend,
               lambda m: m.inputs[0].address if m.inputs else "", _validate_multi_send, _multi_send),
)
