"""x/evm's genesis: the native modules' precompiles get code, so eth_getCode shows a contract there and
Solidity's extcodesize check before a call passes."""

from chaind.chain.modules.evm.state import NATIVE_PRECOMPILES

# The erc20 module's precompile code (INVALID): never run, the precompile answers first.
PRECOMPILE_CODE = b"\xfe"


def init_genesis(app, ctx):
    for address in NATIVE_PRECOMPILES:
        if not ctx.accounts.get_code(address):
            ctx.accounts.set_code(address, PRECOMPILE_CODE)
