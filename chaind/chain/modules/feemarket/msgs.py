"""feemarket's message: MsgUpdateParams (the gov module account's)."""

from chaind.chain import authority
from chaind.chain.amino import Amino
from chaind.chain.modules.feemarket.params import Params
from chaind.chain.msgs import MsgHandler
from chaind.pb.ethermint.feemarket.v1 import feemarket_pb2, tx_pb2


def _params_of(p):
    """The message's Params, checked as Params.Validate; a nil LegacyDec is the SDK's "invalid parameter: nil"."""
    if not p.min_gas_multiplier or not p.min_gas_price:
        raise authority.invalid_params("invalid parameter: nil")
    try:
        params = Params(no_base_fee=p.no_base_fee, base_fee_change_denominator=p.base_fee_change_denominator,
                        elasticity_multiplier=p.elasticity_multiplier, enable_height=p.enable_height,
                        base_fee=int(p.base_fee or "0"), min_gas_price=int(p.min_gas_price),
                        min_gas_multiplier=int(p.min_gas_multiplier))
        params.validate()
    except ValueError as e:
        raise authority.invalid_params(str(e)) from None
    return params


def _validate(app, msg):
    """MsgUpdateParams.ValidateBasic: the authority parses, the params validate."""
    authority.parse_address(app, msg.authority, plain=True)
    _params_of(msg.params)


def _update_params(app, ctx, msg, signer):
    authority.check(app, msg.authority)
    params = _params_of(msg.params)
    keeper = app.keepers["feemarket"]
    keeper.set_params(ctx, params)
    # The base fee param is the one the next block's starts from (x/feemarket's BeginBlock reads it).
    keeper.note_base_fee_set(ctx, ctx.height, params.base_fee)
    return [], tx_pb2.MsgUpdateParamsResponse()


MESSAGES = (
    MsgHandler("/ethermint.feemarket.v1.MsgUpdateParams", tx_pb2.MsgUpdateParams, lambda m: m.authority,
               _validate, _update_params, amino=Amino("evmos/x/feemarket/MsgUpdateParams", keep=("params",))),
)

# Amino JSON of Params (ethermint/feemarket/v1/feemarket.proto): math.Int and LegacyDec scalars.
AMINO_SHAPES = {feemarket_pb2.Params: Amino(ints=("base_fee",), decs=("min_gas_price", "min_gas_multiplier"))}
