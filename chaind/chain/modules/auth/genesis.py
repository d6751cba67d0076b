"""auth's genesis: app_state.auth {bech32_prefix, params, accounts}. The accounts it declares (BaseAccounts,
ModuleAccounts and the SDK's vesting account types, as x/auth's GenesisState holds them), then an account for
every other address the document funds, then the fee collector's; its export lists every account."""

import attrs
from google.protobuf import json_format

from chaind.chain import txs
from chaind.chain.module_genesis import ModuleGenesis, all_accounts, to_json
from chaind.chain.modules.auth import params as auth_params
from chaind.chain.modules.auth import vesting
from chaind.chain.modules.auth.keeper import BASE_ACCOUNT_TYPE_URL, FEE_COLLECTOR, MODULE_ACCOUNT_TYPE_URL
from chaind.chain.modules.bank.genesis import known_accounts
from chaind.crypto import addresses
from chaind.crypto import keys as crypto_keys
from chaind.pb.cosmos.auth.v1beta1 import auth_pb2
from chaind.pb.cosmos.crypto.secp256k1 import keys_pb2 as secp256k1
from chaind.store.evm_state import contract_accounts

_KEY_KINDS = {txs.ETH_PUBKEY: crypto_keys.ETH_SECP256K1, txs.COSMOS_EVM_PUBKEY: crypto_keys.ETH_SECP256K1,
              txs.SECP256K1_PUBKEY: crypto_keys.SECP256K1}


@attrs.frozen
class AuthGenesis:
    params: object              # cosmos.auth.v1beta1.Params
    accounts: tuple             # GenesisAccounts


@attrs.frozen
class GenesisAccount:
    address: bytes
    account_number: int
    sequence: int
    pubkey: tuple               # (key kind, compressed key) or ()
    vesting: tuple              # (type URL, vesting message with base_account cleared) or ()


def parse_accounts(entries, prefix):
    """GenesisAccounts of app_state.auth.accounts (JSON Anys), checked as the SDK's ValidateGenesis checks them
    (each account's Validate, no address twice); ValueError says which entry is wrong. In account number order
    (SanitizeGenesisAccounts); their numbers are given again from 0 on, as x/auth's InitGenesis does."""
    out, seen = [], set()
    for i, entry in enumerate(entries or ()):
        try:
            account = _parse(entry, prefix)
        except (ValueError, KeyError, TypeError, json_format.ParseError, addresses.AddressError) as e:
            raise ValueError(f"accounts[{i}]: {e}") from None
        if account.address in seen:
            raise ValueError(f"duplicate account found in genesis state; address: "
                             f"{addresses.to_bech32(prefix, account.address)}")
        seen.add(account.address)
        out.append(account)
    return sorted(out, key=lambda a: a.account_number)


def _parse(entry, prefix):
    url = entry["@type"]
    fields = {k: v for k, v in entry.items() if k != "@type"}
    if url == BASE_ACCOUNT_TYPE_URL:
        base, schedule = json_format.ParseDict(fields, auth_pb2.BaseAccount()), ()
    elif url == MODULE_ACCOUNT_TYPE_URL:
        # A module's own account, as an export lists it: the module makes it again at its init.
        base, schedule = json_format.ParseDict(fields, auth_pb2.ModuleAccount()).base_account, ()
    elif url in vesting.CLASSES:
        message = json_format.ParseDict(fields, vesting.CLASSES[url]())
        base = auth_pb2.BaseAccount()
        base.CopyFrom(message.base_vesting_account.base_account)
        message.base_vesting_account.ClearField("base_account")
        _validate_vesting(url, message)
        schedule = (url, message)
    else:
        raise ValueError(f"{url} is not a genesis account type chaind takes (BaseAccount, ModuleAccount or a "
                         "vesting account)")
    address = addresses.parse(base.address, prefix)
    pubkey = ()
    if base.HasField("pub_key"):
        kind = _KEY_KINDS.get(base.pub_key.type_url)
        if kind is None:
            raise ValueError(f"unsupported public key type {base.pub_key.type_url}")
        key = secp256k1.PubKey.FromString(base.pub_key.value).key
        if crypto_keys.address_of(kind, key) != address:
            raise ValueError("account address and pubkey address do not match")
        pubkey = (kind, key)
    return GenesisAccount(address, base.account_number, base.sequence, pubkey, schedule)


def _validate_vesting(url, message):
    """The vesting account types' Validate: a schedule that starts before it ends (periodic: periods that add up)."""
    base = message.base_vesting_account
    if url == vesting.CONTINUOUS and message.start_time >= base.end_time:
        raise ValueError("vesting start-time cannot be before end-time")
    if url == vesting.PERIODIC:
        if message.start_time > base.end_time:
            raise ValueError("vesting start-time cannot be before end-time")
        if message.start_time + sum(p.length for p in message.vesting_periods) != base.end_time:
            raise ValueError("vesting end time does not match length of all vesting periods")
        total = {}
        for period in message.vesting_periods:
            for denom, amount in vesting.coins(period.amount).items():
                total[denom] = total.get(denom, 0) + amount
        if total != vesting.coins(base.original_vesting):
            raise ValueError("original vesting coins does not match the sum of all coins in vesting periods")


def validate(section, context):
    section = section or {}
    unknown = set(section) - {"bech32_prefix", "params", "accounts"}
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)}")
    try:
        params = auth_params.parse_params(section.get("params"))
    except ValueError as e:
        raise ValueError(f"params: {e}") from None
    return AuthGenesis(params, tuple(parse_accounts(section.get("accounts"), context.bech32_prefix)))


def init_genesis(app, ctx, genesis):
    """The declared accounts in account number order, then one for each address bank's genesis funds."""
    keeper = app.keepers["auth"]
    for account in genesis.accounts:
        keeper.ensure_account(ctx, account.address)
        if account.pubkey:
            keeper.set_public_key(ctx, account.address, account.pubkey[1], account.pubkey[0])
        if account.sequence:
            ctx.accounts.set_nonce(account.address, account.sequence)
        if account.vesting:
            keeper.set_vesting_account(ctx, account.address, *account.vesting)
    for address, _ in app.genesis.balances:
        keeper.ensure_account(ctx, address)
    keeper.ensure_account(ctx, FEE_COLLECTOR)


def default(context):
    return {"bech32_prefix": context.bech32_prefix, "params": dict(auth_params.DEFAULTS), "accounts": []}


def export_genesis(app, view):
    """Params and every account (its Any as x/auth's ExportGenesis lists it), in account number order; then a
    BaseAccount for each contract the EVM made without an auth record whose nonce has moved (a contract that
    ran CREATE): the account's sequence is its nonce, and Evmos has an auth account for every EVM one."""
    keeper, prefix = app.keepers["auth"], app.genesis.bech32_prefix
    records = list(keeper.records(view))
    known = {address for address, _ in records}
    # {account key: address} of auth's and bank's (genesis' holders too: more names, the same ones found)
    keyed = known_accounts(app, view)
    # Every account's nonce (its sequence) from one walk of the EVM's account trie, not a trie read each.
    leaves = all_accounts(app, view)
    sequence = {keyed[hashed]: int.from_bytes(items[0], "big") for hashed, items in leaves.items() if hashed in keyed}
    module_addresses = {address for address, _ in keeper.module_accounts.values()}
    accounts = []
    for address, raw in records:
        nonce = sequence.get(address, 0)
        plain = None if address in module_addresses else keeper.base_account_json(address, raw, nonce)
        accounts.append({"@type": BASE_ACCOUNT_TYPE_URL, **plain} if plain is not None else
                        _account_json(keeper.account_any(view, address, nonce)))
    accounts.sort(key=_account_number)
    number = max((_account_number(a) + 1 for a in accounts), default=0)
    for address, nonce, _, _ in contract_accounts(app.db, None, keyed, leaves):
        if nonce and address not in known:
            accounts.append({"@type": BASE_ACCOUNT_TYPE_URL, **to_json(auth_pb2.BaseAccount(
                address=addresses.to_bech32(prefix, address), account_number=number, sequence=nonce))})
            number += 1
    return {"bech32_prefix": prefix, "params": to_json(keeper.params), "accounts": accounts}


_CLASSES = {BASE_ACCOUNT_TYPE_URL: auth_pb2.BaseAccount, MODULE_ACCOUNT_TYPE_URL: auth_pb2.ModuleAccount,
            **vesting.CLASSES}


def _account_json(found):
    message = _CLASSES[found.type_url]()
    message.ParseFromString(found.value)
    return {"@type": found.type_url, **to_json(message)}


def _account_number(entry):
    base = entry.get("base_account") or entry.get("base_vesting_account", {}).get("base_account") or entry
    return int(base["account_number"])


GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis)
