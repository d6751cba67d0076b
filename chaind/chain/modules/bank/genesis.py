"""bank's genesis: app_state.bank {params, balances, supply, denom_metadata, send_enabled} as x/bank's
GenesisState: the balances minted, its params; the export lists every holder's balances and the supply."""

import attrs

from chaind.chain.module_genesis import ModuleGenesis, all_accounts, memoized
from chaind.chain.modules.bank.store_layout import balance_holders
from chaind.crypto.addresses import parse, to_bech32
from chaind.store.evm_accounts import account_key


@attrs.frozen
class BankGenesis:
    default_send_enabled: bool
    balances: tuple            # (address, ((denom, amount), ...)), ...
    denom_metadata: tuple      # SDK Metadata dicts


def parse_params(doc):
    """default_send_enabled of genesis' bank.params (true when absent); ValueError as Params.Validate words it."""
    doc = doc or {}
    if doc.get("send_enabled"):
        raise ValueError("use of send_enabled in params is no longer supported")
    enabled = doc.get("default_send_enabled", True)
    if not isinstance(enabled, bool):
        raise ValueError(f"invalid parameter type: {type(enabled).__name__}")
    return enabled


def validate(section, context):
    """x/bank's ValidateGenesis: params, each balance's address and coins, no address twice, the supply (when
    given) the sum of the balances."""
    section = section or {}
    try:
        enabled = parse_params(section.get("params"))
    except ValueError as e:
        raise ValueError(f"params: {e}") from None
    if section.get("send_enabled"):
        raise ValueError("send_enabled: per-denom send_enabled entries are not supported (params."
                         "default_send_enabled is)")
    balances, seen, totals = [], set(), {}
    for i, entry in enumerate(section.get("balances") or ()):
        try:
            address = parse(entry["address"], context.bech32_prefix)
            coins = tuple((c["denom"], int(c["amount"])) for c in entry["coins"])
            _check_coins(coins)
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"balances[{i}]: {e}") from None
        if address in seen:
            raise ValueError(f"balances[{i}]: duplicate balance for address {entry['address']}")
        seen.add(address)
        for denom, amount in coins:
            totals[denom] = totals.get(denom, 0) + amount
        balances.append((address, coins))
    supply = section.get("supply") or []
    if supply:
        try:
            given = {c["denom"]: int(c["amount"]) for c in supply}
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"supply: {e}") from None
        if given != {d: a for d, a in totals.items() if a}:
            raise ValueError(f"supply: genesis supply is incorrect, expected {_coins_text(totals)}, got "
                             f"{_coins_text(given)}")
    return BankGenesis(enabled, tuple(balances), tuple(section.get("denom_metadata", ())))


def init_genesis(app, ctx, genesis):
    keeper = app.keepers["bank"]
    keeper.set_default_send_enabled(ctx, genesis.default_send_enabled)
    for address, coins in genesis.balances:
        for denom, amount in coins:
            keeper.mint(ctx, address, denom, amount)


def default(context):
    return {"params": {"send_enabled": [], "default_send_enabled": True}, "balances": [], "supply": [],
            "denom_metadata": [], "send_enabled": []}


def export_genesis(app, view):
    """Every holder's balances (the bank store's balance records, the base denom's among them), the supply, the
    denom metadata (genesis' and those registered since)."""
    keeper, balances = app.keepers["bank"], []
    coins_of = _all_balances(app, view, holders(app, view))
    for address in sorted(coins_of, key=lambda a: to_bech32(app.genesis.bech32_prefix, a)):
        coins = coins_of[address]
        if coins:
            balances.append({"address": to_bech32(app.genesis.bech32_prefix, address), "coins": _coins(coins)})
    return {"params": {"send_enabled": [], "default_send_enabled": keeper.default_send_enabled(view)},
            "balances": balances, "supply": _coins(keeper.total_supply(view)),
            "denom_metadata": list(keeper.denom_metadata) + keeper.stored_metadata(view), "send_enabled": []}


def _all_balances(app, view, addresses):
    """{address: keeper.all_balances(view, address)} of `addresses`; for a committed view from one scan of the
    balance records and the EVM's accounts (all_accounts), not a scan and a trie read an address."""
    keeper = app.keepers["bank"]
    if getattr(view.accounts, "all_accounts", None) is None:
        return {address: keeper.all_balances(view, address) for address in addresses}
    native, accounts, out = keeper.native_balances(view), all_accounts(app, view), {}
    for address in addresses:
        found = native.get(address, [])
        items = accounts.get(account_key(address))
        base = int.from_bytes(items[1], "big") if items else 0
        if base:
            found = [*found, (keeper.base_denom, base)]
        out[address] = sorted((d, a) for d, a in found if a > 0)
    return out


def _check_coins(coins):
    seen = set()
    for denom, amount in coins:
        if amount <= 0 or not denom:
            raise ValueError(f"invalid coin {amount}{denom}")
        if denom in seen:
            raise ValueError(f"duplicate denomination {denom}")
        seen.add(denom)


def holders(app, view):
    """Every address the bank store at `view`'s height keeps a balance of (the base denom's too, which the
    store mirrors from the EVM state: an EVM account without an auth record among them), and genesis' holders."""
    return memoized(view, "bank holders", lambda: balance_holders(app.stores, app.stores.commit_info(view.height))
                    | {address for address, _ in app.genesis.balances})


def _coins(pairs):
    return [{"denom": d, "amount": str(a)} for d, a in sorted(pairs) if a]


def _coins_text(amounts):
    return ",".join(f"{a}{d}" for d, a in sorted(amounts.items()) if a)


GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis)


def known_accounts(app, view):
    """{account key: address} of the addresses auth and bank know (those written before chaind recorded
    preimages among them)."""
    return memoized(view, "known accounts", lambda: {
        account_key(a): a for a in set(app.keepers["auth"].all_addresses(view)) | holders(app, view)})
