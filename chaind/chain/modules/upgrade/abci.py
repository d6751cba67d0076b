"""upgrade's pre-blocker (x/upgrade/abci.go PreBlocker): at the plan's height, run its handler or stop the chain."""

import json

from twisted.logger import Logger

from chaind.chain.halt import ChainHalt

log = Logger()


def needed_message(p):
    """BuildUpgradeNeededMsg: what the node says when it stops for a plan it has no handler for."""
    return f'UPGRADE "{p.name}" NEEDED at height: {p.height}: {p.info}'


def upgrade_info(p):
    """data/upgrade-info.json as the SDK's DumpUpgradeInfoToDisk writes it: Go's encoding/json of a Plan holding
    the name, height and info (field order and omitempty of the gogoproto struct; the deprecated time zero)."""
    fields = {"name": p.name, "time": "0001-01-01T00:00:00Z", "height": p.height, "info": p.info}
    return json.dumps({k: v for k, v in fields.items() if v or k == "time"}, separators=(",", ":")).encode()


def pre_block(app, ctx):
    keeper = app.keepers["upgrade"]
    p = keeper.plan(ctx)
    if p is None:
        return
    handlers = app.options.upgrade_handlers
    if 0 < p.height <= ctx.height:
        handler = handlers.get(p.name)
        if handler is None:
            log.error("{message}", message=needed_message(p))
            raise ChainHalt(needed_message(p), upgrade_info(p))
        log.info('applying upgrade "{name}" at height: {height}', name=p.name, height=p.height)
        keeper.set_module_versions(ctx, handler(app, ctx, p, keeper.module_versions(ctx)))
        keeper.clear_plan(ctx)
        keeper.set_done(ctx, p.name, ctx.height)
        return
    if p.name in handlers and app.options.refuse_early_upgrades:
        raise ChainHalt(f'BINARY UPDATED BEFORE TRIGGER! UPGRADE "{p.name}" - in binary but not executed on chain. '
                        "Downgrade your binary")


def refusal_at_start(app):
    """The ChainHalt a node gives instead of starting when its next block is a plan's without a handler, or
    None (an SDK node would run that block's pre-blocker again and panic the same way)."""
    p = app.keepers["upgrade"].plan(app.view())
    if p is not None and 0 < p.height <= app.height + 1 and p.name not in app.options.upgrade_handlers:
        return ChainHalt(needed_message(p), upgrade_info(p))
    return None
