"""auth's keeper: accounts, their numbers, public keys and vesting schedules; module accounts; params. An account's
sequence is its EVM nonce."""

import base64

import orjson
from google.protobuf import any_pb2

from chaind.chain import txs
from chaind.chain.modules.auth import vesting
from chaind.crypto.addresses import module_address, to_bech32
from chaind.crypto.keys import ETH_SECP256K1
from chaind.pb.cosmos.auth.v1beta1 import auth_pb2
from chaind.pb.cosmos.evm.crypto.v1.ethsecp256k1 import keys_pb2 as ethsecp256k1
from chaind.store.keys import compose

# Accounts are BaseAccounts (not Evmos' EthAccount, which @cosmjs' accountFromAny rejects) with the
# eth_secp256k1 key under cosmos/evm's type URL, the one @cosmjs decodes. The key message is the same on
# the wire as Evmos' /ethermint.crypto.v1.ethsecp256k1.PubKey.
PUBKEY_TYPE_URL = txs.COSMOS_EVM_PUBKEY
BASE_ACCOUNT_TYPE_URL = "/cosmos.auth.v1beta1.BaseAccount"
MODULE_ACCOUNT_TYPE_URL = "/cosmos.auth.v1beta1.ModuleAccount"

# x/auth's own module account: the fees of every tx (and the EVM's coinbase) land here.
FEE_COLLECTOR = module_address("fee_collector")

NEXT_NUMBER = compose("auth", "next")
_ACCOUNTS = compose("auth", "acct")


def _key(address):
    return compose("auth", "acct", address)


def account_of(raw_key):
    """The address of a native key of this module's account records, or None for its other keys."""
    return raw_key[len(_ACCOUNTS) + 1:] if raw_key.startswith(_ACCOUNTS) else None


class AuthKeeper:
    """x/auth's keeper, built once from the genesis' constants (the bech32 prefix accounts are shown with, and
    auth's params, cosmos.auth.v1beta1.Params, fixed at genesis: auth has no MsgUpdateParams here) and the chain's
    module accounts ({name: (address, permissions)}, every module's). Reads take a state (a view at any height, or
    a block's context), writes a block's context."""

    def __init__(self, prefix, params, module_accounts):
        self.prefix = prefix
        self.params = params
        self.module_accounts = module_accounts

    def account(self, state, address):
        """(account_number, compressed pubkey or b"") of a known account, else None."""
        raw = state.store.get(_key(address))
        if raw is None:
            return None
        number, pubkey = orjson.loads(raw)[:2]
        return number, bytes.fromhex(pubkey)

    def record(self, state, address):
        """The stored record of an account (number, key, vesting: its Any but for the sequence), None if unknown."""
        return state.store.get(_key(address))

    def key_type(self, state, address):
        """The kind of key (crypto.keys.ETH_SECP256K1 or SECP256K1) an account signs with, None before its first
        tx."""
        raw = state.store.get(_key(address))
        if raw is None:
            return None
        record = orjson.loads(raw)
        if not record[1]:
            return None
        return record[2] if len(record) > 2 else ETH_SECP256K1

    def ensure_account(self, ctx, address):
        """The account's number, creating the account (next number) if it is new."""
        found = self.account(ctx, address)
        if found is not None:
            return found[0]
        raw = ctx.store.get(NEXT_NUMBER)
        number = int(raw) if raw else 0
        ctx.store.set(NEXT_NUMBER, str(number + 1).encode())
        ctx.store.set(_key(address), orjson.dumps([number, ""]))
        return number

    def set_public_key(self, ctx, address, pubkey, kind=ETH_SECP256K1):
        number = self.ensure_account(ctx, address)
        record = orjson.loads(ctx.store.get(_key(address)))
        # A vesting account keeps its schedule (the record's fourth entry).
        ctx.store.set(_key(address), orjson.dumps([number, pubkey.hex(), kind, *record[3:]]))

    def vesting_account(self, state, address):
        """(type URL, message) of a vesting account (its base_account left empty: the record holds that), else
        None."""
        raw = state.store.get(_key(address))
        if raw is None:
            return None
        record = orjson.loads(raw)
        if len(record) < 4:
            return None
        url, value = record[3]
        return url, vesting.CLASSES[url].FromString(bytes.fromhex(value))

    def set_vesting_account(self, ctx, address, url, message):
        """Make a known account a vesting account of type `url` (or update its schedule and delegations)."""
        number, pubkey, *rest = orjson.loads(ctx.store.get(_key(address)))
        kind = rest[0] if rest else ETH_SECP256K1
        ctx.store.set(_key(address), orjson.dumps([number, pubkey, kind, [url, message.SerializeToString().hex()]]))

    def locked_coins(self, state, address, now):
        """{denom: amount} an account may not spend at unix time `now`: empty but for a vesting account."""
        raw = state.store.get(_key(address))
        # Plain accounts' records have at most three entries: no list inside, no parse needed.
        if raw is None or raw.count(b"[") < 2:
            return {}
        found = self.vesting_account(state, address)
        return {} if found is None else vesting.locked(found[0], found[1], now)

    def sequence(self, state, address):
        return state.accounts.get_nonce(address)

    def all_addresses(self, state):
        """The address of every account, in byte order (all are 20 bytes: one length byte precedes each)."""
        for key, _ in state.store.iterate(_ACCOUNTS):
            yield key[len(_ACCOUNTS) + 1:]

    def records(self, state):
        """(address, stored record) of every account, in address order: what `record` reads, in one scan."""
        for key, raw in state.store.iterate(_ACCOUNTS):
            yield key[len(_ACCOUNTS) + 1:], raw

    def base_account_json(self, address, raw, sequence):
        """The genesis JSON of a plain account's BaseAccount (its stored record `raw`, its `sequence`), as
        module_genesis.to_json writes base_account's message, without building it; None for a vesting account's
        record, whose message it is not."""
        record = orjson.loads(raw)
        if len(record) > 3:
            return None
        out = {"address": to_bech32(self.prefix, address)}
        if record[1]:
            kind = record[2] if len(record) > 2 else ETH_SECP256K1
            out["pub_key"] = {"@type": PUBKEY_TYPE_URL if kind == ETH_SECP256K1 else txs.SECP256K1_PUBKEY,
                              "key": base64.b64encode(bytes.fromhex(record[1])).decode()}
        # json_format writes the set fields first and then the zero ones: account number 0 after the sequence.
        for name, value in sorted((("account_number", record[0]), ("sequence", sequence)), key=lambda f: f[1] == 0):
            out[name] = str(value)
        return out

    def base_account(self, state, address, known_sequence=None):
        """The BaseAccount of a known address (None if the chain has never seen it); `known_sequence`: its
        sequence, when the caller has read it."""
        found = self.account(state, address)
        if found is None:
            return None
        number, pubkey = found
        out = auth_pb2.BaseAccount(address=to_bech32(self.prefix, address), account_number=number,
                                   sequence=self.sequence(state, address) if known_sequence is None
                                   else known_sequence)
        if pubkey:
            # Both key messages are `bytes key = 1`; the type URL says which kind of key it is.
            url = PUBKEY_TYPE_URL if self.key_type(state, address) == ETH_SECP256K1 else txs.SECP256K1_PUBKEY
            out.pub_key.CopyFrom(any_pb2.Any(type_url=url,
                                             value=ethsecp256k1.PubKey(key=pubkey).SerializeToString()))
        return out

    def account_any(self, state, address, known_sequence=None):
        """The account as x/auth stores and answers it: an Any of a BaseAccount, or of a ModuleAccount for a module
        account. None for an address the chain has never seen."""
        return self._any(state, address, self.module_accounts, known_sequence)

    def module_account(self, state, name):
        """The Any of module `name`'s ModuleAccount (one of module_accounts)."""
        return self._any(state, self.module_accounts[name][0], {name: self.module_accounts[name]})

    def _any(self, state, address, module_accounts, known_sequence=None):
        for name, (module_address_, permissions) in module_accounts.items():
            if module_address_ == address:
                base = self.base_account(state, address, known_sequence) or auth_pb2.BaseAccount(
                    address=to_bech32(self.prefix, address))
                module = auth_pb2.ModuleAccount(base_account=base, name=name, permissions=permissions)
                return any_pb2.Any(type_url=MODULE_ACCOUNT_TYPE_URL, value=module.SerializeToString())
        base = self.base_account(state, address, known_sequence)
        if base is None:
            return None
        found = self.vesting_account(state, address)
        if found is not None:
            url, message = found
            message.base_vesting_account.base_account.CopyFrom(base)
            return any_pb2.Any(type_url=url, value=message.SerializeToString())
        return any_pb2.Any(type_url=BASE_ACCOUNT_TYPE_URL, value=base.SerializeToString())
