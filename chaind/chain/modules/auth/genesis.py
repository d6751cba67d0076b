"""auth's genesis: the accounts app_state.auth.accounts declares (BaseAccounts and the SDK's vesting account types,
as x/auth's GenesisState holds them), then an account for every other address the document funds, then the fee
collector's."""

import attrs
from google.protobuf import json_format

from chaind.chain import txs
from chaind.chain.modules.auth import vesting
from chaind.chain.modules.auth.keeper import (
    BASE_ACCOUNT_TYPE_URL,
    FEE_COLLECTOR,
    ensure_account,
    set_public_key,
    set_vesting_account,
)
from chaind.crypto import addresses
from chaind.crypto import keys as crypto_keys
from chaind.pb.cosmos.auth.v1beta1 import auth_pb2
from chaind.pb.cosmos.crypto.secp256k1 import keys_pb2 as secp256k1

_KEY_KINDS = {txs.ETH_PUBKEY: crypto_keys.ETH_SECP256K1, txs.COSMOS_EVM_PUBKEY: crypto_keys.ETH_SECP256K1,
              txs.SECP256K1_PUBKEY: crypto_keys.SECP256K1}


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
    elif url in vesting.CLASSES:
        message = json_format.ParseDict(fields, vesting.CLASSES[url]())
        base = auth_pb2.BaseAccount()
        base.CopyFrom(message.base_vesting_account.base_account)
        message.base_vesting_account.ClearField("base_account")
        _validate_vesting(url, message)
        schedule = (url, message)
    else:
        raise ValueError(f"{url} is not a genesis account type chaind takes (BaseAccount or a vesting account)")
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


def init_genesis(app, ctx):
    accounts = parse_accounts(app.genesis.document["app_state"]["auth"].get("accounts"), app.genesis.bech32_prefix)
    for account in accounts:
        ensure_account(ctx, account.address)
        if account.pubkey:
            set_public_key(ctx, account.address, account.pubkey[1], account.pubkey[0])
        if account.sequence:
            ctx.accounts.set_nonce(account.address, account.sequence)
        if account.vesting:
            set_vesting_account(ctx, account.address, *account.vesting)
    for address, _ in app.genesis.balances:
        ensure_account(ctx, address)
    ensure_account(ctx, FEE_COLLECTOR)
