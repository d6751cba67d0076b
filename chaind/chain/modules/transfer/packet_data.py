"""ICS-20's packet data, ibc.applications.transfer.v2.FungibleTokenPacketData, in the JSON ibc-go v8.5 sends and
reads (GetBytes: proto JSON with proto names, empty fields left out, keys sorted as sdk.MustSortJSON writes them
through Go's encoding/json), its checks (ValidateBasic), and amounts read as math.Int reads them."""

import json

from google.protobuf import json_format

from chaind.chain.modules.transfer import errors as e
from chaind.chain.modules.transfer.denoms import validate_prefixed_denom
from chaind.pb.ibc.applications.transfer.v2 import packet_pb2

FIELDS = ("amount", "denom", "memo", "receiver", "sender")
MAX_BITS = 256          # math.Int's MaxBitLen
# What Go's encoding/json escapes that Python's json.dumps(ensure_ascii=False) writes as it is.
_GO_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
                             "\u2029": "\\u2029"})


def packet_data(denom, amount, sender, receiver, memo=""):
    return packet_pb2.FungibleTokenPacketData(denom=denom, amount=str(amount), sender=sender, receiver=receiver,
                                              memo=memo)


def go_json_string(text):
    """A string as Go's encoding/json writes it (HTML-safe)."""
    return json.dumps(text, ensure_ascii=False).translate(_GO_ESCAPES)


def to_bytes(data):
    """GetBytes: {"amount":...,"denom":...,"memo":...,"receiver":...,"sender":...}, the empty ones left out."""
    pairs = [(name, getattr(data, name)) for name in FIELDS if getattr(data, name)]
    return ("{" + ",".join(f'"{name}":{go_json_string(value)}' for name, value in pairs) + "}").encode()


def proto_json(raw, message):
    """ModuleCdc.UnmarshalJSON (jsonpb through a json.Decoder): the first JSON value of `raw`, what follows it
    unread, invalid UTF-8 read as U+FFFD, unknown fields refused; ValueError when it is no such message."""
    text = raw.decode("utf-8", "replace")
    try:
        value, _ = json.JSONDecoder().raw_decode(text, len(text) - len(text.lstrip()))
    except ValueError as error:
        raise ValueError(str(error)) from None
    if not isinstance(value, dict):
        raise ValueError(f"cannot unmarshal {type(value).__name__} into a {message.DESCRIPTOR.name}")
    direct = _direct(value, message)
    if direct is not None:
        return direct
    try:
        return json_format.ParseDict(value, message)
    except json_format.ParseError as error:
        raise ValueError(str(error)) from None


def from_bytes(raw):
    """The packet data of a packet's bytes; ValueError when they are not ICS-20's."""
    return proto_json(raw, packet_pb2.FungibleTokenPacketData())


def _direct(value, message):
    """A message of `message`'s type made of `value` when that holds only plain string fields (no list, no oneof)
    given strings, as every sender writes packet data: what ParseDict makes of it, in a twentieth of its time;
    None for anything else, which ParseDict reads (and refuses) with its reasons."""
    fields = message.DESCRIPTOR.fields_by_name
    for name, text in value.items():
        field = fields.get(name)
        if field is None or not isinstance(text, str) or field.type != field.TYPE_STRING \
                or field.is_repeated or field.containing_oneof is not None:
            return None
    try:
        return type(message)(**value)
    except ValueError:                      # an unpaired surrogate: ParseDict says so
        return None


def go_int(text):
    """sdkmath.NewIntFromString: big.Int's SetString(text, 0) (a sign, 0x/0o/0b or a leading 0 for octal,
    underscores between digits) within 256 bits; None when it is not one."""
    body = text[1:] if text[:1] in "+-" else text
    negative = text[:1] == "-"
    digits = body.replace("_", "")
    if not digits or not digits.isascii() or not digits.isalnum() or body[0] == "_" or body[-1] == "_" \
            or "__" in body:
        return None
    try:
        if len(body) > 1 and body[0] == "0" and body[1] not in "xXoObB":
            value = int(body[1:].lstrip("_"), 8) if body[1:].lstrip("_") else 0
        else:
            value = int(body, 0)
    except ValueError:
        return None
    value = -value if negative else value
    return None if abs(value).bit_length() > MAX_BITS else value


def validate(data):
    """FungibleTokenPacketData.ValidateBasic; returns the amount."""
    amount = go_int(data.amount)
    if amount is None:
        raise e.transfer_error(e.INVALID_AMOUNT, f"unable to parse transfer amount ({data.amount}) into math.Int")
    if amount <= 0:
        raise e.transfer_error(e.INVALID_AMOUNT, f"amount must be strictly positive: got {amount}")
    if not data.sender.strip():
        raise e.ibc_error(e.INVALID_ADDRESS, "sender address cannot be blank")
    if not data.receiver.strip():
        raise e.ibc_error(e.INVALID_ADDRESS, "receiver address cannot be blank")
    validate_prefixed_denom(data.denom)
    return amount

