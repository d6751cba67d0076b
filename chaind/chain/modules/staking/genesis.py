"""staking's genesis: app_state.staking in one of two shapes.

- A new chain's: params and `validators` as {operator, consensus_pubkey, tokens, moniker, commission,
  min_self_delegation}, each bonded with its self-delegation minted into the bonded pool (chaind's shorthand
  for a validator created at genesis, as a gen tx would).
- An export's (x/staking's GenesisState, `exported: true`): params, last_total_power, last_validator_powers,
  validators, delegations, unbonding_delegations, redelegations, taken as they are (the pools' balances come
  with bank's genesis, as the SDK's InitGenesis expects them), the validator set being the last one.
"""

import base64

import attrs
from google.protobuf import json_format

from chaind.chain import legacy_dec
from chaind.chain.module_genesis import GenesisError, ModuleGenesis, to_json
from chaind.chain.modules.staking import protos
from chaind.chain.modules.staking.keys import LAST_TOTAL_POWER, UNBONDING_ID, cons_key, last_power_key, time_key
from chaind.chain.modules.staking.numbers import PRECISION, format_duration
from chaind.chain.modules.staking.params import PARAMS_KEY, Params, parse_params
from chaind.chain.modules.staking.records import (
    BONDED,
    BONDED_POOL,
    DESCRIPTION_FIELDS,
    ED25519_PUBKEY,
    NOT_BONDED_POOL,
    POWER_REDUCTION,
    UNBONDING,
    Validator,
    consensus_address,
)
from chaind.crypto import addresses
from chaind.pb.cosmos.crypto.ed25519 import keys_pb2 as ed25519_pb2
from chaind.pb.cosmos.staking.v1beta1 import genesis_pb2, staking_pb2
from chaind.store.keys import compose, decompose


@attrs.frozen
class GenesisValidator:
    """A validator a new chain's genesis creates (the shorthand entry, or a gen tx's MsgCreateValidator)."""

    operator: bytes            # account address of the operator
    consensus_pubkey: bytes    # 32-byte ed25519 public key
    power: int                 # tokens / 10^18
    tokens: int                # its self-delegation, bonded at genesis
    moniker: str
    rate: int = legacy_dec.parse("0.1")            # commission rates, LegacyDec atomics
    max_rate: int = legacy_dec.parse("0.2")
    max_change_rate: int = legacy_dec.parse("0.01")
    min_self_delegation: int = 1


@attrs.frozen
class Exported:
    """An export's state, read: what init stores as it is."""

    validators: tuple          # Validator records
    delegations: tuple         # (delegator, operator, shares atomics)
    unbondings: tuple          # (delegator, operator, entries)
    redelegations: tuple       # (delegator, src, dst, entries)
    last_powers: tuple         # (operator, power)
    last_total_power: int


@attrs.frozen
class StakingGenesis:
    params: Params
    validators: tuple          # GenesisValidators (a new chain's shorthand)
    exported: Exported | None = None

    @property
    def first_set(self):
        """The GenesisValidators the chain starts with: the shorthand's, or an export's last set (its powers, in
        the order CometBFT sorts a set: power descending, then address), so a node restarted from an export
        knows its validator by its consensus key."""
        if self.exported is None:
            return self.validators
        records = {v.operator: v for v in self.exported.validators}
        found = []
        for operator, power in self.exported.last_powers:
            v = records[operator]
            found.append(GenesisValidator(operator, v.pubkey, power, v.tokens, v.description.get("moniker", ""),
                                          v.rate, v.max_rate, v.max_change_rate, v.min_self_delegation))
        return tuple(sorted(found, key=lambda gv: (-gv.power, consensus_address(gv.consensus_pubkey))))


def validate(section, context):
    section = section or {}
    try:
        p = parse_params(section.get("params", {}), context.base_denom)
    except ValueError as e:
        raise ValueError(f"params: {e}") from None
    if section.get("exported"):
        return StakingGenesis(p, (), _exported(section, context.bech32_prefix, p))
    unknown = set(section) - {"params", "validators", "self_delegation"}
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)} (an export's state says exported: true)")
    out = []
    for i, entry in enumerate(section.get("validators") or ()):
        try:
            out.append(_shorthand(entry, context.bech32_prefix))
        except (KeyError, TypeError, ValueError) as e:
            text = f"missing {e}" if isinstance(e, KeyError) else str(e)
            raise ValueError(f"validators[{i}]: {text}") from None
    return StakingGenesis(p, tuple(out))


def _shorthand(doc, prefix):
    """A genesis validator; its commission and minimum self-delegation default to what `gentx` sets."""
    tokens = int(doc["tokens"])
    if tokens <= 0:
        raise ValueError("a genesis validator's tokens must be positive")
    pubkey = base64.b64decode(doc["consensus_pubkey"])
    if len(pubkey) != 32:
        raise ValueError("a genesis validator's consensus_pubkey must be a 32-byte ed25519 key (base64)")
    commission = doc.get("commission", {})
    defaults = attrs.fields_dict(GenesisValidator)
    rates = {name: legacy_dec.parse(commission[name]) if name in commission else defaults[name].default
             for name in ("rate", "max_rate", "max_change_rate")}
    found = GenesisValidator(addresses.parse(doc["operator"], prefix), pubkey, tokens // POWER_REDUCTION, tokens,
                             doc.get("moniker", ""), min_self_delegation=int(doc.get("min_self_delegation", "1")),
                             **rates)
    if found.min_self_delegation > tokens:
        raise ValueError("a genesis validator's tokens are below its min_self_delegation")
    return found


def _exported(section, prefix, p):
    """x/staking's ValidateGenesis of an export's state, read into records."""
    doc = {k: v for k, v in section.items() if k not in ("params", "last_total_power")}
    try:
        state = json_format.ParseDict(doc, genesis_pb2.GenesisState())
        last_total_power = int(section.get("last_total_power", "0"))
    except (json_format.ParseError, ValueError) as e:
        raise ValueError(str(e)) from None
    valoper = prefix + "valoper"
    found, seen, cons_seen = [], set(), set()
    for i, v in enumerate(state.validators):
        try:
            record = _validator_record(v, valoper)
        except (ValueError, addresses.AddressError) as e:
            raise ValueError(f"validators[{i}]: {e}") from None
        if record.operator in seen:
            raise ValueError(f"validators[{i}]: duplicate validator in genesis state: moniker "
                             f"{record.description['moniker']}, address {v.operator_address}")
        if record.cons_address in cons_seen:
            raise ValueError(f"validators[{i}]: two validators share a consensus key")
        if record.jailed and record.status == BONDED:
            raise ValueError(f"validators[{i}]: validator is bonded and jailed in genesis state: moniker "
                             f"{record.description['moniker']}, address {v.operator_address}")
        if record.shares == 0 and record.status != UNBONDING:
            raise ValueError(f"validators[{i}]: bonded/unbonded genesis validator cannot have zero delegator "
                             f"shares, validator: {v.operator_address}")
        seen.add(record.operator)
        cons_seen.add(record.cons_address)
        found.append(record)

    def parse(text, what, kind=prefix):
        try:
            return addresses.parse(text, kind)
        except addresses.AddressError as e:
            raise ValueError(f"{what}: {e}") from None

    delegations = []
    for i, d in enumerate(state.delegations):
        operator = parse(d.validator_address, f"delegations[{i}].validator_address", valoper)
        if operator not in seen:
            raise ValueError(f"delegations[{i}]: validator {d.validator_address} is not in the genesis' validators")
        delegations.append((parse(d.delegator_address, f"delegations[{i}].delegator_address"), operator,
                            legacy_dec.parse(d.shares)))
    unbondings = tuple(
        (parse(u.delegator_address, f"unbonding_delegations[{i}].delegator_address"),
         parse(u.validator_address, f"unbonding_delegations[{i}].validator_address", valoper),
         [[e.creation_height, e.completion_time.ToNanoseconds(), e.initial_balance, e.balance, e.unbonding_id]
          for e in u.entries])
        for i, u in enumerate(state.unbonding_delegations))
    redelegations = tuple(
        (parse(r.delegator_address, f"redelegations[{i}].delegator_address"),
         parse(r.validator_src_address, f"redelegations[{i}].validator_src_address", valoper),
         parse(r.validator_dst_address, f"redelegations[{i}].validator_dst_address", valoper),
         [[e.creation_height, e.completion_time.ToNanoseconds(), e.initial_balance,
           str(legacy_dec.parse(e.shares_dst)), e.unbonding_id] for e in r.entries])
        for i, r in enumerate(state.redelegations))
    powers = tuple((parse(lp.address, f"last_validator_powers[{i}].address", valoper), lp.power)
                   for i, lp in enumerate(state.last_validator_powers))
    for i, (operator, _) in enumerate(powers):
        if operator not in seen:
            raise ValueError(f"last_validator_powers[{i}]: validator {state.last_validator_powers[i].address} is "
                             "not in the genesis' validators")
    return Exported(tuple(found), tuple(delegations), unbondings, redelegations, powers, last_total_power)


def _validator_record(v, valoper):
    if v.consensus_pubkey.type_url != ED25519_PUBKEY:
        raise ValueError(f"consensus_pubkey: {v.consensus_pubkey.type_url} is not an ed25519 key")
    rates = v.commission.commission_rates
    return Validator(
        addresses.parse(v.operator_address, valoper), ed25519_pb2.PubKey.FromString(v.consensus_pubkey.value).key,
        {name: getattr(v.description, name) for name in DESCRIPTION_FIELDS},
        legacy_dec.parse(rates.rate), legacy_dec.parse(rates.max_rate), legacy_dec.parse(rates.max_change_rate),
        v.commission.update_time.ToNanoseconds(), int(v.min_self_delegation or "0"), tokens=int(v.tokens or "0"),
        shares=legacy_dec.parse(v.delegator_shares or "0"), status=v.status, jailed=v.jailed,
        unbonding_height=v.unbonding_height, unbonding_time_ns=v.unbonding_time.ToNanoseconds())


def init_genesis(app, ctx, genesis):
    """Params, then a new chain's genesis validators (or an export's state), and the first validator set (as
    InitChain's validators)."""
    g = app.genesis
    p = genesis.params
    ctx.store.set(PARAMS_KEY, p.to_record())
    for pool in (BONDED_POOL, NOT_BONDED_POOL):
        app.ensure_account(ctx, pool)
    keeper = app.keepers["staking"]
    if genesis.exported is not None:
        _init_exported(app, keeper, ctx, genesis.exported, p)
        return
    for gv in genesis.validators:
        if keeper.validator(ctx, gv.operator) is not None:
            raise ValueError(f"genesis validator {addresses.to_bech32(g.bech32_prefix, gv.operator)} listed twice")
        if ctx.store.get(cons_key(consensus_address(gv.consensus_pubkey))) is not None:
            raise ValueError("two genesis validators share a consensus key")
        description = {**dict.fromkeys(DESCRIPTION_FIELDS, ""), "moniker": gv.moniker}
        v = Validator(gv.operator, gv.consensus_pubkey, description, gv.rate, gv.max_rate, gv.max_change_rate,
                      g.genesis_time_ns, gv.min_self_delegation,
                      tokens=gv.tokens, shares=gv.tokens * PRECISION, status=BONDED)
        keeper.set_validator(ctx, v)
        ctx.store.set(cons_key(v.cons_address), v.operator)
        # The hooks InitGenesis calls for a validator and its delegation (distribution starts tracking them);
        # their events, as those of the set's updates, are a genesis' and go nowhere.
        keeper.hooks(ctx, "after_validator_created", v.operator)
        keeper.hooks(ctx, "before_delegation_created", v.operator, v.operator)
        keeper.set_delegation(ctx, v.operator, v.operator, v.shares)
        keeper.hooks(ctx, "after_delegation_modified", v.operator, v.operator)
        app.keepers["bank"].mint(ctx, BONDED_POOL, p.bond_denom, gv.tokens)
    ctx.validator_updates.extend(keeper.apply_validator_set_updates(ctx, p)[0])


def _init_exported(app, keeper, ctx, state, p):
    """x/staking's InitGenesis of exported state: records as they are, no hooks (distribution's genesis brings its
    own records), the pools checked against bank's genesis, the validator set the last one."""
    bonded = not_bonded = 0
    for v in state.validators:
        keeper.set_validator(ctx, v)
        ctx.store.set(cons_key(v.cons_address), v.operator)
        if v.status == UNBONDING:
            ctx.store.set(compose("staking", "valq", time_key(v.unbonding_time_ns),
                                  v.unbonding_height.to_bytes(8, "big"), v.operator), b"")
        if v.status == BONDED:
            bonded += v.tokens
        else:
            not_bonded += v.tokens
    for delegator, operator, shares in state.delegations:
        keeper.set_delegation(ctx, delegator, operator, shares)
    last_id = 0
    for delegator, operator, entries in state.unbondings:
        keeper.set_unbonding(ctx, delegator, operator, entries)
        for entry in entries:
            ctx.store.set(compose("staking", "ubdq", time_key(entry[1]), delegator, operator), b"")
            not_bonded += int(entry[3])
            last_id = max(last_id, entry[4])
    for delegator, src, dst, entries in state.redelegations:
        keeper.set_redelegation(ctx, delegator, src, dst, entries)
        for entry in entries:
            ctx.store.set(compose("staking", "redq", time_key(entry[1]), delegator, src, dst), b"")
            last_id = max(last_id, entry[4])
    if last_id:
        ctx.store.set(UNBONDING_ID, str(last_id).encode())
    for name, pool, expected in (("bonded", BONDED_POOL, bonded), ("not bonded", NOT_BONDED_POOL, not_bonded)):
        held = app.keepers["bank"].balance(ctx, pool, p.bond_denom)
        if held != expected:
            raise GenesisError(f"invalid genesis: app_state.staking: {name} pool balance {held}{p.bond_denom} is "
                               f"not the sum of its tokens {expected}{p.bond_denom}")
    for operator, power in state.last_powers:
        ctx.store.set(last_power_key(operator), str(power).encode())
        ctx.validator_updates.append((keeper.validator(ctx, operator).pubkey, power))
    ctx.store.set(LAST_TOTAL_POWER, str(state.last_total_power).encode())


def _params_json(p):
    return {**to_json(protos.params(p)), "unbonding_time": format_duration(p.unbonding_time_ns),
            "min_commission_rate": legacy_dec.format(p.min_commission_rate)}


def default(context):
    return {"params": _params_json(Params(context.bond_denom)), "validators": []}


def export_genesis(app, view):
    """x/staking's ExportGenesis: params, the last set's powers, every validator, delegation, unbonding delegation
    and redelegation (LegacyDec fields as decimals, as its JSON writes them); `exported` is true."""
    prefix = app.genesis.bech32_prefix
    valoper = prefix + "valoper"
    keeper = app.keepers["staking"]
    found = keeper.validators(view)
    powers = keeper.last_powers(view)
    total = view.store.get(LAST_TOTAL_POWER)
    delegations = sorted(((decompose(key)[-2], decompose(key)[-1], int(raw))
                          for key, raw in view.store.iterate(compose("staking", "del"))))
    delegators = sorted({d for d, _, _ in delegations} | {key for key in _with_prefix(view, "ubd")}
                        | {key for key in _with_prefix(view, "red")})
    state = genesis_pb2.GenesisState(
        last_validator_powers=[genesis_pb2.LastValidatorPower(
            address=addresses.to_bech32(valoper, operator), power=power) for operator, power in sorted(powers.items())],
        validators=[_decimal_validator(protos.validator(v, valoper)) for v in found],
        delegations=[staking_pb2.Delegation(delegator_address=addresses.to_bech32(prefix, d),
                                            validator_address=addresses.to_bech32(valoper, o),
                                            shares=legacy_dec.format(shares)) for d, o, shares in delegations],
        unbonding_delegations=[protos.unbonding(prefix, d, o, entries)
                               for d in delegators for o, entries in keeper.unbondings_of(view, d)],
        redelegations=[_decimal_redelegation(protos.redelegation(prefix, d, src, dst, entries))
                       for d in delegators for src, dst, entries in keeper.redelegations_of(view, d)],
        exported=True)
    # last_total_power is a math.Int (bytes in the proto, a decimal string in the JSON).
    return {"params": _params_json(keeper.params(view)), **{k: v for k, v in to_json(state).items() if k != "params"},
            "last_total_power": str(int(total) if total else 0)}


def _with_prefix(view, word):
    return {decompose(key)[2] for key, _ in view.store.iterate(compose("staking", word))}


def _decimal_validator(v):
    v.delegator_shares = legacy_dec.format(int(v.delegator_shares))
    rates = v.commission.commission_rates
    for name in ("rate", "max_rate", "max_change_rate"):
        setattr(rates, name, legacy_dec.format(int(getattr(rates, name))))
    return v


def _decimal_redelegation(r):
    for entry in r.entries:
        entry.shares_dst = legacy_dec.format(int(entry.shares_dst))
    return r


GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis)
