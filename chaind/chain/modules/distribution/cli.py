"""distribution's CLI table: rewards, commission, slashes, the community pool; withdraw-rewards (with --commission),
set-withdraw-addr, fund-community-pool, fund-validator-rewards-pool, and the hand-written withdraw-all-rewards."""

import click

from chaind.chain.cli_table import Arg, Msg, Queries, Query, Txs

_DELEGATOR, _VALIDATOR = Arg("delegator_address", "acc", "delegator"), Arg("validator_address", "val", "validator")

QUERY = Queries("chaind.pb.cosmos.distribution.v1beta1.query_pb2",
                "Rewards, commission, slashes, the community pool and parameters.", (
    Query("params", "Params", "The distribution module's parameters."),
    Query("validator-distribution-info", "ValidatorDistributionInfo",
          "A validator's commission and self-delegation rewards.", args=(_VALIDATOR,)),
    Query("validator-outstanding-rewards", "ValidatorOutstandingRewards",
          "A validator's rewards not yet withdrawn (its delegators' and its commission).", args=(_VALIDATOR,)),
    Query("commission", "ValidatorCommission", "A validator's accumulated commission.", args=(_VALIDATOR,)),
    Query("slashes", "ValidatorSlashes", "A validator's slashes between two heights.",
          args=(_VALIDATOR, Arg("starting_height", "uint", "start_height"),
                Arg("ending_height", "uint", "end_height"))),
    Query("rewards-by-validator", "DelegationRewards", "A delegator's rewards from one validator.",
          args=(_DELEGATOR, _VALIDATOR)),
    Query("rewards", "DelegationTotalRewards", "A delegator's rewards from every validator, and their total.",
          args=(_DELEGATOR,)),
    Query("delegator-validators", "DelegatorValidators", "The validators a delegator has rewards from.",
          args=(_DELEGATOR,)),
    Query("withdraw-addr", "DelegatorWithdrawAddress", "Where a delegator's rewards are paid.", args=(_DELEGATOR,)),
    Query("community-pool", "CommunityPool", "The community pool's coins."),
))

_WITHDRAW = "/cosmos.distribution.v1beta1.MsgWithdrawDelegatorReward"
_COMMISSION = "/cosmos.distribution.v1beta1.MsgWithdrawValidatorCommission"


def hand_written(kit):
    """withdraw-rewards (a delegation's rewards, and with --commission the validator's commission too) and
    withdraw-all-rewards (one message per validator the delegator has rewards from, asked of the node)."""

    @click.command("withdraw-rewards")
    @click.argument("validator")
    @click.option("--from", "from_", required=True, help="Delegator key (name or address)")
    @click.option("--commission", is_flag=True, help="Also withdraw the validator's commission (--from its operator)")
    @kit.tx_options
    def withdraw_rewards(validator, from_, commission, **_):
        """Withdraw the rewards of a delegation to VALIDATOR (valoper bech32 or 0x)."""
        from chaind.pb.cosmos.distribution.v1beta1 import tx_pb2

        ctx = click.get_current_context()
        try:
            valoper = kit.bech32_address(ctx, validator, "val")
        except ValueError as e:
            raise click.ClickException(f"invalid validator address {validator!r}: {e}") from None
        delegator = kit.to_bech32(kit.prefix(ctx, "acc"), kit.sender_address(ctx, from_))
        messages = [(_WITHDRAW, tx_pb2.MsgWithdrawDelegatorReward(delegator_address=delegator,
                                                                   validator_address=valoper))]
        if commission:
            messages.append((_COMMISSION, tx_pb2.MsgWithdrawValidatorCommission(validator_address=valoper)))
        kit.generate_or_broadcast(ctx, from_, messages)

    @click.command("withdraw-all-rewards")
    @click.option("--from", "from_", required=True, help="Delegator key (name or address)")
    @kit.tx_options
    def withdraw_all_rewards(from_, **_):
        """Withdraw the rewards of every delegation of --from, in one tx."""
        from chaind.pb.cosmos.distribution.v1beta1 import query_pb2, tx_pb2

        ctx = click.get_current_context()
        delegator = kit.to_bech32(kit.prefix(ctx, "acc"), kit.sender_address(ctx, from_))
        found = kit.rpc_client(ctx).abci_query(
            "/cosmos.distribution.v1beta1.Query/DelegatorValidators",
            query_pb2.QueryDelegatorValidatorsRequest(delegator_address=delegator),
            query_pb2.QueryDelegatorValidatorsResponse)
        if not found.validators:
            raise click.ClickException(f"{delegator} has no delegations: no rewards to withdraw")
        kit.generate_or_broadcast(ctx, from_, [
            (_WITHDRAW, tx_pb2.MsgWithdrawDelegatorReward(delegator_address=delegator, validator_address=v))
            for v in found.validators])

    return [withdraw_rewards, withdraw_all_rewards]


TX = Txs("chaind.pb.cosmos.distribution.v1beta1.tx_pb2", "Withdraw rewards and commission, fund the community pool.", (
    Msg("set-withdraw-addr", "MsgSetWithdrawAddress", "Pay the rewards of --from to WITHDRAW_ADDRESS from now on.",
        "delegator_address", args=(Arg("withdraw_address", "acc"),)),
    Msg("fund-community-pool", "MsgFundCommunityPool", "Give AMOUNT to the community pool.", "depositor",
        args=(Arg("amount", "coins"),)),
    Msg("fund-validator-rewards-pool", "MsgDepositValidatorRewardsPool",
        "Give AMOUNT to a validator's delegators (and its commission).", "depositor",
        args=(_VALIDATOR, Arg("amount", "coins"))),
), custom=hand_written, signers={"MsgWithdrawDelegatorReward": "delegator_address",
                                 "MsgWithdrawValidatorCommission": "validator_address"})
