"""x/genutil: the gen txs of app_state.genutil.gen_txs (signed MsgCreateValidator txs that `chaind genesis gentx`
writes and `collect-gentxs` gathers) delivered at InitChain, so their validators sign block 1."""

from chaind.chain.module import Module
from chaind.chain.modules.genutil.genesis import GENESIS

__all__ = ("MODULE",)

MODULE = Module(name="genutil", genesis=GENESIS)
