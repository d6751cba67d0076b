"""ICS-20 denominations as ibc-go v8.5 traces them (apps/transfer/types/trace.go, coin.go, keys.go): a denom's
trace (its port/channel path and base denom), `ibc/` + upper-hex SHA-256 of the full path, source and sink, the
escrow address of a channel, and the checks a denom meets before it is sent or received."""

import hashlib
import re

from chaind.chain.errors import TxError
from chaind.chain.modules.ibc_channel.keeper import is_valid_channel_id
from chaind.chain.modules.ibc_client import host
from chaind.chain.modules.ibc_client.errors import plain, wrap
from chaind.chain.modules.transfer import errors as e
from chaind.pb.ibc.applications.transfer.v1 import transfer_pb2

DENOM_PREFIX = "ibc"
VERSION = "ics20-1"
_SDK_DENOM = re.compile(r"[a-zA-Z][a-zA-Z0-9/:._-]{2,127}")


def escrow_address(port_id, channel_id):
    """GetEscrowAddress: ADR 028's hash of the version, a zero byte and "port/channel", its first 20 bytes."""
    return hashlib.sha256(VERSION.encode() + b"\x00" + f"{port_id}/{channel_id}".encode()).digest()[:20]


def parse_trace(raw):
    """ParseDenomTrace: a denom's port/channel pairs (each channel a valid `channel-N`) and what follows them."""
    parts = raw.split("/")
    if len(parts) == 1:
        return transfer_pb2.DenomTrace(path="", base_denom=raw)
    path, base = [], []
    for i in range(0, len(parts), 2):
        if i < len(parts) - 1 and len(parts) > 2 and is_valid_channel_id(parts[i + 1]):
            path += parts[i:i + 2]
        else:
            base = parts[i:]
            break
    return transfer_pb2.DenomTrace(path="/".join(path), base_denom="/".join(base))


def full_path(trace):
    return f"{trace.path}/{trace.base_denom}" if trace.path else trace.base_denom


def trace_hash(trace):
    return hashlib.sha256(full_path(trace).encode()).digest()


def hash_text(digest):
    """tmbytes.HexBytes' String(): upper hex."""
    return digest.hex().upper()


def ibc_denom(trace):
    """IBCDenom: `ibc/{HASH}` of a traced denom, the base denom of a native one."""
    return f"{DENOM_PREFIX}/{hash_text(trace_hash(trace))}" if trace.path else trace.base_denom


def denom_prefix(port_id, channel_id):
    return f"{port_id}/{channel_id}/"


def receiver_chain_is_source(source_port, source_channel, denom):
    """The denom came from the receiving chain over this channel: the sender prefixed it with its end's ids."""
    return denom.startswith(denom_prefix(source_port, source_channel))


def sender_chain_is_source(source_port, source_channel, denom):
    return not receiver_chain_is_source(source_port, source_channel, denom)


def _go_strings(items):
    """Go's %s of a []string: "[a b c]"."""
    return "[" + " ".join(items) + "]"


def validate_identifiers(identifiers):
    """validateTraceIdentifiers: port/channel pairs; raises TxError (its text is ibc-go's)."""
    if not identifiers or len(identifiers) % 2:
        raise plain("trace info must come in pairs of port and channel identifiers '{portID}/{channelID}', got the "
                    f"identifiers: {_go_strings(identifiers)}")
    for i in range(0, len(identifiers), 2):
        try:
            host.check_identifier(identifiers[i], 2, 128)
        except TxError as error:
            raise wrap(error, f"invalid port ID at position {i}") from None
        try:
            host.check_identifier(identifiers[i + 1], 8, 64)
        except TxError as error:
            raise wrap(error, f"invalid channel ID at position {i}") from None


def validate_trace(trace):
    """DenomTrace.Validate."""
    if not trace.path and trace.base_denom:
        return
    if not trace.base_denom.strip():
        raise plain("base denomination cannot be blank")
    validate_identifiers(trace.path.split("/"))


def validate_prefixed_denom(denom):
    """ValidatePrefixedDenom: a packet's denom, a base denom or a trace of port/channel pairs before one."""
    parts = denom.split("/")
    if len(parts) == 1 and denom.strip():
        return
    if not parts[-1].strip():
        raise e.transfer_error(e.INVALID_DENOM, "base denomination cannot be blank")
    path = parse_trace(denom).path
    if path:
        validate_identifiers(path.split("/"))


def validate_sdk_denom(denom):
    """sdk.ValidateDenom."""
    if not _SDK_DENOM.fullmatch(denom):
        raise plain(f"invalid denom: {denom}")


def parse_hex_hash(text):
    """ParseHexHash: hex.DecodeString then tmtypes.ValidateHash (32 bytes, or none); raises TxError with Go's
    texts."""
    raw = text.encode()
    for i in range(0, len(raw) - 1, 2):
        for byte in raw[i:i + 2]:
            if not _is_hex(byte):
                raise plain(_invalid_byte(byte))
    if len(raw) % 2:
        if not _is_hex(raw[-1]):
            raise plain(_invalid_byte(raw[-1]))
        raise plain("encoding/hex: odd length hex string")
    digest = bytes.fromhex(text)
    if digest and len(digest) != 32:
        raise plain(f"expected size to be 32 bytes, got {len(digest)} bytes")
    return digest


def _is_hex(byte):
    return chr(byte) in "0123456789abcdefABCDEF"


def _invalid_byte(byte):
    """hex.InvalidByteError's text: %#U of the byte as a rune."""
    char = chr(byte)
    shown = f" '{char}'" if char.isprintable() else ""
    return f"encoding/hex: invalid byte: U+{byte:04X}{shown}"


def validate_ibc_denom(denom):
    """ValidateIBCDenom: a coin's denom that may be sent (an `ibc/{hash}` one must hold a valid hash)."""
    validate_sdk_denom(denom)
    head, _, tail = denom.partition("/")
    wrong = ("denomination should be prefixed with the format 'ibc/{hash(trace + \"/\" + " + denom + ")}'")
    if denom == DENOM_PREFIX:
        raise e.transfer_error(e.INVALID_DENOM, wrong)
    if _ and head == DENOM_PREFIX:
        if not tail.strip():
            raise e.transfer_error(e.INVALID_DENOM, wrong)
        try:
            parse_hex_hash(tail)
        except TxError as error:
            raise wrap(error, f"invalid denom trace hash {tail}") from None
