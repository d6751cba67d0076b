"""The epoch hooks (Evmos x/epochs' EpochHooks) x/epochs calls in its begin blocker and other modules listen to,
each called hook(app, ctx, identifier, number) and returning events."""

from chaind.chain.module import HookFamily

EPOCH_HOOKS = HookFamily("epochs", ("after_epoch_end", "before_epoch_start"))
