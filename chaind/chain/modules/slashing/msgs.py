"""slashing's messages: MsgUnjail, and MsgUpdateParams from the gov authority."""

from chaind.chain import authority, errors
from chaind.chain.amino import Amino
from chaind.chain.block import event
from chaind.chain.modules.slashing.params import Params, validate
from chaind.chain.msgs import MsgHandler
from chaind.crypto.addresses import AddressError, parse
from chaind.pb.cosmos.slashing.v1beta1 import slashing_pb2, tx_pb2


def _operator(app, text):
    try:
        return parse(text, app.genesis.bech32_prefix + "valoper")
    except AddressError as e:
        raise errors.invalid_address(f"validator input address: {e}") from None


def _validate_unjail(app, msg):
    _operator(app, msg.validator_addr)


def _unjail(app, ctx, msg, signer):
    app.keepers["slashing"].unjail(ctx, _operator(app, msg.validator_addr))
    return [event("message", ("module", "slashing"), ("sender", msg.validator_addr))], tx_pb2.MsgUnjailResponse()


def _validate_update_params(app, msg):
    authority.parse_address(app, msg.authority)


def _update_params(app, ctx, msg, signer):
    authority.check(app, msg.authority)
    try:
        p = validate(Params.of_proto(msg.params))
    except ValueError as e:
        raise authority.invalid_params(str(e)) from None
    app.keepers["slashing"].set_params(ctx, p)
    return [], tx_pb2.MsgUpdateParamsResponse()


MESSAGES = (
    MsgHandler("/cosmos.slashing.v1beta1.MsgUnjail", tx_pb2.MsgUnjail, lambda m: m.validator_addr,
               _validate_unjail, _unjail,
               amino=Amino("cosmos-sdk/MsgUnjail", keep=("validator_addr",), renames={"validator_addr": "address"})),
    MsgHandler("/cosmos.slashing.v1beta1.MsgUpdateParams", tx_pb2.MsgUpdateParams, lambda m: m.authority,
               _validate_update_params, _update_params,
               amino=Amino("cosmos-sdk/x/slashing/MsgUpdateParams", keep=("params",))),
)

# Amino JSON of Params (cosmos-sdk v0.50 proto/cosmos/slashing/v1beta1/slashing.proto): its decimals are
# LegacyDec bytes, written as decimals; the duration as Go's.
AMINO_SHAPES = {
    slashing_pb2.Params: Amino(decs=("min_signed_per_window", "slash_fraction_double_sign",
                                     "slash_fraction_downtime")),
}
