"""nft's genesis: app_state.nft as the SDK's GenesisState JSON ({"classes": [Class...], "entries": [{"owner",
"nfts": [NFT...]}]}), checked when the genesis document is read (chain/genesis.py, so `chaind genesis validate`
refuses a bad one), then saved and minted through the keeper."""

import re

from google.protobuf import json_format

from chaind.chain.modules.nft.keeper import NAME
from chaind.crypto.addresses import AddressError, parse
from chaind.pb.cosmos.nft.v1beta1 import genesis_pb2

# x/nft's class and NFT id format.
_ID = re.compile(r"^[a-zA-Z][a-zA-Z0-9/:-]{2,100}$")


def parse_genesis(section, prefix):
    """(GenesisState, [(owner bytes, NFT)]) of app_state.nft; ValueError naming what is wrong (x/nft's
    ValidateGenesis, and what its InitGenesis would refuse: an NFT of no class, an id used twice)."""
    try:
        state = json_format.ParseDict(section or {}, genesis_pb2.GenesisState())
    except json_format.ParseError as e:
        raise ValueError(str(e)) from None
    classes = set()
    for cls in state.classes:
        if not _ID.match(cls.id):
            raise ValueError(f"invalid class id: {cls.id}")
        if cls.id in classes:
            raise ValueError(f"{cls.id}: nft class already exists")
        classes.add(cls.id)
    owned, seen = [], set()
    for entry in state.entries:
        try:
            owner = parse(entry.owner, prefix)
        except AddressError as e:
            raise ValueError(f"invalid owner {entry.owner!r}: {e}") from None
        for token in entry.nfts:
            if not _ID.match(token.id):
                raise ValueError(f"invalid nft id: {token.id}")
            if token.class_id not in classes:
                raise ValueError(f"{token.class_id}: nft class does not exist")
            if (token.class_id, token.id) in seen:
                raise ValueError(f"{token.id}: nft already exists")
            seen.add((token.class_id, token.id))
            owned.append((owner, token))
    return state, owned


def init_genesis(app, ctx):
    state, owned = parse_genesis(app.genesis.document["app_state"].get("nft"), app.genesis.bech32_prefix)
    keeper = app.keepers[NAME]
    for cls in state.classes:
        keeper.save_class(ctx, cls)
    for owner, token in owned:
        keeper.mint(ctx, token, owner)
        app.ensure_account(ctx, owner)
