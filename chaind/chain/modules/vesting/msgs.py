"""vesting's messages: MsgCreateVestingAccount (continuous or delayed), MsgCreatePermanentLockedAccount and
MsgCreatePeriodicVestingAccount, as x/auth/vesting's msg server (SDK v0.50) checks and runs them."""

from chaind.chain import errors
from chaind.chain.amino import Amino
from chaind.chain.modules.auth import vesting
from chaind.chain.modules.bank.keeper import validate_coins
from chaind.chain.msgs import MsgHandler
from chaind.crypto.addresses import AddressError, parse
from chaind.pb.cosmos.vesting.v1beta1 import tx_pb2, vesting_pb2


def _address(app, text, what):
    try:
        return parse(text, app.genesis.bech32_prefix)
    except AddressError as e:
        raise errors.invalid_address(f"invalid '{what}' address: {e}") from None


def _amount(repeated):
    """validateAmount: valid, all positive coins (as {denom: amount})."""
    text = ",".join(f"{c.amount}{c.denom}" for c in repeated)
    try:
        pairs = [(c.denom, int(c.amount)) for c in repeated]
        validate_coins(pairs)
    except (ValueError, errors.TxError):
        raise errors.invalid_coins(text) from None
    if not pairs:
        raise errors.invalid_coins(text)
    return dict(pairs)


def _signers(app, msg):
    _address(app, msg.from_address, "from")
    _address(app, msg.to_address, "to")


def _open(app, ctx, msg, total):
    """The checks every creation shares, then the new account (its schedule set by the caller)."""
    from_, to = _address(app, msg.from_address, "from"), _address(app, msg.to_address, "to")
    if any(address == to for address, _ in app.module_accounts.values()):
        raise errors.unauthorized(f"{msg.to_address} is not allowed to receive funds")
    auth = app.keepers["auth"]
    if auth.account(ctx, to) is not None:
        raise errors.invalid_request(f"account {msg.to_address} already exists")
    auth.ensure_account(ctx, to)
    return from_, to


def _base(total, end_time):
    return vesting_pb2.BaseVestingAccount(original_vesting=vesting.coin_protos(total), end_time=end_time)


def _fund(app, ctx, from_, to, total):
    return app.keepers["bank"].send(ctx, from_, to, sorted(total.items()))


def _create_vesting_account(app, ctx, msg, signer):
    total = _amount(msg.amount)
    if msg.end_time <= 0:
        raise errors.invalid_request("invalid end time")
    from_, to = _open(app, ctx, msg, total)
    base = _base(total, msg.end_time)
    if msg.delayed:
        url, account = vesting.DELAYED, vesting_pb2.DelayedVestingAccount(base_vesting_account=base)
    else:
        url, account = vesting.CONTINUOUS, vesting_pb2.ContinuousVestingAccount(
            base_vesting_account=base, start_time=ctx.time_ns // 10**9)
    app.keepers["auth"].set_vesting_account(ctx, to, url, account)
    return _fund(app, ctx, from_, to, total), tx_pb2.MsgCreateVestingAccountResponse()


def _create_permanent_locked_account(app, ctx, msg, signer):
    total = _amount(msg.amount)
    from_, to = _open(app, ctx, msg, total)
    account = vesting_pb2.PermanentLockedAccount(base_vesting_account=_base(total, 0))
    app.keepers["auth"].set_vesting_account(ctx, to, vesting.PERMANENT, account)
    return _fund(app, ctx, from_, to, total), tx_pb2.MsgCreatePermanentLockedAccountResponse()


def _create_periodic_vesting_account(app, ctx, msg, signer):
    if msg.start_time < 1:
        raise errors.invalid_request(f"invalid start time of {msg.start_time}, length must be greater than 0")
    total, end = {}, msg.start_time
    for i, period in enumerate(msg.vesting_periods):
        if period.length < 1:
            raise errors.invalid_request(f"invalid period length of {period.length} in period {i}, "
                                         "length must be greater than 0")
        for denom, amount in _amount(period.amount).items():
            total[denom] = total.get(denom, 0) + amount
        end += period.length
    from_, to = _open(app, ctx, msg, total)
    account = vesting_pb2.PeriodicVestingAccount(base_vesting_account=_base(total, end), start_time=msg.start_time,
                                                 vesting_periods=msg.vesting_periods)
    app.keepers["auth"].set_vesting_account(ctx, to, vesting.PERIODIC, account)
    return _fund(app, ctx, from_, to, total), tx_pb2.MsgCreatePeriodicVestingAccountResponse()


MESSAGES = (
    MsgHandler("/cosmos.vesting.v1beta1.MsgCreateVestingAccount", tx_pb2.MsgCreateVestingAccount,
               lambda m: m.from_address, _signers, _create_vesting_account,
               amino=Amino("cosmos-sdk/MsgCreateVestingAccount", keep=("amount",), coins=("amount",))),
    MsgHandler("/cosmos.vesting.v1beta1.MsgCreatePermanentLockedAccount", tx_pb2.MsgCreatePermanentLockedAccount,
               lambda m: m.from_address, _signers, _create_permanent_locked_account,
               amino=Amino("cosmos-sdk/MsgCreatePermLockedAccount", keep=("amount",), coins=("amount",))),
    MsgHandler("/cosmos.vesting.v1beta1.MsgCreatePeriodicVestingAccount", tx_pb2.MsgCreatePeriodicVestingAccount,
               lambda m: m.from_address, _signers, _create_periodic_vesting_account,
               amino=Amino("cosmos-sdk/MsgCreatePeriodVestAccount", keep=("vesting_periods",))),
)

AMINO_SHAPES = {vesting_pb2.Period: Amino(keep=("amount",), coins=("amount",))}
