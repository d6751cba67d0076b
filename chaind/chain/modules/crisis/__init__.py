"""x/crisis (Cosmos SDK v0.50): every module's registered invariants, checked each `[debug]
check-invariants-every` blocks (a broken one stops the chain) or on demand by MsgVerifyInvariant.
"""

from chaind.chain.module import Module
from chaind.chain.modules.crisis.end_block import end_block
from chaind.chain.modules.crisis.genesis import GENESIS
from chaind.chain.modules.crisis.keeper import CrisisKeeper
from chaind.chain.modules.crisis.msgs import MESSAGES

__all__ = ("MODULE", "CrisisKeeper")

MODULE = Module(
    name="crisis",
    keeper=lambda app: CrisisKeeper(app.modules),
    messages=MESSAGES,
    genesis=GENESIS,
    end_block=end_block,
    cli="chaind.chain.modules.crisis.cli",
)
