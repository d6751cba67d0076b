"""epochs' begin blocker (Evmos x/epochs): start each epoch timer, end an epoch once its duration has passed."""

from chaind.chain.block import Event, event
from chaind.chain.module import hook_listeners, run_hook
from chaind.chain.modules.epochs.hooks import EPOCH_HOOKS
from chaind.chain.modules.epochs.keeper import EpochInfo, peek


def _hooks(app, ctx, name, identifier, number):
    return run_hook(app, ctx, hook_listeners(app.modules, EPOCH_HOOKS.name), name, identifier, number)


def begin_block(app, ctx):
    """BeginBlocker: at most one start or end per epoch per block, in identifier order; its hooks run at once."""
    keeper = app.keepers["epochs"]
    now = ctx.time_ns
    events = []
    for record in keeper.epoch_records(ctx):
        seen = peek(record)
        start = not seen.epoch_counting_started and seen.start_time_ns <= now
        end = now > seen.current_epoch_start_time_ns + seen.duration_ns and not start and seen.start_time_ns <= now
        if not (start or end):
            continue
        info = EpochInfo.from_record(record)
        info.current_epoch_start_height = ctx.height
        if start:
            info.epoch_counting_started = True
            info.current_epoch = 1
            info.current_epoch_start_time_ns = info.start_time_ns
        else:
            info.current_epoch += 1
            info.current_epoch_start_time_ns += info.duration_ns
            events.append(event("epoch_end", ("epoch_number", str(info.current_epoch))))
            events += _hooks(app, ctx, "after_epoch_end", info.identifier, info.current_epoch)
        keeper.set_epoch_info(ctx, info)
        # Unix seconds, floored as Go's Time.Unix()
        events.append(event("epoch_start", ("epoch_number", str(info.current_epoch)),
                            ("start_time", str(info.current_epoch_start_time_ns // 10**9))))
        events += _hooks(app, ctx, "before_epoch_start", info.identifier, info.current_epoch)
    # FinalizeBlock marks what its begin blockers emitted.
    ctx.events.extend(Event(e.type, e.attributes + (("mode", "BeginBlock", True),)) for e in events)
