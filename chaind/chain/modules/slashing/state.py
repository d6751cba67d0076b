"""slashing's state: signing infos (the SDK's key 0x01 | len | consensus address, its ValidatorSigningInfo
proto, so light clients read them as the SDK's) and each validator's missed blocks in the window."""

from chaind.pb.cosmos.slashing.v1beta1 import slashing_pb2
from chaind.store.keys import compose

SIGNING_INFOS = compose("slashing", "si")

# Far in the future: a tombstoned validator's jail never ends (evidence's DoubleSignJailEndTime).
DOUBLE_SIGN_JAIL_END_SECONDS = 253402300799        # 9999-12-31T23:59:59Z


def signing_info_key(cons_address):
    return compose("slashing", "si", cons_address)


def signing_info(state, cons_address):
    """The ValidatorSigningInfo proto, or None."""
    raw = state.store.get(signing_info_key(cons_address))
    return None if raw is None else slashing_pb2.ValidatorSigningInfo.FromString(raw)


def set_signing_info(state, cons_address, info):
    state.store.set(signing_info_key(cons_address), info.SerializeToString())


def signing_infos(state):
    """[(consensus address, ValidatorSigningInfo)] by address."""
    skip = len(SIGNING_INFOS) + 1
    return [(key[skip:], slashing_pb2.ValidatorSigningInfo.FromString(raw))
            for key, raw in state.store.iterate(SIGNING_INFOS)]


def _missed_key(cons_address, index):
    return compose("slashing", "missed", cons_address, index.to_bytes(8, "big"))


def missed(state, cons_address, index):
    return state.store.get(_missed_key(cons_address, index)) is not None


def set_missed(state, cons_address, index, value):
    if value:
        state.store.set(_missed_key(cons_address, index), b"\x01")
    else:
        state.store.delete(_missed_key(cons_address, index))


def clear_missed(state, cons_address):
    """DeleteMissedBlockBitmap: a validator's whole window."""
    for key, _ in list(state.store.iterate(compose("slashing", "missed", cons_address))):
        state.store.delete(key)
