"""distribution's genesis: app_state.distribution as x/distribution's GenesisState (params, fee_pool,
delegator_withdraw_infos, previous_proposer, outstanding_rewards, validator_accumulated_commissions,
validator_historical_rewards, validator_current_rewards, delegator_starting_infos, validator_slash_events):
the F1 records as they are, and its module account. A new chain's section has params alone; DecCoins and
LegacyDec amounts are decimals in the JSON, as the SDK writes them."""

import attrs
import orjson

from chaind.chain import legacy_dec
from chaind.chain.module_genesis import GenesisError, ModuleGenesis
from chaind.chain.modules.distribution.params import PARAMS_KEY, parse_params
from chaind.chain.modules.distribution.params import params as stored_params
from chaind.chain.modules.distribution.records import DISTRIBUTION_ACCOUNT, ValidatorRewards
from chaind.crypto.addresses import AddressError, parse, to_bech32
from chaind.store.keys import compose, decompose

_LISTS = ("delegator_withdraw_infos", "outstanding_rewards", "validator_accumulated_commissions",
          "validator_historical_rewards", "validator_current_rewards", "delegator_starting_infos",
          "validator_slash_events")


@attrs.frozen
class DistributionGenesis:
    params: object
    community_pool: dict                 # DecCoins
    withdraw_addresses: tuple = ()       # (delegator, withdraw address)
    rewards: tuple = ()                  # (operator, ValidatorRewards)
    historical: tuple = ()               # (operator, period, ratio DecCoins, reference count)
    starting_infos: tuple = ()           # (operator, delegator, previous period, stake atomics, height)
    slash_events: tuple = ()             # (operator, height, period, fraction atomics)


def validate(section, context):
    """x/distribution's ValidateGenesis: params, the fee pool; each record's addresses and amounts readable."""
    section = section or {}
    unknown = set(section) - {"params", "fee_pool", "previous_proposer", *_LISTS}
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)}")
    try:
        p = parse_params(section.get("params", {}))
    except ValueError as e:
        raise ValueError(f"params: {e}") from None
    acc, valoper = context.bech32_prefix, context.bech32_prefix + "valoper"
    try:
        pool = _dec_coins((section.get("fee_pool") or {}).get("community_pool"))
    except (TypeError, ValueError) as e:
        raise ValueError(f"fee_pool.community_pool: {e}") from None
    if section.get("previous_proposer"):
        _read("previous_proposer", lambda: parse(section["previous_proposer"], acc + "valcons"))
    lists = {name: section.get(name) or [] for name in _LISTS}
    withdraw = tuple(_read(f"delegator_withdraw_infos[{i}]", lambda e=e: (
        parse(e["delegator_address"], acc), parse(e["withdraw_address"], acc)))
        for i, e in enumerate(lists["delegator_withdraw_infos"]))
    rewards = {}

    def record(operator):
        return rewards.setdefault(operator, ValidatorRewards())

    for i, e in enumerate(lists["outstanding_rewards"]):
        operator, coins = _read(f"outstanding_rewards[{i}]", lambda e=e: (
            parse(e["validator_address"], valoper), _dec_coins(e["outstanding_rewards"])))
        record(operator).outstanding = coins
    for i, e in enumerate(lists["validator_accumulated_commissions"]):
        operator, coins = _read(f"validator_accumulated_commissions[{i}]", lambda e=e: (
            parse(e["validator_address"], valoper), _dec_coins(e["accumulated"]["commission"])))
        record(operator).commission = coins
    for i, e in enumerate(lists["validator_current_rewards"]):
        operator, coins, period = _read(f"validator_current_rewards[{i}]", lambda e=e: (
            parse(e["validator_address"], valoper), _dec_coins(e["rewards"]["rewards"]), int(e["rewards"]["period"])))
        record(operator).current, record(operator).period = coins, period
    historical = tuple(_read(f"validator_historical_rewards[{i}]", lambda e=e: (
        parse(e["validator_address"], valoper), int(e["period"]),
        _dec_coins(e["rewards"]["cumulative_reward_ratio"]), int(e["rewards"]["reference_count"])))
        for i, e in enumerate(lists["validator_historical_rewards"]))
    starting = tuple(_read(f"delegator_starting_infos[{i}]", lambda e=e: (
        parse(e["validator_address"], valoper), parse(e["delegator_address"], acc),
        int(e["starting_info"]["previous_period"]), legacy_dec.parse(e["starting_info"]["stake"]),
        int(e["starting_info"]["height"])))
        for i, e in enumerate(lists["delegator_starting_infos"]))
    slashes = tuple(_read(f"validator_slash_events[{i}]", lambda e=e: (
        parse(e["validator_address"], valoper), int(e["height"]),
        int(e["validator_slash_event"]["validator_period"]),
        legacy_dec.parse(e["validator_slash_event"]["fraction"])))
        for i, e in enumerate(lists["validator_slash_events"]))
    return DistributionGenesis(p, pool, withdraw, tuple(rewards.items()), historical, starting, slashes)


def _read(what, read):
    try:
        return read()
    except (KeyError, TypeError, ValueError, AddressError) as e:
        text = f"missing {e}" if isinstance(e, KeyError) else str(e)
        raise ValueError(f"{what}: {text}") from None


def _dec_coins(entries):
    out = {}
    for coin in entries or ():
        amount = legacy_dec.parse(coin["amount"])
        if amount < 0 or not coin["denom"]:
            raise ValueError(f"invalid coin {coin['amount']}{coin['denom']}")
        if amount:
            out[coin["denom"]] = out.get(coin["denom"], 0) + amount
    return out


def _dec_coins_json(coins):
    return [{"denom": d, "amount": legacy_dec.format(a)} for d, a in sorted(coins.items()) if a]


def init_genesis(app, ctx, genesis):
    """x/distribution's InitGenesis: the records as they are; its module account holds what the outstanding
    rewards and the community pool add up to (bank's genesis gave it its balance)."""
    keeper = app.keepers["distribution"]
    ctx.store.set(PARAMS_KEY, genesis.params.to_record())
    keeper.set_community_pool(ctx, genesis.community_pool)
    app.ensure_account(ctx, DISTRIBUTION_ACCOUNT)
    for delegator, address in genesis.withdraw_addresses:
        keeper.set_withdraw_address(ctx, delegator, address)
    owed = dict(genesis.community_pool)
    for operator, rewards in genesis.rewards:
        keeper.set_rewards_of(ctx, operator, rewards)
        for denom, amount in rewards.outstanding.items():
            owed[denom] = owed.get(denom, 0) + amount
    for operator, period, ratio, refs in genesis.historical:
        keeper.set_historical(ctx, operator, period, ratio, refs)
    for operator, delegator, period, stake, height in genesis.starting_infos:
        keeper.set_starting_info(ctx, operator, delegator, period, stake, height)
    for operator, height, period, fraction in genesis.slash_events:
        keeper.set_slash_event(ctx, operator, height, period, fraction)
    whole = {d: a // legacy_dec.ONE for d, a in owed.items() if a // legacy_dec.ONE}
    held = dict(app.keepers["bank"].all_balances(ctx, DISTRIBUTION_ACCOUNT))
    if held != whole:
        raise GenesisError(f"invalid genesis: app_state.distribution: distribution module balance does not match "
                           f"the module holdings: {_text(held)} <-> {_text(whole)}")


def _text(amounts):
    return ",".join(f"{a}{d}" for d, a in sorted(amounts.items()) if a)


def _params_json(p):
    return {"community_tax": legacy_dec.format(p.community_tax),
            "base_proposer_reward": legacy_dec.format(p.base_proposer_reward),
            "bonus_proposer_reward": legacy_dec.format(p.bonus_proposer_reward),
            "withdraw_addr_enabled": p.withdraw_addr_enabled}


def default(context):
    return {"params": _params_json(parse_params({}))}


def export_genesis(app, view):
    """x/distribution's ExportGenesis, every record in store order."""
    acc = app.genesis.bech32_prefix
    valoper = acc + "valoper"
    keeper = app.keepers["distribution"]
    store = view.store
    withdraw = [{"delegator_address": to_bech32(acc, decompose(key)[2]), "withdraw_address": to_bech32(acc, raw)}
                for key, raw in store.iterate(compose("distribution", "wd"))]
    outstanding, commissions, current = [], [], []
    operators = sorted(operator for key, _ in store.iterate(compose("distribution", "vals"))
                       for operator in keeper.bucket(view, key))
    for operator in operators:
        rewards = keeper.rewards_of(view, operator)
        address = to_bech32(valoper, operator)
        outstanding.append({"validator_address": address, "outstanding_rewards": _dec_coins_json(rewards.outstanding)})
        commissions.append({"validator_address": address,
                            "accumulated": {"commission": _dec_coins_json(rewards.commission)}})
        current.append({"validator_address": address,
                        "rewards": {"rewards": _dec_coins_json(rewards.current), "period": str(rewards.period)}})
    historical = []
    for key, _ in store.iterate(compose("distribution", "hist")):
        operator, period = decompose(key)[2], int.from_bytes(decompose(key)[3], "big")
        ratio, refs = keeper.historical(view, operator, period)
        historical.append({"validator_address": to_bech32(valoper, operator), "period": str(period),
                           "rewards": {"cumulative_reward_ratio": _dec_coins_json(ratio), "reference_count": refs}})
    starting = []
    for key, _ in store.iterate(compose("distribution", "start")):
        operator, delegator = decompose(key)[2:4]
        period, stake, height = keeper.starting_info(view, operator, delegator)
        starting.append({"delegator_address": to_bech32(acc, delegator),
                         "validator_address": to_bech32(valoper, operator),
                         "starting_info": {"previous_period": str(period), "stake": legacy_dec.format(stake),
                                           "height": str(height)}})
    slashes = []
    for key, raw in store.iterate(compose("distribution", "slash")):
        operator, height = decompose(key)[2], int.from_bytes(decompose(key)[3], "big")
        event = orjson.loads(raw)
        slashes.append({"validator_address": to_bech32(valoper, operator), "height": str(height),
                        "period": str(event["period"]), "validator_slash_event": {
                            "validator_period": str(event["period"]),
                            "fraction": legacy_dec.format(int(event["fraction"]))}})
    return {"params": _params_json(stored_params(view)),
            "fee_pool": {"community_pool": _dec_coins_json(keeper.community_pool(view))},
            "delegator_withdraw_infos": withdraw, "previous_proposer": "", "outstanding_rewards": outstanding,
            "validator_accumulated_commissions": commissions, "validator_historical_rewards": historical,
            "validator_current_rewards": current, "delegator_starting_infos": starting,
            "validator_slash_events": slashes}


GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis)
