"""evm's message handled here: MsgUpdateParams from the gov authority (MsgEthereumTx is the EVM envelope:
chain/txs.py)."""

from chaind.chain import authority, errors
from chaind.chain.amino import Amino
from chaind.chain.modules.evm import params as evm_params
from chaind.chain.msgs import MsgHandler
from chaind.pb.ethermint.evm.v1 import evm_pb2, tx_pb2


def _checked(p):
    """Params.Validate's error as the tx result Evmos gives it (a registered error keeps its code)."""
    try:
        evm_params.validate(p)
    except evm_params.InvalidParams as e:
        raise errors.TxError(e.codespace, e.code, str(e)) from None


def _validate(app, msg):
    """MsgUpdateParams.ValidateBasic: the authority parses, the params validate."""
    authority.parse_address(app, msg.authority, plain=True)
    _checked(msg.params)


def _update_params(app, ctx, msg, signer):
    authority.check(app, msg.authority)
    params = evm_pb2.Params()
    params.CopyFrom(msg.params)
    # SetParams sorts the precompiles (IsActivePrecompile searches them) before it validates.
    params.active_static_precompiles[:] = sorted(params.active_static_precompiles)
    _checked(params)
    problem = evm_params.unsupported(params, app.genesis.base_denom, app.precompiles)
    if problem:
        raise errors.TxError("undefined", 1, problem)
    app.keepers["evm"].set_params(ctx, params)
    return [], tx_pb2.MsgUpdateParamsResponse()


MESSAGES = (
    MsgHandler("/ethermint.evm.v1.MsgUpdateParams", tx_pb2.MsgUpdateParams, lambda m: m.authority,
               _validate, _update_params, amino=Amino("evmos/x/evm/MsgUpdateParams", keep=("params",))),
)

# Amino JSON of Params (Evmos v20 ethermint/evm/v1/evm.proto): chain_config has amino.dont_omitempty.
AMINO_SHAPES = {evm_pb2.Params: Amino(keep=("chain_config",))}
