"""The errors 03-connection fails with: ibc-go v8's codespace "connection", its codes and registered texts, and the
core "ibc" and 23-commitment ones its messages use."""

from chaind.chain.errors import TxError

CONNECTION = "connection"

# 03-connection/types/errors.go
CONNECTION_ERRORS = {
    2: "connection already exists", 3: "connection not found", 4: "light client connection paths not found",
    5: "connection path is not associated to the given light client", 6: "invalid connection state",
    7: "invalid counterparty connection", 8: "invalid connection", 9: "invalid connection version",
    10: "connection version negotiation failed", 11: "invalid connection identifier",
}
CONNECTION_NOT_FOUND, PATHS_NOT_FOUND, INVALID_STATE, INVALID_COUNTERPARTY = 3, 4, 6, 7
INVALID_VERSION, NEGOTIATION_FAILED, INVALID_IDENTIFIER = 9, 10, 11

IBC_INVALID_VERSION = 10        # core/errors ErrInvalidVersion "invalid version"
COMMITMENT, INVALID_PROOF = "commitment", 2     # 23-commitment ErrInvalidProof "invalid proof"


def connection_error(code, detail=None):
    registered = CONNECTION_ERRORS[code]
    return TxError(CONNECTION, code, f"{detail}: {registered}" if detail else registered)


def ibc_invalid_version(detail):
    return TxError("ibc", IBC_INVALID_VERSION, f"{detail}: invalid version")


def empty_proof(detail):
    return TxError(COMMITMENT, INVALID_PROOF, f"{detail}: invalid proof")
