"""distribution's messages: MsgSetWithdrawAddress, MsgWithdrawDelegatorReward, MsgWithdrawValidatorCommission,
MsgFundCommunityPool, MsgDepositValidatorRewardsPool, with the v0.50 msg server's checks in its order."""

from chaind.chain import errors
from chaind.chain.amino import Amino
from chaind.chain.block import event
from chaind.chain.modules.bank.keeper import validate_coins
from chaind.chain.modules.distribution import dec_coins
from chaind.chain.modules.distribution.errors import NO_VALIDATOR_EXISTS, SET_WITHDRAW_ADDR_DISABLED, error
from chaind.chain.modules.distribution.records import DISTRIBUTION_ACCOUNT
from chaind.chain.msgs import MsgHandler
from chaind.crypto.addresses import AddressError, parse
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.distribution.v1beta1 import tx_pb2


def _address(app, text, what, valoper=False):
    prefix = app.genesis.bech32_prefix + ("valoper" if valoper else "")
    if not text:
        raise errors.invalid_address(f"invalid {what} address: empty address string is not allowed")
    try:
        return parse(text, prefix)
    except AddressError as e:
        raise errors.invalid_address(f"invalid {what} address: {e}") from None


def _coins(proto_coins):
    """validateAmount: present, each coin valid and positive, denoms sorted and unique (Coins.Validate)."""
    if not proto_coins:
        raise errors.invalid_coins("amount cannot be nil")
    text = ",".join(f"{c.amount}{c.denom}" for c in proto_coins)
    try:
        coins = [(c.denom, int(c.amount)) for c in proto_coins]
    except ValueError:
        raise errors.invalid_coins(text) from None
    if [d for d, _ in coins] != sorted(d for d, _ in coins):
        raise errors.invalid_coins(f"{text}: denomination {coins[-1][0]} is not sorted")
    validate_coins(coins)
    return coins


def _response_coins(coins):
    return [coin_pb2.Coin(denom=d, amount=str(a)) for d, a in coins]


def _signer_check(field, valoper=False):
    def validate(app, msg):
        _address(app, getattr(msg, field), field.split("_")[0], valoper)
    return validate


def _set_withdraw_address(app, ctx, msg, signer):
    delegator = _address(app, msg.delegator_address, "delegator")
    withdraw = _address(app, msg.withdraw_address, "withdraw")
    if withdraw in {address for address, _ in app.module_accounts.values()}:
        raise errors.unauthorized(f"{app.keepers['bank'].bech32(withdraw)} is not allowed to receive external funds")
    if not app.keepers["distribution"].params(ctx).withdraw_addr_enabled:
        raise error(SET_WITHDRAW_ADDR_DISABLED)
    app.keepers["distribution"].set_withdraw_address(ctx, delegator, withdraw)
    return [event("set_withdraw_address", ("withdraw_address", app.keepers["bank"].bech32(withdraw)))], \
        tx_pb2.MsgSetWithdrawAddressResponse()


def _withdraw_delegator_reward(app, ctx, msg, signer):
    operator = _address(app, msg.validator_address, "validator", valoper=True)
    delegator = _address(app, msg.delegator_address, "delegator")
    paid, events = app.keepers["distribution"].withdraw_delegation_rewards(ctx, delegator, operator)
    return events, tx_pb2.MsgWithdrawDelegatorRewardResponse(amount=_response_coins(paid))


def _withdraw_validator_commission(app, ctx, msg, signer):
    operator = _address(app, msg.validator_address, "validator", valoper=True)
    paid, events = app.keepers["distribution"].withdraw_commission(ctx, operator)
    return events, tx_pb2.MsgWithdrawValidatorCommissionResponse(amount=_response_coins(paid))


def _fund_community_pool(app, ctx, msg, signer):
    depositor = _address(app, msg.depositor, "depositor")
    coins = _coins(msg.amount)
    events = app.keepers["distribution"].fund_community_pool(ctx, depositor, coins)
    return events, tx_pb2.MsgFundCommunityPoolResponse()


def _deposit_validator_rewards_pool(app, ctx, msg, signer):
    depositor = _address(app, msg.depositor, "depositor")
    coins = _coins(msg.amount)
    events = app.keepers["bank"].send(ctx, depositor, DISTRIBUTION_ACCOUNT, coins)
    operator = _address(app, msg.validator_address, "validator", valoper=True)
    v = app.keepers["staking"].validator(ctx, operator)
    if v is None:
        raise error(NO_VALIDATOR_EXISTS, msg.validator_address)
    events += app.keepers["distribution"].allocate_to_validator(ctx, v.operator, v.rate, dec_coins.from_coins(coins))
    return events, tx_pb2.MsgDepositValidatorRewardsPoolResponse()


MESSAGES = (
    MsgHandler("/cosmos.distribution.v1beta1.MsgSetWithdrawAddress", tx_pb2.MsgSetWithdrawAddress,
               lambda m: m.delegator_address, _signer_check("delegator_address"), _set_withdraw_address,
               amino=Amino("cosmos-sdk/MsgModifyWithdrawAddress")),
    MsgHandler("/cosmos.distribution.v1beta1.MsgWithdrawDelegatorReward", tx_pb2.MsgWithdrawDelegatorReward,
               lambda m: m.delegator_address, _signer_check("delegator_address"), _withdraw_delegator_reward,
               amino=Amino("cosmos-sdk/MsgWithdrawDelegationReward")),
    MsgHandler("/cosmos.distribution.v1beta1.MsgWithdrawValidatorCommission", tx_pb2.MsgWithdrawValidatorCommission,
               lambda m: m.validator_address, _signer_check("validator_address", valoper=True),
               _withdraw_validator_commission, amino=Amino("cosmos-sdk/MsgWithdrawValCommission")),
    MsgHandler("/cosmos.distribution.v1beta1.MsgFundCommunityPool", tx_pb2.MsgFundCommunityPool,
               lambda m: m.depositor, _signer_check("depositor"), _fund_community_pool,
               amino=Amino("cosmos-sdk/MsgFundCommunityPool", keep=("amount",), coins=("amount",))),
    MsgHandler("/cosmos.distribution.v1beta1.MsgDepositValidatorRewardsPool",
               tx_pb2.MsgDepositValidatorRewardsPool, lambda m: m.depositor, _signer_check("depositor"),
               _deposit_validator_rewards_pool,
               amino=Amino("cosmos-sdk/distr/MsgDepositValRewards", keep=("amount",), coins=("amount",))),
)
