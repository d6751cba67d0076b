"""x/consensus's genesis: the document's consensus_params (CometBFT's JSON, beside app_state, as CometBFT hands
them to InitChain) into state; the export writes the params in state back there."""

from chaind.chain.module_genesis import ModuleGenesis
from chaind.chain.modules.consensus import params as cp


def validate(section, context):
    if section is None:
        raise ValueError("missing")
    params = cp.of_section(section)
    cp.validate(params)
    return params


def init_genesis(app, ctx, params):
    app.keepers["consensus"].set_params(ctx, params)


def default(context):
    """CometBFT's DefaultConsensusParams."""
    return {"block": {"max_bytes": "22020096", "max_gas": "-1"},
            "evidence": {"max_age_num_blocks": "100000", "max_age_duration": "172800000000000",
                         "max_bytes": "1048576"},
            "validator": {"pub_key_types": ["ed25519"]}, "version": {"app": "0"},
            "abci": {"vote_extensions_enable_height": "0"}}


def export_genesis(app, view):
    raw = app.keepers["consensus"].stored(view)
    return cp.to_section(cp.decoded(raw) if raw is not None else cp.of_document(app.genesis.document))


GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis,
                        key=("consensus_params",))
