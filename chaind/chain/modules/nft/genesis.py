"""nft's genesis: app_state.nft as the SDK's GenesisState JSON ({"classes": [Class...], "entries": [{"owner",
"nfts": [NFT...]}]}), checked when the genesis document is read (so `chaind genesis validate` refuses a bad one),
then saved and minted through the keeper; the export lists every class and each owner's NFTs."""

import re

from google.protobuf import json_format

from chaind.chain.module_genesis import ModuleGenesis, to_json
from chaind.chain.modules.nft.keeper import NAME
from chaind.crypto.addresses import AddressError, parse, to_bech32
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


def init_genesis(app, ctx, genesis):
    state, owned = genesis
    keeper = app.keepers[NAME]
    for cls in state.classes:
        keeper.save_class(ctx, cls)
    for owner, token in owned:
        keeper.mint(ctx, token, owner)
        app.ensure_account(ctx, owner)


def default(context):
    return {"classes": [], "entries": []}


def export_genesis(app, view):
    """x/nft's ExportGenesis: the classes in id order, then the NFTs grouped by owner, owners sorted."""
    keeper = app.keepers[NAME]
    classes = [cls for _, cls in keeper.classes(view)]
    by_owner = {}
    for cls in classes:
        for _, token in keeper.nfts_of_class(view, cls.id.encode()):
            owner = to_bech32(app.genesis.bech32_prefix, keeper.owner(view, token.class_id, token.id))
            by_owner.setdefault(owner, []).append(token)
    entries = [genesis_pb2.Entry(owner=owner, nfts=by_owner[owner]) for owner in sorted(by_owner)]
    return to_json(genesis_pb2.GenesisState(classes=classes, entries=entries))


def validate(section, context):
    return parse_genesis(section, context.bech32_prefix)


GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis)
