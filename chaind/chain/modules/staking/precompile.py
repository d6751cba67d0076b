"""cosmos/evm's staking precompile at 0x...0800 (StakingI.sol): x/staking's messages for msg.sender and its
queries, through staking's own message handlers and query servicer; gas and events as cosmos/evm has them."""

import base64
import binascii

from google.protobuf import any_pb2

from chaind import errors as domain_errors
from chaind.chain.modules.staking.query import StakingQuery
from chaind.chain.modules.staking.records import ED25519_PUBKEY
from chaind.chain.native_precompile import (
    COIN,
    PAGE_REQUEST,
    Event,
    Failure,
    Method,
    Param,
    Precompile,
    indexed,
    int64,
    page_out,
    page_request,
    page_response,
    struct,
)
from chaind.crypto.addresses import checksum_address
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.crypto.ed25519 import keys_pb2 as ed25519_pb2
from chaind.pb.cosmos.staking.v1beta1 import query_pb2, staking_pb2, tx_pb2

ADDRESS = (0x800).to_bytes(20, "big")
DO_NOT_MODIFY = -1      # DO_NOT_MODIFY_COMMISSION_RATE / DO_NOT_MODIFY_MIN_SELF_DELEGATION
_CANNOT_CALL_FROM_CONTRACT = "this method can only be called directly to the precompile, not from a smart contract"

DESCRIPTION = (Param("moniker", "string"), Param("identity", "string"), Param("website", "string"),
               Param("securityContact", "string"), Param("details", "string"))
COMMISSION_RATES = (Param("rate", "uint256"), Param("maxRate", "uint256"), Param("maxChangeRate", "uint256"))
VALIDATOR = (Param("operatorAddress", "string"), Param("consensusPubkey", "string"), Param("jailed", "bool"),
             Param("status", "uint8"), Param("tokens", "uint256"), Param("delegatorShares", "uint256"),
             struct("description", DESCRIPTION), Param("unbondingHeight", "int64"),
             Param("unbondingTime", "int64"), Param("commission", "uint256"), Param("minSelfDelegation", "uint256"))
UNBONDING_ENTRY = (Param("creationHeight", "int64"), Param("completionTime", "int64"),
                   Param("initialBalance", "uint256"), Param("balance", "uint256"), Param("unbondingId", "uint64"),
                   Param("unbondingOnHoldRefCount", "int64"))
REDELEGATION_ENTRY = (Param("creationHeight", "int64"), Param("completionTime", "int64"),
                      Param("initialBalance", "uint256"), Param("sharesDst", "uint256"))
REDELEGATION = (Param("delegatorAddress", "string"), Param("validatorSrcAddress", "string"),
                Param("validatorDstAddress", "string"), struct("entries", REDELEGATION_ENTRY, array=True))
REDELEGATION_RESPONSE = (struct("redelegation", REDELEGATION),
                         struct("entries", (struct("redelegationEntry", REDELEGATION_ENTRY),
                                            Param("balance", "uint256")), array=True))


def _coin(call, amount):
    return coin_pb2.Coin(denom=call.app.keepers["staking"].params(call.view()).bond_denom, amount=str(amount))


def _completion_seconds(response):
    # Go's time.Unix(): whole seconds, rounded down.
    return response.completion_time.seconds


def _not_from_contract(call):
    code = call.accounts.get_code(call.caller)
    # An EIP-7702 delegated account (0xef0100 || address) is still an account.
    if code and not (len(code) == 23 and code[:3] == b"\xef\x01\x00"):
        raise Failure(_CANNOT_CALL_FROM_CONTRACT)


def _create_validator(call, description, rates, min_self_delegation, validator_address, pubkey, value):
    if validator_address == "0x" + "00" * 20:
        raise Failure(f"invalid validator address: {validator_address}")
    key = _base64(pubkey)
    if len(key) != 32:
        raise Failure(f"consensus pubkey len is invalid, got: {len(key)}, expected: 32")
    _not_from_contract(call)
    operator = call.requester(validator_address, "validator")
    rate, max_rate, max_change_rate = rates
    msg = tx_pb2.MsgCreateValidator(
        description=staking_pb2.Description(**_description(description)),
        commission=staking_pb2.CommissionRates(rate=str(rate), max_rate=str(max_rate),
                                               max_change_rate=str(max_change_rate)),
        min_self_delegation=str(min_self_delegation), delegator_address=call.account(operator),
        validator_address=call.valoper(operator),
        pubkey=any_pb2.Any(type_url=ED25519_PUBKEY, value=ed25519_pb2.PubKey(key=key).SerializeToString()),
        value=_coin(call, value))
    call.execute("/cosmos.staking.v1beta1.MsgCreateValidator", msg)
    call.log("CreateValidator", operator, value)
    return (True,)


def _edit_validator(call, description, validator_address, commission_rate, min_self_delegation):
    if validator_address == "0x" + "00" * 20:
        raise Failure(f"invalid validator address: {validator_address}")
    _not_from_contract(call)
    operator = call.requester(validator_address, "validator")
    msg = tx_pb2.MsgEditValidator(description=staking_pb2.Description(**_description(description)),
                                  validator_address=call.valoper(operator))
    if commission_rate != DO_NOT_MODIFY:
        msg.commission_rate = str(commission_rate)
    if min_self_delegation != DO_NOT_MODIFY:
        msg.min_self_delegation = str(min_self_delegation)
    call.execute("/cosmos.staking.v1beta1.MsgEditValidator", msg)
    call.log("EditValidator", operator, commission_rate, min_self_delegation)
    return (True,)


def _delegate(call, delegator_address, validator_address, amount):
    delegator = call.requester(delegator_address)
    msg = tx_pb2.MsgDelegate(delegator_address=call.account(delegator), validator_address=validator_address,
                             amount=_coin(call, amount))
    call.execute("/cosmos.staking.v1beta1.MsgDelegate", msg)
    operator = call.hex_of(validator_address, call.prefix + "valoper")
    # cosmos/evm: the shares `amount` is worth at the validator's rate after the delegation.
    v = call.app.keepers["staking"].validator(call.view(), operator)
    call.log("Delegate", delegator, operator, amount, v.shares_from_tokens(amount))
    return (True,)


def _undelegate(call, delegator_address, validator_address, amount):
    delegator = call.requester(delegator_address)
    msg = tx_pb2.MsgUndelegate(delegator_address=call.account(delegator), validator_address=validator_address,
                               amount=_coin(call, amount))
    completion = _completion_seconds(call.execute("/cosmos.staking.v1beta1.MsgUndelegate", msg))
    operator = call.hex_of(validator_address, call.prefix + "valoper")
    call.log("Unbond", delegator, operator, amount, completion)
    return (completion,)


def _redelegate(call, delegator_address, src_address, dst_address, amount):
    delegator = call.requester(delegator_address)
    msg = tx_pb2.MsgBeginRedelegate(delegator_address=call.account(delegator), validator_src_address=src_address,
                                    validator_dst_address=dst_address, amount=_coin(call, amount))
    completion = _completion_seconds(call.execute("/cosmos.staking.v1beta1.MsgBeginRedelegate", msg))
    valoper = call.prefix + "valoper"
    call.log("Redelegate", delegator, call.hex_of(src_address, valoper), call.hex_of(dst_address, valoper), amount,
             completion)
    return (completion,)


def _cancel_unbonding_delegation(call, delegator_address, validator_address, amount, creation_height):
    delegator = call.requester(delegator_address)
    msg = tx_pb2.MsgCancelUnbondingDelegation(
        delegator_address=call.account(delegator), validator_address=validator_address, amount=_coin(call, amount),
        creation_height=int64(creation_height))
    call.execute("/cosmos.staking.v1beta1.MsgCancelUnbondingDelegation", msg)
    operator = call.hex_of(validator_address, call.prefix + "valoper")
    call.log("CancelUnbondingDelegation", delegator, operator, amount, int64(creation_height))
    return (True,)


# -- queries ------------------------------------------------------------------------------------

def _nonzero(call, address_text, what="delegator"):
    if address_text == "0x" + "00" * 20:
        raise Failure(f"invalid {what} address: {address_text}")
    return bytes.fromhex(address_text[2:])


def _delegation(call, delegator_address, validator_address):
    delegator = call.account(_nonzero(call, delegator_address))
    request = query_pb2.QueryDelegationRequest(delegator_addr=delegator, validator_addr=validator_address)
    try:
        found = call.ask(StakingQuery(call.app), "Delegation", request).delegation_response
    except domain_errors.ChainError as e:
        if e.kind != domain_errors.Kind.NOT_FOUND:
            raise
        return 0, (call.app.keepers["staking"].params(call.view()).bond_denom, 0)
    return int(found.delegation.shares), (found.balance.denom, int(found.balance.amount))


def _unbonding_delegation(call, delegator_address, validator_address):
    delegator = call.account(_nonzero(call, delegator_address))
    request = query_pb2.QueryUnbondingDelegationRequest(delegator_addr=delegator, validator_addr=validator_address)
    try:
        found = call.ask(StakingQuery(call.app), "UnbondingDelegation", request).unbond
    except domain_errors.ChainError as e:
        if e.kind != domain_errors.Kind.NOT_FOUND:
            raise
        return (("", "", []),)
    entries = [(e.creation_height, e.completion_time.seconds, int(e.initial_balance), int(e.balance), e.unbonding_id,
                e.unbonding_on_hold_ref_count) for e in found.entries]
    return ((found.delegator_address, found.validator_address, entries),)


def _validator_out(call, v):
    operator = call.hex_of(v.operator_address, call.prefix + "valoper")
    description = tuple(getattr(v.description, name) for name in ("moniker", "identity", "website",
                                                                  "security_contact", "details"))
    pubkey = ed25519_pb2.PubKey.FromString(v.consensus_pubkey.value).key
    return (checksum_address(operator), _base64_text(pubkey), v.jailed, v.status, int(v.tokens),
            int(v.delegator_shares), description, v.unbonding_height, v.unbonding_time.seconds,
            int(v.commission.commission_rates.rate), int(v.min_self_delegation))


_EMPTY_VALIDATOR = ("", "", False, 0, 0, 0, ("", "", "", "", ""), 0, 0, 0, 0)


def _validator(call, validator_address):
    operator = _nonzero(call, validator_address, "validator")
    request = query_pb2.QueryValidatorRequest(validator_addr=call.valoper(operator))
    try:
        found = call.ask(StakingQuery(call.app), "Validator", request).validator
    except domain_errors.ChainError as e:
        if e.kind != domain_errors.Kind.NOT_FOUND:
            raise
        return (_EMPTY_VALIDATOR,)
    return (_validator_out(call, found),)


def _validators(call, status, page):
    request = query_pb2.QueryValidatorsRequest(status=status, pagination=page_request(page))
    found = call.ask(StakingQuery(call.app), "Validators", request)
    return [_validator_out(call, v) for v in found.validators], page_out(found.pagination)


def _redelegation_entry(e):
    return (e.creation_height, e.completion_time.seconds, int(e.initial_balance), int(e.shares_dst))


def _redelegation(call, delegator_address, src_address, dst_address):
    delegator = call.account(_nonzero(call, delegator_address))
    valoper = call.prefix + "valoper"
    call.hex_of(src_address, valoper)
    call.hex_of(dst_address, valoper)
    request = query_pb2.QueryRedelegationsRequest(delegator_addr=delegator, src_validator_addr=src_address,
                                                  dst_validator_addr=dst_address)
    try:
        found = call.ask(StakingQuery(call.app), "Redelegations", request).redelegation_responses[0].redelegation
    except domain_errors.ChainError as e:
        if e.kind != domain_errors.Kind.NOT_FOUND:
            raise
        return (("", "", "", []),)
    return ((found.delegator_address, found.validator_src_address, found.validator_dst_address,
             [_redelegation_entry(e) for e in found.entries]),)


def _redelegations(call, delegator_address, src_address, dst_address, page):
    delegator = "" if delegator_address == "0x" + "00" * 20 else call.account(bytes.fromhex(delegator_address[2:]))
    if not delegator and not src_address:
        raise Failure("invalid query. Need to specify at least a source validator address or delegator address")
    request = query_pb2.QueryRedelegationsRequest(delegator_addr=delegator, src_validator_addr=src_address,
                                                  dst_validator_addr=dst_address, pagination=page_request(page))
    found = call.ask(StakingQuery(call.app), "Redelegations", request)
    out = []
    for response in found.redelegation_responses:
        red = response.redelegation
        out.append(((red.delegator_address, red.validator_src_address, red.validator_dst_address,
                     [_redelegation_entry(e) for e in red.entries]),
                    [(_redelegation_entry(e.redelegation_entry), int(e.balance)) for e in response.entries]))
    return out, page_out(found.pagination)


def _description(values):
    return dict(zip(("moniker", "identity", "website", "security_contact", "details"), values, strict=True))


def _base64(text):
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as e:
        raise Failure(f"illegal base64 data: {e}") from None


def _base64_text(key):
    return base64.b64encode(key).decode()


def _tx(name, inputs, outputs, handler):
    return Method(name, inputs, outputs, handler, transaction=True)


PRECOMPILE = Precompile("staking", ADDRESS, (
    _tx("createValidator", (struct("description", DESCRIPTION), struct("commissionRates", COMMISSION_RATES),
                            ("minSelfDelegation", "uint256"), ("validatorAddress", "address"), ("pubkey", "string"),
                            ("value", "uint256")), (("success", "bool"),), _create_validator),
    _tx("editValidator", (struct("description", DESCRIPTION), ("validatorAddress", "address"),
                          ("commissionRate", "int256"), ("minSelfDelegation", "int256")), (("success", "bool"),),
        _edit_validator),
    _tx("delegate", (("delegatorAddress", "address"), ("validatorAddress", "string"), ("amount", "uint256")),
        (("success", "bool"),), _delegate),
    _tx("undelegate", (("delegatorAddress", "address"), ("validatorAddress", "string"), ("amount", "uint256")),
        (("completionTime", "int64"),), _undelegate),
    _tx("redelegate", (("delegatorAddress", "address"), ("validatorSrcAddress", "string"),
                       ("validatorDstAddress", "string"), ("amount", "uint256")), (("completionTime", "int64"),),
        _redelegate),
    _tx("cancelUnbondingDelegation", (("delegatorAddress", "address"), ("validatorAddress", "string"),
                                      ("amount", "uint256"), ("creationHeight", "uint256")), (("success", "bool"),),
        _cancel_unbonding_delegation),
    Method("delegation", (("delegatorAddress", "address"), ("validatorAddress", "string")),
           (("shares", "uint256"), struct("balance", COIN)), _delegation),
    Method("unbondingDelegation", (("delegatorAddress", "address"), ("validatorAddress", "string")),
           (struct("unbondingDelegation", (Param("delegatorAddress", "string"), Param("validatorAddress", "string"),
                                           struct("entries", UNBONDING_ENTRY, array=True))),),
           _unbonding_delegation),
    Method("validator", (("validatorAddress", "address"),), (struct("validator", VALIDATOR),), _validator),
    Method("validators", (("status", "string"), PAGE_REQUEST),
           (struct("validators", VALIDATOR, array=True), page_response()), _validators),
    Method("redelegation", (("delegatorAddress", "address"), ("srcValidatorAddress", "string"),
                            ("dstValidatorAddress", "string")), (struct("redelegation", REDELEGATION),),
           _redelegation),
    Method("redelegations", (("delegatorAddress", "address"), ("srcValidatorAddress", "string"),
                             ("dstValidatorAddress", "string"), PAGE_REQUEST),
           (struct("response", REDELEGATION_RESPONSE, array=True), page_response()), _redelegations),
), events=(
    Event("CreateValidator", (indexed("validatorAddress", "address"), ("value", "uint256"))),
    Event("EditValidator", (indexed("validatorAddress", "address"), ("commissionRate", "int256"),
                            ("minSelfDelegation", "int256"))),
    Event("Delegate", (indexed("delegatorAddress", "address"), indexed("validatorAddress", "address"),
                       ("amount", "uint256"), ("newShares", "uint256"))),
    Event("Unbond", (indexed("delegatorAddress", "address"), indexed("validatorAddress", "address"),
                     ("amount", "uint256"), ("completionTime", "uint256"))),
    Event("Redelegate", (indexed("delegatorAddress", "address"), indexed("validatorSrcAddress", "address"),
                         indexed("validatorDstAddress", "address"), ("amount", "uint256"),
                         ("completionTime", "uint256"))),
    Event("CancelUnbondingDelegation", (indexed("delegatorAddress", "address"), indexed("validatorAddress", "address"),
                                        ("amount", "uint256"), ("creationHeight", "uint256"))),
))
run = PRECOMPILE
