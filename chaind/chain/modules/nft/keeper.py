"""nft's state (cosmossdk.io/x/nft): classes, NFTs, their owners, each owner's NFTs per class, and supplies.

NftKeeper's save_class and mint are how a module or genesis makes classes and NFTs (the SDK has no message
for either); send moves one.
"""

from chaind.chain import errors
from chaind.chain.block import typed_event
from chaind.pb.cosmos.nft.v1beta1 import nft_pb2
from chaind.store.keys import compose, decompose

NAME = CODESPACE = "nft"
CLASS_EXISTS = (3, "nft class already exists")
CLASS_NOT_EXISTS = (4, "nft class does not exist")
NFT_EXISTS = (5, "nft already exists")
NFT_NOT_EXISTS = (6, "nft does not exist")
EMPTY_CLASS_ID = (7, "empty class id")
EMPTY_NFT_ID = (8, "empty nft id")

_CLASSES = compose("nft", "c")


def error(kind, detail=None):
    code, text = kind
    return errors.TxError(CODESPACE, code, f"{detail}: {text}" if detail else text)


class NftKeeper:
    """x/nft's keeper, built once from bank (an event names its owner in bech32): reads take a state (a view or a
    block's context), writes a block's context."""

    def __init__(self, bank):
        self.bank = bank

    def get_class(self, state, class_id):
        raw = state.store.get(compose("nft", "c", class_id))
        return None if raw is None else nft_pb2.Class.FromString(raw)

    def classes(self, state):
        """[(class id bytes, Class)] in id order."""
        return [(decompose(key[len(_CLASSES):])[0], nft_pb2.Class.FromString(raw))
                for key, raw in state.store.iterate(_CLASSES)]

    def get_nft(self, state, class_id, nft_id):
        raw = state.store.get(compose("nft", "n", class_id, nft_id))
        return None if raw is None else nft_pb2.NFT.FromString(raw)

    def nfts_of_class(self, state, class_id):
        """[(nft id bytes, NFT)] of a class, in id order."""
        prefix = compose("nft", "n", class_id)
        return [(decompose(key[len(prefix):])[0], nft_pb2.NFT.FromString(raw))
                for key, raw in state.store.iterate(prefix)]

    def owner(self, state, class_id, nft_id):
        return state.store.get(compose("nft", "o", class_id, nft_id))

    def owned(self, state, address, class_id=None):
        """[(key after the owner, class id, nft id)] of an owner's NFTs (of one class), in key order."""
        prefix = compose("nft", "b", address) if class_id is None else compose("nft", "b", address, class_id)
        base = len(compose("nft", "b", address))
        out = []
        for key, _ in state.store.iterate(prefix):
            rest = key[base:]
            cid, nid = decompose(rest)
            out.append((rest, cid.decode(), nid.decode()))
        return out

    def supply(self, state, class_id):
        raw = state.store.get(compose("nft", "s", class_id))
        return int(raw) if raw else 0

    def balance(self, state, address, class_id):
        return len(self.owned(state, address, class_id))

    def save_class(self, ctx, cls):
        """Keeper.SaveClass: a new class (its id must be free)."""
        if not cls.id:
            raise error(EMPTY_CLASS_ID)
        if self.get_class(ctx, cls.id) is not None:
            raise error(CLASS_EXISTS, cls.id)
        ctx.store.set(compose("nft", "c", cls.id), cls.SerializeToString())

    def mint(self, ctx, token, receiver):
        """Keeper.Mint: a new NFT of an existing class, owned by `receiver`; EventMint."""
        if not token.class_id:
            raise error(EMPTY_CLASS_ID)
        if not token.id:
            raise error(EMPTY_NFT_ID)
        if self.get_class(ctx, token.class_id) is None:
            raise error(CLASS_NOT_EXISTS, token.class_id)
        if self.get_nft(ctx, token.class_id, token.id) is not None:
            raise error(NFT_EXISTS, token.id)
        ctx.store.set(compose("nft", "n", token.class_id, token.id), token.SerializeToString())
        self._own(ctx, token.class_id, token.id, receiver)
        ctx.store.set(compose("nft", "s", token.class_id), str(self.supply(ctx, token.class_id) + 1).encode())
        return [typed_event("cosmos.nft.v1beta1.EventMint", class_id=token.class_id, id=token.id,
                            owner=self.bank.bech32(receiver))]

    def transfer(self, ctx, class_id, nft_id, receiver):
        """Keeper.Transfer: the class and NFT must exist."""
        if self.get_class(ctx, class_id) is None:
            raise error(CLASS_NOT_EXISTS, class_id)
        if self.get_nft(ctx, class_id, nft_id) is None:
            raise error(NFT_NOT_EXISTS, nft_id)
        ctx.store.delete(compose("nft", "b", self.owner(ctx, class_id, nft_id), class_id, nft_id))
        self._own(ctx, class_id, nft_id, receiver)

    def _own(self, ctx, class_id, nft_id, address):
        ctx.store.set(compose("nft", "o", class_id, nft_id), address)
        ctx.store.set(compose("nft", "b", address, class_id, nft_id), b"\x01")
