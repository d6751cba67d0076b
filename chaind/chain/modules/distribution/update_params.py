"""distribution's MsgUpdateParams (the gov module account's), with the v0.50 msg server's checks in its order."""

from chaind.chain import authority, errors, legacy_dec
from chaind.chain.amino import Amino
from chaind.chain.modules.distribution.params import PARAMS_KEY, Params
from chaind.chain.msgs import MsgHandler
from chaind.pb.cosmos.distribution.v1beta1 import distribution_pb2, tx_pb2


def _validate(app, msg):
    pass    # v0.50's distribution messages have no ValidateBasic: the msg server checks all


def _update_params(app, ctx, msg, signer):
    authority.parse_address(app, msg.authority)
    authority.check(app, msg.authority)
    p = msg.params
    deprecated = [int(v) for v in (p.base_proposer_reward, p.bonus_proposer_reward) if v]
    if any(deprecated):
        raise errors.invalid_request("cannot update base or bonus proposer reward because these are deprecated fields")
    # A nil LegacyDec (nothing on the wire) is zero to ValidateBasic's comparisons.
    tax = int(p.community_tax) if p.community_tax else 0
    if tax < 0 or tax > legacy_dec.ONE:
        raise authority.invalid_params(
            f"community tax should be non-negative and less than one: {legacy_dec.format(tax)}")
    ctx.store.set(PARAMS_KEY, Params(community_tax=tax, withdraw_addr_enabled=p.withdraw_addr_enabled).to_record())
    return [], tx_pb2.MsgUpdateParamsResponse()


UPDATE_PARAMS = (
    MsgHandler("/cosmos.distribution.v1beta1.MsgUpdateParams", tx_pb2.MsgUpdateParams, lambda m: m.authority,
               _validate, _update_params, amino=Amino("cosmos-sdk/distribution/MsgUpdateParams", keep=("params",))),
)

# Amino JSON of Params (cosmos/distribution/v1beta1/distribution.proto): its LegacyDec scalars.
_DECS = ("community_tax", "base_proposer_reward", "bonus_proposer_reward")
AMINO_SHAPES = {distribution_pb2.Params: Amino(keep=_DECS, decs=_DECS)}
