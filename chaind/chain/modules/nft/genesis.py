"""nft's genesis: app_state.nft as the SDK's GenesisState JSON ({"classes": [Class...], "entries": [{"owner",
"nfts": [NFT...]}]}), validated as x/nft's ValidateGenesis does, then saved and minted through the keeper."""

import re

from google.protobuf import json_format

from chaind.chain.genesis import GenesisError
from chaind.chain.modules.nft import keeper
from chaind.crypto.addresses import AddressError, parse
from chaind.pb.cosmos.nft.v1beta1 import genesis_pb2

# x/nft's class and NFT id format.
_ID = re.compile(r"^[a-zA-Z][a-zA-Z0-9/:-]{2,100}$")


def parse_genesis(section, prefix):
    """(GenesisState, [(owner bytes, NFT)]); GenesisError naming what is wrong."""
    try:
        state = json_format.ParseDict(section or {}, genesis_pb2.GenesisState())
    except json_format.ParseError as e:
        raise GenesisError(f"invalid genesis: app_state.nft: {e}") from None
    for cls in state.classes:
        if not _ID.match(cls.id):
            raise GenesisError(f"invalid genesis: app_state.nft: invalid class id: {cls.id}")
    owned = []
    for entry in state.entries:
        try:
            owner = parse(entry.owner, prefix)
        except AddressError as e:
            raise GenesisError(f"invalid genesis: app_state.nft: invalid owner {entry.owner!r}: {e}") from None
        for token in entry.nfts:
            if not _ID.match(token.id):
                raise GenesisError(f"invalid genesis: app_state.nft: invalid nft id: {token.id}")
            owned.append((owner, token))
    return state, owned


def init_genesis(app, ctx):
    state, owned = parse_genesis(app.genesis.document["app_state"].get("nft"), app.genesis.bech32_prefix)
    try:
        for cls in state.classes:
            keeper.save_class(ctx, cls)
        for owner, token in owned:
            keeper.mint(app, ctx, token, owner)
            app.ensure_account(ctx, owner)
    except Exception as e:
        raise GenesisError(f"invalid genesis: app_state.nft: {e}") from None
