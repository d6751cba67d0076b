"""x/consensus's message: MsgUpdateParams from the gov authority; the new params hold from the next block on."""

from chaind.chain import authority, errors
from chaind.chain.amino import Amino
from chaind.chain.block import event
from chaind.chain.modules.consensus import params as cp
from chaind.chain.msgs import MsgHandler
from chaind.pb.cosmos.consensus.v1 import tx_pb2
from chaind.pb.tendermint.types import params_pb2


def _validate(app, msg):
    """MsgUpdateParams has no ValidateBasic in v0.50: x/tx's signer check parses the authority."""
    authority.parse_address(app, msg.authority)


def to_proto_params(msg):
    """MsgUpdateParams.ToProtoConsensusParams: every section but abci is required; version is CometBFT's
    default (x/upgrade keeps the app version)."""
    if not (msg.HasField("evidence") and msg.HasField("block") and msg.HasField("validator")):
        raise authority.invalid_params("all parameters must be present")
    out = params_pb2.ConsensusParams(block=msg.block, evidence=msg.evidence, validator=msg.validator,
                                     version=params_pb2.VersionParams())
    if msg.HasField("abci"):
        out.abci.CopyFrom(msg.abci)
    return out


def _update_params(app, ctx, msg, signer):
    authority.check(app, msg.authority)
    update = to_proto_params(msg)
    keeper = app.keepers["consensus"]
    raw = keeper.stored(ctx)
    if raw is None:
        raise errors.TxError("undefined", 1, "collections: not found: key 'no_key' of type "
                             "tendermint.types.ConsensusParams")
    current = cp.decoded(raw)
    following = cp.updated(current, update)
    try:
        cp.validate(following)
        cp.validate_update(current, update, ctx.height)
    except ValueError as e:
        raise authority.invalid_params(str(e)) from None
    keeper.set_params(ctx, following)
    return [event("update_consensus_params", ("authority", msg.authority), ("parameters", compact_text(update)))], \
        tx_pb2.MsgUpdateParamsResponse()


def compact_text(message):
    """gogoproto's CompactTextString of a message (set fields in field order, each followed by a space;
    messages as name:<...>, strings quoted), as the SDK's event attribute shows the params."""
    out = []
    for field, value in message.ListFields():
        values = value if field.is_repeated else [value]
        for item in values:
            if field.type == field.TYPE_MESSAGE:
                out.append(f"{field.name}:<{compact_text(item)}> ")
            elif field.type == field.TYPE_STRING:
                out.append(f'{field.name}:"{item}" ')
            else:
                out.append(f"{field.name}:{item} ")
    return "".join(out)


MESSAGES = (
    MsgHandler("/cosmos.consensus.v1.MsgUpdateParams", tx_pb2.MsgUpdateParams, lambda m: m.authority,
               _validate, _update_params, amino=Amino("cosmos-sdk/x/consensus/MsgUpdateParams")),
)
