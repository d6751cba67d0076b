"""staking's messages: MsgCreateValidator, MsgEditValidator, MsgDelegate, MsgUndelegate, MsgBeginRedelegate,
MsgCancelUnbondingDelegation."""

import re

from chaind.chain import authority, errors, legacy_dec
from chaind.chain.amino import Amino
from chaind.chain.block import event
from chaind.chain.modules.staking.errors import NO_VALIDATOR, error
from chaind.chain.modules.staking.keys import cons_key
from chaind.chain.modules.staking.numbers import PRECISION, dec_from_wire
from chaind.chain.modules.staking.params import PARAMS_KEY, Params
from chaind.chain.modules.staking.records import (
    DAY_NS,
    DESCRIPTION_FIELDS,
    DESCRIPTION_LIMITS,
    DO_NOT_MODIFY,
    ED25519_PUBKEY,
    SECP256K1_PUBKEY,
    UNBONDED,
    UNBONDING,
    Validator,
    consensus_address,
)
from chaind.chain.msgs import MsgHandler
from chaind.crypto.addresses import AddressError, parse
from chaind.gocompat import format_time_seconds
from chaind.pb.cosmos.crypto.ed25519 import keys_pb2 as ed25519_pb2
from chaind.pb.cosmos.staking.v1beta1 import staking_pb2, tx_pb2


def _account(app, text, what):
    try:
        return parse(text, app.genesis.bech32_prefix)
    except AddressError as e:
        raise errors.invalid_address(f"invalid {what} address: {e}") from None


def _valoper(app, text, what="validator"):
    if not text:
        raise errors.invalid_address(f"invalid {what} address: empty address string is not allowed")
    try:
        return parse(text, app.genesis.bech32_prefix + "valoper")
    except AddressError as e:
        raise errors.invalid_address(f"invalid {what} address: {e}") from None


def _amount(coin, what):
    """A message's Coin: (denom, positive amount); the SDK's IsValid and IsPositive."""
    try:
        amount = int(coin.amount) if coin.amount else 0
    except ValueError:
        amount = 0
    if not re.fullmatch(r"[a-zA-Z][a-zA-Z0-9/:._-]{2,127}", coin.denom) or amount <= 0:
        raise errors.invalid_request(what)
    return coin.denom, amount


def _int(text, what):
    if not re.fullmatch(r"-?\d+", text or ""):
        raise errors.invalid_request(f"invalid {what} {text!r}")
    return int(text)


# Each handler reads the params once, first (inside an EVM call, each read is charged the SDK's KV gas), and hands
# them to the keeper's writes.


def _check_denom(p, denom):
    if denom != p.bond_denom:
        raise errors.invalid_request(f"invalid coin denomination: got {denom}, expected {p.bond_denom}")


def _description(msg_description):
    return {name: getattr(msg_description, name) for name in DESCRIPTION_FIELDS}


def _ensure_length(description):
    for name, limit in DESCRIPTION_LIMITS:
        if len(description[name]) > limit:
            label = name.replace("_", " ")
            raise errors.invalid_request(f"invalid {label} length; got: {len(description[name])}, max: {limit}")


def _validate_commission(rate, max_rate, max_change_rate):
    """CommissionRates.Validate."""
    if max_rate < 0:
        raise error(9, "commission must be positive")
    if max_rate > PRECISION:
        raise error(10, "commission cannot be more than 100%")
    if rate < 0:
        raise error(9, "commission must be positive")
    if rate > max_rate:
        raise error(11, "commission cannot be more than the max rate")
    if max_change_rate < 0:
        raise error(13, "commission change rate must be positive")
    if max_change_rate > max_rate:
        raise error(14, "commission change rate cannot be more than the max rate")


def _pubkey(any_pubkey):
    if not any_pubkey.type_url:
        raise error(39, "empty validator public key")
    if any_pubkey.type_url == SECP256K1_PUBKEY:
        raise error(6, "validator pubkey type is not supported", "got: secp256k1, expected: [ed25519]")
    if any_pubkey.type_url != ED25519_PUBKEY:
        raise errors.TxError(errors.SDK, 29, f"Expecting cryptotypes.PubKey, got {any_pubkey.type_url}: invalid type")
    try:
        key = ed25519_pb2.PubKey.FromString(any_pubkey.value).key
    except Exception:  # noqa: BLE001 (untrusted bytes: any decode failure is the sender's error)
        key = b""
    if len(key) != 32:
        raise errors.TxError(errors.SDK, 8, f"invalid ed25519 public key length {len(key)}: invalid pubkey")
    return key


def _validate_signer_field(field, is_valoper):
    def validate(app, msg):
        text = getattr(msg, field)
        if is_valoper:
            _valoper(app, text)
        else:
            _account(app, text, "delegator")
    return validate


def _create_validator(app, ctx, msg, signer):
    keeper = app.keepers["staking"]
    p = keeper.params(ctx)
    operator = _valoper(app, msg.validator_address)
    # MsgCreateValidator.Validate
    if not msg.HasField("pubkey"):
        raise error(39, "empty validator public key")
    denom, amount = _amount(msg.value, "invalid delegation amount")
    description = _description(msg.description)
    if not any(description.values()):
        raise errors.invalid_request("empty description")
    rates = msg.commission
    if not (rates.rate or rates.max_rate or rates.max_change_rate):
        raise errors.invalid_request("empty commission")
    rate = dec_from_wire(rates.rate or "0", "commission rate")
    max_rate = dec_from_wire(rates.max_rate or "0", "max commission rate")
    max_change = dec_from_wire(rates.max_change_rate or "0", "max commission change rate")
    _validate_commission(rate, max_rate, max_change)
    min_self = _int(msg.min_self_delegation or "0", "minimum self delegation")
    if min_self <= 0:
        raise errors.invalid_request("minimum self delegation must be a positive integer")
    if amount < min_self:
        raise error(16, "validator's self delegation must be greater than their minimum self delegation")
    # The msg server.
    if rate < p.min_commission_rate:
        raise error(40, "commission cannot be less than min rate", "cannot set validator commission to less than "
                    f"minimum rate of {legacy_dec.format(p.min_commission_rate)}")
    if keeper.validator(ctx, operator) is not None:
        raise error(4, "validator already exist for this operator address; must use new validator operator address")
    pubkey = _pubkey(msg.pubkey)
    if ctx.store.get(cons_key(consensus_address(pubkey))) is not None:
        raise error(5, "validator already exist for this pubkey; must use new validator pubkey")
    _check_denom(p, denom)
    _ensure_length(description)
    v = Validator(operator, pubkey, description, rate, max_rate, max_change, ctx.time_ns, min_self)
    keeper.set_validator(ctx, v)
    ctx.store.set(cons_key(v.cons_address), operator)
    events = keeper.hooks(ctx, "after_validator_created", operator)
    events += keeper.delegate(ctx, p, operator, amount, UNBONDED, v, from_account=True)[1]
    events.append(event("create_validator", ("validator", msg.validator_address), ("amount", f"{amount}{denom}")))
    return events, tx_pb2.MsgCreateValidatorResponse()


def _edit_validator(app, ctx, msg, signer):
    keeper = app.keepers["staking"]
    p = keeper.params(ctx)
    operator = _valoper(app, msg.validator_address)
    new = _description(msg.description)
    if not any(new.values()):
        raise errors.invalid_request("empty description")
    new_rate = dec_from_wire(msg.commission_rate, "commission rate") if msg.commission_rate else None
    min_self = _int(msg.min_self_delegation, "minimum self delegation") if msg.min_self_delegation else None
    if min_self is not None and min_self <= 0:
        raise errors.invalid_request("minimum self delegation must be a positive integer")
    if new_rate is not None:
        if new_rate > PRECISION or new_rate < 0:
            raise errors.invalid_request("commission rate must be between 0 and 1 (inclusive)")
        if new_rate < p.min_commission_rate:
            raise errors.invalid_request("commission rate cannot be less than the min commission rate "
                                         f"{legacy_dec.format(p.min_commission_rate)}")
    v = keeper.validator(ctx, operator)
    if v is None:
        raise error(*NO_VALIDATOR)
    description = {name: v.description[name] if new[name] == DO_NOT_MODIFY else new[name]
                   for name in DESCRIPTION_FIELDS}
    _ensure_length(description)
    v.description = description
    if new_rate is not None:
        # Commission.ValidateNewRate
        if ctx.time_ns - v.update_time_ns < DAY_NS:
            raise error(12, "commission cannot be changed more than once in 24h")
        if new_rate > v.max_rate:
            raise error(11, "commission cannot be more than the max rate")
        if new_rate - v.rate > v.max_change_rate:
            raise error(15, "commission cannot be changed more than max change rate")
        v.rate, v.update_time_ns = new_rate, ctx.time_ns
    if min_self is not None:
        if min_self <= v.min_self_delegation:
            raise error(17, "minimum self delegation cannot be decrease")
        if min_self > v.tokens:
            raise error(16, "validator's self delegation must be greater than their minimum self delegation")
        v.min_self_delegation = min_self
    keeper.set_validator(ctx, v)
    events = [event("edit_validator", ("commission_rate", legacy_dec.format(v.rate)),
                    ("min_self_delegation", str(v.min_self_delegation)))]
    return events, tx_pb2.MsgEditValidatorResponse()


def _delegate(app, ctx, msg, signer):
    keeper = app.keepers["staking"]
    p = keeper.params(ctx)
    operator = _valoper(app, msg.validator_address)
    delegator = _account(app, msg.delegator_address, "delegator")
    denom, amount = _amount(msg.amount, "invalid delegation amount")
    v = keeper.validator(ctx, operator)
    if v is None:
        raise error(*NO_VALIDATOR)
    _check_denom(p, denom)
    issued, events = keeper.delegate(ctx, p, delegator, amount, UNBONDED, v, from_account=True)
    events.append(event("delegate", ("validator", msg.validator_address), ("delegator", msg.delegator_address),
                        ("amount", f"{amount}{denom}"), ("new_shares", legacy_dec.format(issued))))
    return events, tx_pb2.MsgDelegateResponse()


def _undelegate(app, ctx, msg, signer):
    keeper = app.keepers["staking"]
    p = keeper.params(ctx)
    operator = _valoper(app, msg.validator_address)
    delegator = _account(app, msg.delegator_address, "delegator")
    denom, amount = _amount(msg.amount, "invalid shares amount")
    shares = keeper.unbond_amount(ctx, delegator, operator, amount)
    _check_denom(p, denom)
    completion, returned, events = keeper.undelegate(ctx, p, delegator, operator, shares)
    events.append(event("unbond", ("validator", msg.validator_address), ("delegator", msg.delegator_address),
                        ("amount", f"{returned}{denom}"), ("completion_time", format_time_seconds(completion))))
    response = tx_pb2.MsgUndelegateResponse()
    response.completion_time.FromNanoseconds(completion)
    response.amount.denom, response.amount.amount = denom, str(returned)
    return events, response


def _begin_redelegate(app, ctx, msg, signer):
    keeper = app.keepers["staking"]
    p = keeper.params(ctx)
    src = _valoper(app, msg.validator_src_address, "source validator")
    dst = _valoper(app, msg.validator_dst_address, "destination validator")
    for operator in (src, dst):
        if keeper.validator(ctx, operator) is None:
            raise error(*NO_VALIDATOR)
    delegator = _account(app, msg.delegator_address, "delegator")
    denom, amount = _amount(msg.amount, "invalid shares amount")
    if keeper.delegation(ctx, delegator, src) is None:
        raise errors.TxError(errors.SDK, 38, f"delegation with delegator {msg.delegator_address} not found for "
                             f"validator {msg.validator_src_address}: not found")
    shares = keeper.unbond_amount(ctx, delegator, src, amount)
    _check_denom(p, denom)
    completion, events = keeper.redelegate(ctx, p, delegator, src, dst, shares)
    events.append(event("redelegate", ("source_validator", msg.validator_src_address),
                        ("destination_validator", msg.validator_dst_address),
                        ("amount", f"{amount}{denom}"), ("completion_time", format_time_seconds(completion))))
    response = tx_pb2.MsgBeginRedelegateResponse()
    response.completion_time.FromNanoseconds(completion)
    return events, response


def _cancel_unbonding_delegation(app, ctx, msg, signer):
    """CancelUnbondingDelegation: delegate back (part of) one unbonding entry, found by its creation height."""
    keeper = app.keepers["staking"]
    p = keeper.params(ctx)
    operator = _valoper(app, msg.validator_address)
    delegator = _account(app, msg.delegator_address, "delegator")
    try:
        amount = int(msg.amount.amount) if msg.amount.amount else 0
    except ValueError:
        amount = 0
    if amount <= 0 or not msg.amount.denom:
        raise errors.invalid_request("invalid amount")
    if msg.creation_height <= 0:
        raise errors.invalid_request("invalid height")
    _check_denom(p, msg.amount.denom)
    v = keeper.validator(ctx, operator)
    if v is None:
        raise error(*NO_VALIDATOR)
    if v.tokens == 0 and v.shares > 0:
        raise error(34, "cannot delegate to validators with invalid (zero) ex-rate")
    if v.jailed:
        raise error(7, "validator for this address is currently jailed")
    entries = keeper.unbonding(ctx, delegator, operator)
    if not entries:
        # A gRPC status, not a registered error: the SDK answers it as undefined code 1.
        raise errors.TxError("undefined", 1, f"rpc error: code = NotFound desc = unbonding delegation with delegator "
                                             f"{msg.delegator_address} not found for validator {msg.validator_address}")
    index = next((i for i, e in enumerate(entries) if e[0] == msg.creation_height), None)
    if index is None:
        raise errors.TxError(errors.SDK, 38, f"unbonding delegation entry is not found at block height "
                                             f"{msg.creation_height}: not found")
    entry = entries[index]
    if int(entry[3]) < amount:
        raise errors.invalid_request("amount is greater than the unbonding delegation entry balance")
    if entry[1] < ctx.time_ns:
        raise errors.invalid_request("unbonding delegation is already processed")
    _, events = keeper.delegate(ctx, p, delegator, amount, UNBONDING, v, from_account=False)
    left = int(entry[3]) - amount
    if left == 0:
        del entries[index]
    else:
        entry[3], entry[2] = str(left), str(int(entry[2]) - amount)
    keeper.set_unbonding(ctx, delegator, operator, entries)
    events.append(event("cancel_unbonding_delegation", ("amount", f"{amount}{msg.amount.denom}"),
                        ("validator", msg.validator_address), ("delegator", msg.delegator_address),
                        ("creation_height", str(msg.creation_height))))
    return events, tx_pb2.MsgCancelUnbondingDelegationResponse()


def _validate_update_params(app, msg):
    _account(app, msg.authority, "authority")


def _params_of(msg_params):
    """staking Params.Validate over the message's params, its texts; the stored Params."""
    p = msg_params
    unbonding = p.unbonding_time.ToNanoseconds()
    if unbonding <= 0:
        raise authority.invalid_params(f"unbonding time must be positive: {unbonding}")
    if p.max_validators == 0:
        raise authority.invalid_params("max validators must be positive")
    if p.max_entries == 0:
        raise authority.invalid_params("max entries must be positive")
    if not p.bond_denom.strip():
        raise authority.invalid_params("bond denom cannot be blank")
    if not re.fullmatch(r"[a-zA-Z][a-zA-Z0-9/:._-]{2,127}", p.bond_denom):
        raise authority.invalid_params(f"invalid denom: {p.bond_denom}")
    if not p.min_commission_rate:
        raise authority.invalid_params("minimum commission rate cannot be nil: <nil>")
    rate = dec_from_wire(p.min_commission_rate, "minimum commission rate")
    if rate < 0:
        raise authority.invalid_params(f"minimum commission rate cannot be negative: {legacy_dec.format(rate)}")
    if rate > PRECISION:
        raise authority.invalid_params(
            f"minimum commission rate cannot be greater than 100%: {legacy_dec.format(rate)}")
    return Params(bond_denom=p.bond_denom, unbonding_time_ns=unbonding, max_validators=p.max_validators,
                  max_entries=p.max_entries, historical_entries=p.historical_entries, min_commission_rate=rate)


def _update_params(app, ctx, msg, signer):
    authority.check(app, msg.authority)
    ctx.store.set(PARAMS_KEY, _params_of(msg.params).to_record())
    return [], tx_pb2.MsgUpdateParamsResponse()


MESSAGES = (
    MsgHandler("/cosmos.staking.v1beta1.MsgCreateValidator", tx_pb2.MsgCreateValidator,
               lambda m: m.validator_address, _validate_signer_field("validator_address", True), _create_validator,
               amino=Amino("cosmos-sdk/MsgCreateValidator", keep=("description", "commission", "min_self_delegation",
                                                                  "value"), ints=("min_self_delegation",))),
    MsgHandler("/cosmos.staking.v1beta1.MsgEditValidator", tx_pb2.MsgEditValidator,
               lambda m: m.validator_address, _validate_signer_field("validator_address", True), _edit_validator,
               amino=Amino("cosmos-sdk/MsgEditValidator", keep=("description",), decs=("commission_rate",),
                           ints=("min_self_delegation",))),
    MsgHandler("/cosmos.staking.v1beta1.MsgDelegate", tx_pb2.MsgDelegate,
               lambda m: m.delegator_address, _validate_signer_field("delegator_address", False), _delegate,
               amino=Amino("cosmos-sdk/MsgDelegate", keep=("amount",))),
    MsgHandler("/cosmos.staking.v1beta1.MsgUndelegate", tx_pb2.MsgUndelegate,
               lambda m: m.delegator_address, _validate_signer_field("delegator_address", False), _undelegate,
               amino=Amino("cosmos-sdk/MsgUndelegate", keep=("amount",))),
    MsgHandler("/cosmos.staking.v1beta1.MsgBeginRedelegate", tx_pb2.MsgBeginRedelegate,
               lambda m: m.delegator_address, _validate_signer_field("delegator_address", False),
               _begin_redelegate, amino=Amino("cosmos-sdk/MsgBeginRedelegate", keep=("amount",))),
    MsgHandler("/cosmos.staking.v1beta1.MsgCancelUnbondingDelegation", tx_pb2.MsgCancelUnbondingDelegation,
               lambda m: m.delegator_address, _validate_signer_field("delegator_address", False),
               _cancel_unbonding_delegation,
               amino=Amino("cosmos-sdk/MsgCancelUnbondingDelegation", keep=("amount",))),
    MsgHandler("/cosmos.staking.v1beta1.MsgUpdateParams", tx_pb2.MsgUpdateParams, lambda m: m.authority,
               _validate_update_params, _update_params,
               amino=Amino("cosmos-sdk/x/staking/MsgUpdateParams", keep=("params",))),
)

# Amino JSON of the nested types (cosmos-sdk v0.50 proto/cosmos/staking/v1beta1/staking.proto).
AMINO_SHAPES = {
    staking_pb2.CommissionRates: Amino(keep=("rate", "max_rate", "max_change_rate"),
                                       decs=("rate", "max_rate", "max_change_rate")),
    staking_pb2.Params: Amino(keep=("unbonding_time", "min_commission_rate"), decs=("min_commission_rate",)),
}
