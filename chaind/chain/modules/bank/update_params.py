"""bank's MsgUpdateParams (the gov module account's), as the v0.50 msg server checks it."""

from chaind.chain import authority
from chaind.chain.amino import Amino
from chaind.chain.msgs import MsgHandler
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2


def _validate(app, msg):
    pass    # v0.50's bank MsgUpdateParams has no ValidateBasic: the msg server checks all


def _update_params(app, ctx, msg, signer):
    authority.check(app, msg.authority)
    if len(msg.params.send_enabled):
        raise authority.invalid_params("use of send_enabled in params is no longer supported")
    app.keepers["bank"].set_default_send_enabled(ctx, msg.params.default_send_enabled)
    return [], tx_pb2.MsgUpdateParamsResponse()


UPDATE_PARAMS = (
    MsgHandler("/cosmos.bank.v1beta1.MsgUpdateParams", tx_pb2.MsgUpdateParams, lambda m: m.authority,
               _validate, _update_params, amino=Amino("cosmos-sdk/x/bank/MsgUpdateParams", keep=("params",))),
)
