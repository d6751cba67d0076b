"""The errors 04-channel's handshake fails with: ibc-go v8's codespace "channel" with its codes and texts, 05-port's
"port" ones, and the capability module's "capability not found" that an unbound port or unknown channel gives."""

from chaind.chain.errors import TxError

CHANNEL = "channel"

# 04-channel/types/errors.go (the handshake's and the packet slice's codes)
CHANNEL_ERRORS = {
    2: "channel already exists", 3: "channel not found", 4: "invalid channel", 5: "invalid channel state",
    6: "invalid channel ordering", 7: "invalid counterparty channel", 8: "invalid channel capability",
    9: "channel capability not found", 10: "sequence send not found", 11: "sequence receive not found",
    12: "sequence acknowledgement not found", 13: "invalid packet", 14: "packet timeout",
    15: "too many connection hops", 16: "invalid acknowledgement",
    17: "acknowledgement for packet already exists", 18: "invalid channel identifier",
    19: "packet already received", 20: "packet commitment not found", 21: "packet sequence is out of order",
    22: "packet messages are redundant", 23: "message is redundant, no-op will be performed",
    24: "invalid channel version", 25: "packet has not been sent", 26: "invalid packet timeout",
}
CHANNEL_NOT_FOUND, INVALID_STATE, INVALID_ORDERING, INVALID_COUNTERPARTY = 3, 5, 6, 7
TOO_MANY_HOPS, INVALID_IDENTIFIER, SEQUENCE_RECV_NOT_FOUND = 15, 18, 11

PORT = "port"       # 05-port/types/errors.go
PORT_ERRORS = {2: "port is already binded", 3: "port not found", 4: "invalid port", 5: "route not found"}
PORT_EXISTS, INVALID_PORT = 2, 4

CAPABILITY, CAPABILITY_NOT_FOUND = "capability", 7     # x/capability ErrCapabilityNotFound


def channel_error(code, detail=None):
    registered = CHANNEL_ERRORS[code]
    return TxError(CHANNEL, code, f"{detail}: {registered}" if detail else registered)


def port_error(code, detail=None):
    registered = PORT_ERRORS[code]
    return TxError(PORT, code, f"{detail}: {registered}" if detail else registered)


def capability_not_found(name):
    return TxError(CAPABILITY, CAPABILITY_NOT_FOUND, f"{name}: capability not found")
