"""x/auth/vesting (Cosmos SDK v0.50): MsgCreateVestingAccount (continuous, delayed), MsgCreatePermanentLockedAccount
and MsgCreatePeriodicVestingAccount. The accounts and their locked coins are auth's (chain/modules/auth/vesting.py),
which bank, the EVM and the ERC-20 precompiles respect."""

from chaind.chain.module import Module
from chaind.chain.modules.vesting.msgs import AMINO_SHAPES, MESSAGES

__all__ = ("MODULE",)

MODULE = Module(
    name="vesting",
    messages=MESSAGES,
    amino_shapes=AMINO_SHAPES,
    cli="chaind.chain.modules.vesting.cli",
)
