"""cosmos/evm's distribution precompile at 0x...0801 (DistributionI.sol): x/distribution's messages for
msg.sender and every query, through distribution's own message handlers and query servicer."""

from eth_utils import is_hex_address

from chaind.chain.modules.distribution.query import DistributionQuery
from chaind.chain.native_precompile import (
    DEC,
    DEC_COIN,
    PAGE_REQUEST,
    Event,
    Failure,
    Method,
    Param,
    Precompile,
    coins,
    coins_in,
    coins_out,
    dec_coins,
    dec_coins_out,
    indexed,
    page_out,
    page_request,
    page_response,
    struct,
)
from chaind.pb.cosmos.distribution.v1beta1 import query_pb2, tx_pb2

ADDRESS = (0x801).to_bytes(20, "big")
_ZERO = "0x" + "00" * 20


def _nonzero(address_text, what="delegator"):
    if address_text == _ZERO:
        raise Failure(f"invalid {what} address: {address_text}")
    return bytes.fromhex(address_text[2:])


def _bond_amount(call, paid):
    denom = call.app.keepers["staking"].params(call.view()).bond_denom
    return sum(int(c.amount) for c in paid if c.denom == denom)


def _claim_rewards(call, delegator_address, max_retrieve):
    _nonzero(delegator_address)
    max_validators = call.app.keepers["staking"].params(call.view()).max_validators
    if max_retrieve > max_validators:
        raise Failure(f"maxRetrieve ({max_retrieve}) parameter exceeds the maximum number of validators "
                      f"({max_validators})")
    delegator = call.requester(delegator_address)
    total = 0
    for operator, _ in call.app.keepers["staking"].delegations_of(call.view(), delegator)[:max_retrieve]:
        msg = tx_pb2.MsgWithdrawDelegatorReward(delegator_address=call.account(delegator),
                                                validator_address=call.valoper(operator))
        paid = call.execute("/cosmos.distribution.v1beta1.MsgWithdrawDelegatorReward", msg).amount
        total += _bond_amount(call, paid)
    call.log("ClaimRewards", delegator, total)
    return (True,)


def _set_withdraw_address(call, delegator_address, withdrawer):
    _nonzero(delegator_address)
    if is_hex_address(withdrawer):
        withdrawer = call.account(bytes.fromhex(withdrawer[2:]))
    delegator = call.requester(delegator_address)
    msg = tx_pb2.MsgSetWithdrawAddress(delegator_address=call.account(delegator), withdraw_address=withdrawer)
    call.execute("/cosmos.distribution.v1beta1.MsgSetWithdrawAddress", msg)
    call.log("SetWithdrawerAddress", delegator, withdrawer)
    return (True,)


def _withdraw_delegator_rewards(call, delegator_address, validator_address):
    _nonzero(delegator_address)
    delegator = call.requester(delegator_address)
    msg = tx_pb2.MsgWithdrawDelegatorReward(delegator_address=call.account(delegator),
                                            validator_address=validator_address)
    paid = call.execute("/cosmos.distribution.v1beta1.MsgWithdrawDelegatorReward", msg).amount
    operator = call.hex_of(validator_address, call.prefix + "valoper")
    call.log("WithdrawDelegatorReward", delegator, operator, int(paid[0].amount) if paid else 0)
    return (coins_out(paid),)


def _withdraw_validator_commission(call, validator_address):
    operator = call.hex_of(validator_address, call.prefix + "valoper")
    call.requester("0x" + operator.hex(), "validator")
    msg = tx_pb2.MsgWithdrawValidatorCommission(validator_address=validator_address)
    paid = call.execute("/cosmos.distribution.v1beta1.MsgWithdrawValidatorCommission", msg).amount
    call.log("WithdrawValidatorCommission", validator_address, int(paid[0].amount) if paid else 0)
    return (coins_out(paid),)


def _fund_community_pool(call, depositor_address, amount):
    if depositor_address == _ZERO:
        raise Failure(f"invalid hex address address: {depositor_address}")
    amount = coins_in(amount)
    depositor = call.requester(depositor_address, "depositor")
    msg = tx_pb2.MsgFundCommunityPool(depositor=call.account(depositor), amount=amount)
    call.execute("/cosmos.distribution.v1beta1.MsgFundCommunityPool", msg)
    for coin in amount:
        call.log("FundCommunityPool", depositor, coin.denom, int(coin.amount))
    return (True,)


def _deposit_validator_rewards_pool(call, depositor_address, validator_address, amount):
    if depositor_address == _ZERO:
        raise Failure(f"invalid hex address address: {depositor_address}")
    amount = coins_in(amount)
    depositor = call.requester(depositor_address, "depositor")
    msg = tx_pb2.MsgDepositValidatorRewardsPool(depositor=call.account(depositor),
                                                validator_address=validator_address, amount=amount)
    call.execute("/cosmos.distribution.v1beta1.MsgDepositValidatorRewardsPool", msg)
    operator = call.hex_of(validator_address, call.prefix + "valoper")
    for coin in amount:
        call.log("DepositValidatorRewardsPool", depositor, operator, coin.denom, int(coin.amount))
    return (True,)


# -- queries ------------------------------------------------------------------------------------

def _ask(call, name, request):
    return call.ask(DistributionQuery(call.app), name, request)


def _validator_distribution_info(call, validator_address):
    found = _ask(call, "ValidatorDistributionInfo",
                 query_pb2.QueryValidatorDistributionInfoRequest(validator_address=validator_address))
    return ((found.operator_address, dec_coins_out(found.self_bond_rewards), dec_coins_out(found.commission)),)


def _validator_outstanding_rewards(call, validator_address):
    found = _ask(call, "ValidatorOutstandingRewards",
                 query_pb2.QueryValidatorOutstandingRewardsRequest(validator_address=validator_address))
    return (dec_coins_out(found.rewards.rewards),)


def _validator_commission(call, validator_address):
    found = _ask(call, "ValidatorCommission",
                 query_pb2.QueryValidatorCommissionRequest(validator_address=validator_address))
    return (dec_coins_out(found.commission.commission),)


def _validator_slashes(call, validator_address, starting_height, ending_height, page):
    found = _ask(call, "ValidatorSlashes", query_pb2.QueryValidatorSlashesRequest(
        validator_address=validator_address, starting_height=starting_height, ending_height=ending_height,
        pagination=page_request(page)))
    # LegacyDec.BigInt(): the atomics, at precision 18.
    slashes = [(s.validator_period, (int(s.fraction), 18)) for s in found.slashes]
    return slashes, page_out(found.pagination)


def _delegation_rewards(call, delegator_address, validator_address):
    delegator = _nonzero(delegator_address)
    found = _ask(call, "DelegationRewards", query_pb2.QueryDelegationRewardsRequest(
        delegator_address=call.account(delegator), validator_address=validator_address))
    return (dec_coins_out(found.rewards),)


def _delegation_total_rewards(call, delegator_address):
    delegator = _nonzero(delegator_address)
    found = _ask(call, "DelegationTotalRewards",
                 query_pb2.QueryDelegationTotalRewardsRequest(delegator_address=call.account(delegator)))
    return [(r.validator_address, dec_coins_out(r.reward)) for r in found.rewards], dec_coins_out(found.total)


def _delegator_validators(call, delegator_address):
    delegator = _nonzero(delegator_address)
    found = _ask(call, "DelegatorValidators",
                 query_pb2.QueryDelegatorValidatorsRequest(delegator_address=call.account(delegator)))
    return (list(found.validators),)


def _delegator_withdraw_address(call, delegator_address):
    delegator = _nonzero(delegator_address)
    found = _ask(call, "DelegatorWithdrawAddress",
                 query_pb2.QueryDelegatorWithdrawAddressRequest(delegator_address=call.account(delegator)))
    return (found.withdraw_address,)


def _community_pool(call):
    return (dec_coins_out(_ask(call, "CommunityPool", query_pb2.QueryCommunityPoolRequest()).pool),)


def _tx(name, inputs, outputs, handler):
    return Method(name, inputs, outputs, handler, transaction=True)




PRECOMPILE = Precompile("distribution", ADDRESS, (
    _tx("claimRewards", (("delegatorAddress", "address"), ("maxRetrieve", "uint32")), (("success", "bool"),),
        _claim_rewards),
    _tx("setWithdrawAddress", (("delegatorAddress", "address"), ("withdrawerAddress", "string")),
        (("success", "bool"),), _set_withdraw_address),
    _tx("withdrawDelegatorRewards", (("delegatorAddress", "address"), ("validatorAddress", "string")),
        (coins("amount"),), _withdraw_delegator_rewards),
    _tx("withdrawValidatorCommission", (("validatorAddress", "string"),), (coins("amount"),),
        _withdraw_validator_commission),
    _tx("fundCommunityPool", (("depositor", "address"), coins("amount")), (("success", "bool"),),
        _fund_community_pool),
    _tx("depositValidatorRewardsPool", (("depositor", "address"), ("validatorAddress", "string"), coins("amount")),
        (("success", "bool"),), _deposit_validator_rewards_pool),
    Method("validatorDistributionInfo", (("validatorAddress", "string"),),
           (struct("distributionInfo", (Param("operatorAddress", "string"), struct("selfBondRewards", DEC_COIN, True),
                                        struct("commission", DEC_COIN, True))),), _validator_distribution_info),
    Method("validatorOutstandingRewards", (("validatorAddress", "string"),), (dec_coins("rewards"),),
           _validator_outstanding_rewards),
    Method("validatorCommission", (("validatorAddress", "string"),), (dec_coins("commission"),),
           _validator_commission),
    Method("validatorSlashes", (("validatorAddress", "string"), ("startingHeight", "uint64"),
                                ("endingHeight", "uint64"), PAGE_REQUEST),
           (struct("slashes", (Param("validatorPeriod", "uint64"), struct("fraction", DEC)), True), page_response()),
           _validator_slashes),
    Method("delegationRewards", (("delegatorAddress", "address"), ("validatorAddress", "string")),
           (dec_coins("rewards"),), _delegation_rewards),
    Method("delegationTotalRewards", (("delegatorAddress", "address"),),
           (struct("rewards", (Param("validatorAddress", "string"), struct("reward", DEC_COIN, True)), True),
            dec_coins("total")), _delegation_total_rewards),
    Method("delegatorValidators", (("delegatorAddress", "address"),), (("validators", "string[]"),),
           _delegator_validators),
    Method("delegatorWithdrawAddress", (("delegatorAddress", "address"),), (("withdrawAddress", "string"),),
           _delegator_withdraw_address),
    Method("communityPool", (), (dec_coins("coins"),), _community_pool),
), events=(
    Event("ClaimRewards", (indexed("delegatorAddress", "address"), ("amount", "uint256"))),
    Event("SetWithdrawerAddress", (indexed("caller", "address"), ("withdrawerAddress", "string"))),
    Event("WithdrawDelegatorReward", (indexed("delegatorAddress", "address"), indexed("validatorAddress", "address"),
                                      ("amount", "uint256"))),
    Event("WithdrawValidatorCommission", (indexed("validatorAddress", "string"), ("commission", "uint256"))),
    Event("FundCommunityPool", (indexed("depositor", "address"), ("denom", "string"), ("amount", "uint256"))),
    Event("DepositValidatorRewardsPool", (indexed("depositor", "address"), indexed("validatorAddress", "address"),
                                          ("denom", "string"), ("amount", "uint256"))),
))
run = PRECOMPILE
