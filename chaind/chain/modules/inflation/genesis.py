"""inflation's genesis: app_state.inflation (Evmos v20's GenesisState: params, period, epoch_identifier,
epochs_per_period, skipped_epochs) into state, and its module account."""

from chaind.chain import legacy_dec
from chaind.chain.module_genesis import ModuleGenesis
from chaind.chain.modules.inflation.keeper import INFLATION_ACCOUNT
from chaind.chain.modules.inflation.params import DECIMALS, Params, Schedule, parse_genesis


def validate(section, context):
    unknown = set(section or {}) - {"params", "period", "epoch_identifier", "epochs_per_period", "skipped_epochs"}
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)}")
    return parse_genesis(section, context.base_denom)


def init_genesis(app, ctx, genesis):
    p, found = genesis
    keeper = app.keepers["inflation"]
    keeper.set_params(ctx, p)
    keeper.set_schedule(ctx, found)
    app.ensure_account(ctx, INFLATION_ACCOUNT)


def _section(p, found):
    doc = {"params": {"mint_denom": p.mint_denom,
                      **{group: {name: legacy_dec.format(getattr(p, name)) for name in names}
                         for group, names in DECIMALS.items()},
                      "enable_inflation": p.enable_inflation},
           "period": str(found.period), "epoch_identifier": found.epoch_identifier,
           "epochs_per_period": str(found.epochs_per_period), "skipped_epochs": str(found.skipped_epochs)}
    return doc


def default(context):
    return _section(Params(context.base_denom), Schedule())


def export_genesis(app, view):
    keeper = app.keepers["inflation"]
    return _section(keeper.params(view), keeper.schedule(view))


GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis)
