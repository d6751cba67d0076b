"""inflation's MsgUpdateParams (the gov module account's): ValidateBasic (authority, Params.Validate), then the
authority check, as Evmos v20's msg server."""

from chaind.chain import authority
from chaind.chain.amino import Amino
from chaind.chain.modules.inflation.params import Params, validate
from chaind.chain.msgs import MsgHandler
from chaind.pb.evmos.inflation.v1 import inflation_pb2, tx_pb2


def _dec(wire):
    return int(wire) if wire else 0


def _params_of(p):
    e, d = p.exponential_calculation, p.inflation_distribution
    params = Params(mint_denom=p.mint_denom, a=_dec(e.a), r=_dec(e.r), c=_dec(e.c),
                    bonding_target=_dec(e.bonding_target), max_variance=_dec(e.max_variance),
                    staking_rewards=_dec(d.staking_rewards), usage_incentives=_dec(d.usage_incentives),
                    community_pool=_dec(d.community_pool), enable_inflation=p.enable_inflation)
    try:
        validate(params)
    except ValueError as e:
        raise authority.invalid_params(str(e)) from None
    return params


def _validate(app, msg):
    authority.parse_address(app, msg.authority, plain=True)
    _params_of(msg.params)


def _update_params(app, ctx, msg, signer):
    authority.check(app, msg.authority)
    app.keepers["inflation"].set_params(ctx, _params_of(msg.params))
    return [], tx_pb2.MsgUpdateParamsResponse()


UPDATE_PARAMS = (
    MsgHandler("/evmos.inflation.v1.MsgUpdateParams", tx_pb2.MsgUpdateParams, lambda m: m.authority,
               _validate, _update_params, amino=Amino("evmos/inflation/MsgUpdateParams", keep=("params",))),
)

# Amino JSON of Params' parts (evmos/inflation/v1): LegacyDec scalars.
AMINO_SHAPES = {
    inflation_pb2.ExponentialCalculation: Amino(decs=("a", "r", "c", "bonding_target", "max_variance")),
    inflation_pb2.InflationDistribution: Amino(decs=("staking_rewards", "usage_incentives", "community_pool")),
}
