"""slashing's staking hooks (x/slashing/keeper/hooks.go): a validator's window starts when it bonds."""

from chaind.chain.modules.slashing.keeper import new_signing_info


class StakingHooks:
    def after_validator_bonded(self, app, ctx, cons_address, operator):
        """AfterValidatorBonded: a new signing info, or the old one's window restarted at this height."""
        keeper = app.keepers["slashing"]
        info = keeper.signing_info(ctx, cons_address)
        if info is None:
            info = new_signing_info(keeper.valcons(cons_address), ctx.height)
        else:
            info.start_height = ctx.height
        keeper.set_signing_info(ctx, cons_address, info)
        return []
