"""slashing's staking hooks (x/slashing/keeper/hooks.go): a validator's window starts when it bonds."""

from chaind.chain.modules.slashing import state
from chaind.chain.modules.slashing.keeper import new_signing_info
from chaind.crypto.addresses import to_bech32


class StakingHooks:
    def after_validator_bonded(self, app, ctx, cons_address, operator):
        """AfterValidatorBonded: a new signing info, or the old one's window restarted at this height."""
        info = state.signing_info(ctx, cons_address)
        if info is None:
            info = new_signing_info(to_bech32(app.genesis.bech32_prefix + "valcons", cons_address), ctx.height)
        else:
            info.start_height = ctx.height
        state.set_signing_info(ctx, cons_address, info)
        return []
