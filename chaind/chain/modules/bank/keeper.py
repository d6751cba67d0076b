"""bank's keeper: balances per denom, supply, the denom metadata registrations and the send-enabled param.

The base denom's balance is the EVM balance: one source of truth.
"""

import functools

import orjson

from chaind.chain import errors
from chaind.chain.block import event
from chaind.chain.modules.auth import vesting as auth_vesting
from chaind.crypto.addresses import to_bech32
from chaind.store.keys import compose, decompose

CODESPACE = "bank"
METADATA = compose("bank", "meta")
PARAMS_KEY = compose("bank", "params")


def _balance_key(address, denom):
    return compose("bank", "bal", address, denom)


_ALL_BALANCES = compose("bank", "bal")


# Balance queries ask about the same accounts again and again (composing the key is a fifth of AllBalances).
@functools.lru_cache(maxsize=16384)
def _balances_prefix(address):
    return compose("bank", "bal", address)


def _supply_key(denom):
    return compose("bank", "supply", denom)


def _metadata_key(denom):
    return compose("bank", "meta", denom)


class BankKeeper:
    """x/bank's keeper, built once from auth's keeper (a vesting account's locked coins are not spendable, and its
    delegations are tracked on it) and the genesis' constants: the base denom (whose balances are the EVM's), the
    bech32 prefix its events write addresses with, and genesis' denom metadata. Reads take a state (a view at any
    height, or a block's context), writes a block's context."""

    def __init__(self, auth, base_denom, prefix, denom_metadata=()):
        self.auth = auth
        self.base_denom = base_denom
        self.prefix = prefix
        self.denom_metadata = tuple(denom_metadata)

    def bech32(self, address):
        return to_bech32(self.prefix, address)

    def balance(self, state, address, denom):
        if denom == self.base_denom:
            return state.accounts.get_balance(address)
        raw = state.store.get(_balance_key(address, denom))
        return int(raw) if raw else 0

    def all_balances(self, state, address):
        """[(denom, amount)] with amount > 0, sorted by denom as the SDK returns them."""
        prefix = _balances_prefix(address)
        # Each key is the prefix, the denom's length byte, the denom.
        skip = len(prefix) + 1
        found = [(key[skip:].decode(), int(v)) for key, v in state.store.iterate(prefix)]
        base = state.accounts.get_balance(address)
        if base:
            found.append((self.base_denom, base))
        return sorted((d, a) for d, a in found if a > 0)

    def native_balances(self, state):
        """{address: [(denom, amount)]} of every balance record but the base denom's (the EVM's): all_balances'
        records of every address, in one scan."""
        start = len(_ALL_BALANCES)
        out = {}
        for key, value in state.store.iterate(_ALL_BALANCES):
            # The address's length byte and the address, then the denom's
            end = start + 1 + key[start]
            out.setdefault(key[start + 1:end], []).append((key[end + 1:].decode(), int(value)))
        return out

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

    def burn_from(self, state, address, coins, spendable=True):
        """Take coins out of an account (the input side of a multi-send): coin_spent."""
        self._require(state, address, coins, spendable)
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

    def _require(self, state, address, coins, spendable=True):
        """subUnlockedCoins: each coin within the balance, less what a vesting account has locked (unless
        `spendable` is False: a delegation may spend locked coins)."""
        locked = self.auth.locked_coins(state, address, state.accounts.execution_context.timestamp) \
            if spendable else {}
        for denom, amount in coins:
            have = max(0, self.balance(state, address, denom) - locked.get(denom, 0))
            if have < amount:
                raise errors.insufficient_funds(
                    f"spendable balance {have}{denom} is smaller than {amount}{denom}")

    def spendable(self, state, address, denom, now):
        """A denom's balance less what is locked at unix time `now`."""
        return max(0, self.balance(state, address, denom) - self.auth.locked_coins(state, address, now).get(denom, 0))

    def delegate(self, state, delegator, pool, coins):
        """DelegateCoins: move coins to a staking pool, locked ones included; a vesting account tracks them."""
        self._require(state, delegator, coins, spendable=False)
        found = self.auth.vesting_account(state, delegator)
        if found is not None:
            url, account = found
            balance = {denom: self.balance(state, delegator, denom) for denom, _ in coins}
            auth_vesting.track_delegation(url, account, balance, dict(coins),
                                          state.accounts.execution_context.timestamp)
            self.auth.set_vesting_account(state, delegator, url, account)
        events = self.burn_from(state, delegator, coins, spendable=False)
        return events + self.credit(state, pool, coins)

    def undelegate(self, state, pool, delegator, coins):
        """UndelegateCoins: coins back from a staking pool; a vesting account's delegations shrink."""
        events = self.burn_from(state, pool, coins)
        found = self.auth.vesting_account(state, delegator)
        if found is not None:
            url, account = found
            auth_vesting.track_undelegation(account, dict(coins))
            self.auth.set_vesting_account(state, delegator, url, account)
        return events + self.credit(state, delegator, coins)

    def transfer_events(self, sender, recipient, coins):
        text = format_coins(coins)
        sender_b32, recipient_b32 = self.bech32(sender), self.bech32(recipient)
        return [event("coin_spent", ("spender", sender_b32), ("amount", text)),
                event("coin_received", ("receiver", recipient_b32), ("amount", text)),
                event("transfer", ("recipient", recipient_b32), ("sender", sender_b32), ("amount", text))]

    def metadata(self, state, denom):
        """A denom's metadata as a dict (SDK JSON names): genesis' own, else one stored (an ERC-20 registration)."""
        for found in self.denom_metadata:
            if found["base"] == denom:
                return found
        raw = state.store.get(_metadata_key(denom))
        if raw is None:
            return None
        return orjson.loads(raw)

    def stored_metadata(self, state):
        """Every metadata stored in state (not genesis'), as dicts in key order."""
        return [orjson.loads(raw) for _, raw in state.store.iterate(METADATA)]

    def set_metadata(self, ctx, found):
        ctx.store.set(_metadata_key(found["base"]), orjson.dumps(found))

    # -- params: default_send_enabled (v0.50 keeps per-denom send_enabled out of params) ------------------

    def default_send_enabled(self, state):
        return state.store.get(PARAMS_KEY) != b"0"

    def set_default_send_enabled(self, ctx, enabled):
        ctx.store.set(PARAMS_KEY, b"1" if enabled else b"0")

    def require_send_enabled(self, state, coins):
        """IsSendEnabledCoins: with sends disabled by default, no coin may move through MsgSend/MsgMultiSend."""
        if self.default_send_enabled(state):
            return
        for denom, _ in coins:
            raise errors.TxError(CODESPACE, 5,
                                 f"{denom} transfers are currently disabled: send transactions are disabled")

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
    return decompose(key)[-1].decode()


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

