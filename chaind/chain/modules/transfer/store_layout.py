"""ICS-20's records as ibc-go v8.5's transfer keeper lays them out in its `transfer` IAVL store (types/keys.go):
the port 0x01 -> port id; denom traces 0x02 | trace hash -> DenomTrace; "params" -> Params;
"totalEscrowForDenom/{denom}" -> sdk.IntProto of the amount."""

from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.store.keys import compose

STORE = "transfer"
_PORT = compose("port")
_PARAMS = compose("params")
_TRACE = compose("trace")
_ESCROW = compose("escrow")


def entries(rest, value):
    """[(key in the transfer store, value or None to delete)] of a transfer native key (`rest`: after its module
    part), or None for a key kept as it is."""
    if rest == _PORT:
        return [(b"\x01", value)]
    if rest == _PARAMS:
        return [(b"params", value)]
    if rest.startswith(_TRACE):
        return [(b"\x02" + rest[len(_TRACE) + 1:], value)]
    if rest.startswith(_ESCROW):
        key = b"totalEscrowForDenom/" + rest[len(_ESCROW) + 1:]
        return [(key, None if value is None else coin_pb2.IntProto(int=value.decode()).SerializeToString())]
    return None


def layout(bech32_prefix):
    return entries
