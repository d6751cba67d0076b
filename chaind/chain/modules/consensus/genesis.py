"""x/consensus's genesis: the genesis document's consensus_params into state, as the SDK's InitChain stores
the ones CometBFT hands it."""

from chaind.chain.modules.consensus import params as cp


def init_genesis(app, ctx):
    params = cp.of_document(app.genesis.document)
    try:
        cp.validate(params)
    except ValueError as e:
        raise ValueError(f"consensus_params: {e}") from None
    cp.set_params(ctx, params)
