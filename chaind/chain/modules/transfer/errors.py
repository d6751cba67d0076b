"""The errors ICS-20 fails with: ibc-go v8.5's codespace "transfer" with its codes and registered texts
(apps/transfer/types/errors.go), and the core "ibc" ones it wraps."""

from chaind.chain.errors import TxError

TRANSFER = "transfer"

TRANSFER_ERRORS = {
    2: "invalid packet timeout", 3: "invalid denomination for cross-chain transfer", 4: "invalid ICS20 version",
    5: "invalid token amount", 6: "denomination trace not found",
    7: "fungible token transfers from this chain are disabled",
    8: "fungible token transfers to this chain are disabled", 9: "max transfer channels",
    10: "invalid transfer authorization", 11: "invalid memo",
}
INVALID_PACKET_TIMEOUT, INVALID_DENOM, INVALID_VERSION, INVALID_AMOUNT, TRACE_NOT_FOUND = 2, 3, 4, 5, 6
SEND_DISABLED, RECEIVE_DISABLED, MAX_TRANSFER_CHANNELS, INVALID_AUTHORIZATION, INVALID_MEMO = 7, 8, 9, 10, 11

IBC = "ibc"         # core/errors/errors.go
IBC_ERRORS = {2: "unauthorized", 3: "insufficient funds", 4: "unknown request", 5: "invalid address",
              6: "invalid coins", 8: "invalid request", 12: "invalid type"}
UNAUTHORIZED, INSUFFICIENT_FUNDS, UNKNOWN_REQUEST, INVALID_ADDRESS = 2, 3, 4, 5
INVALID_COINS, INVALID_REQUEST, INVALID_TYPE = 6, 8, 12


def transfer_error(code, detail=None):
    return _error(TRANSFER, TRANSFER_ERRORS, code, detail)


def ibc_error(code, detail=None):
    return _error(IBC, IBC_ERRORS, code, detail)


def _error(codespace, texts, code, detail):
    registered = texts[code]
    return TxError(codespace, code, f"{detail}: {registered}" if detail else registered)
