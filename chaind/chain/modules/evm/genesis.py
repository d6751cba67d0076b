"""x/evm's genesis: its params (app_state.evm.params, Evmos JSON) into state, and code for the modules' precompiles
(App.precompiles), so eth_getCode shows a contract there and Solidity's extcodesize check before a call passes."""

from google.protobuf import json_format

from chaind.chain.modules.evm import params as evm_params

# The erc20 module's precompile code (INVALID): never run, the precompile answers first.
PRECOMPILE_CODE = b"\xfe"


def init_genesis(app, ctx):
    try:
        params = evm_params.parse_params(app.genesis.document["app_state"]["evm"]["params"], app.precompiles)
        evm_params.validate(params)
    except (ValueError, json_format.ParseError) as e:
        raise ValueError(f"app_state.evm.params: {e}") from None
    problem = evm_params.unsupported(params, app.genesis.base_denom, app.precompiles)
    if problem:
        raise ValueError(f"app_state.evm.params: {problem}")
    evm_params.set_params(ctx, params)
    for address in app.precompiles:
        if not ctx.accounts.get_code(address):
            ctx.accounts.set_code(address, PRECOMPILE_CODE)
