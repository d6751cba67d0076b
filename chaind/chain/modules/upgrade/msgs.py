"""upgrade's messages: MsgSoftwareUpgrade, MsgCancelUpgrade (the gov module account's alone)."""

from chaind.chain import authority, errors
from chaind.chain.amino import Amino
from chaind.chain.msgs import MsgHandler
from chaind.pb.cosmos.upgrade.v1beta1 import tx_pb2

CODESPACE = "upgrade"


def _check_authority(app, text):
    expected = app.keepers["bank"].bech32(authority.GOV)
    if text != expected:
        raise errors.TxError(CODESPACE, 7, f"expected {expected} got {text}: expected authority account as only "
                             "signer for proposal message")


# Go's zero time.Time, as gogoproto writes a non-nullable Timestamp that was never set: 0001-01-01T00:00:00Z.
ZERO_TIME_SECONDS = -62135596800


def _validate_plan(p):
    """Plan.ValidateBasic, wrapped with "plan" as the msg server does (an absent time is Go's zero time)."""
    if p.HasField("time") and (p.time.seconds, p.time.nanos) != (ZERO_TIME_SECONDS, 0):
        detail = "time-based upgrades have been deprecated in the SDK"
    elif p.HasField("upgraded_client_state"):
        detail = "upgrade logic for IBC has been moved to the IBC module"
    elif not p.name:
        detail = "name cannot be empty"
    elif p.height <= 0:
        detail = "height must be greater than 0"
    else:
        return
    raise errors.invalid_request(f"plan: {detail}")


def _validate(app, msg):
    pass    # v0.50's upgrade messages have no ValidateBasic: the msg server checks all


def _software_upgrade(app, ctx, msg, signer):
    _check_authority(app, msg.authority)
    _validate_plan(msg.plan)
    # ScheduleUpgrade: a plan for this very block is allowed (an emergency hard fork).
    if msg.plan.height < ctx.height:
        raise errors.invalid_request("upgrade cannot be scheduled in the past")
    keeper = app.keepers["upgrade"]
    if keeper.done_height(ctx, msg.plan.name):
        raise errors.invalid_request(f"upgrade with name {msg.plan.name} has already been completed")
    plan = type(msg.plan)()
    plan.CopyFrom(msg.plan)
    # Stored as the SDK keeps it: the time field is always written, Go's zero time.
    plan.time.seconds, plan.time.nanos = ZERO_TIME_SECONDS, 0
    keeper.set_plan(ctx, plan)
    return [], tx_pb2.MsgSoftwareUpgradeResponse()


def _cancel_upgrade(app, ctx, msg, signer):
    _check_authority(app, msg.authority)
    app.keepers["upgrade"].clear_plan(ctx)
    return [], tx_pb2.MsgCancelUpgradeResponse()


MESSAGES = (
    MsgHandler("/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade", tx_pb2.MsgSoftwareUpgrade, lambda m: m.authority,
               _validate, _software_upgrade, amino=Amino("cosmos-sdk/MsgSoftwareUpgrade", keep=("plan",))),
    MsgHandler("/cosmos.upgrade.v1beta1.MsgCancelUpgrade", tx_pb2.MsgCancelUpgrade, lambda m: m.authority,
               _validate, _cancel_upgrade, amino=Amino("cosmos-sdk/MsgCancelUpgrade")),
)
