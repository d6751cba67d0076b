"""The errors 02-client and 07-tendermint fail with: ibc-go v8's codespaces, codes and registered texts."""

from chaind.chain.errors import TxError

CLIENT = "client"
TENDERMINT = "07-tendermint"
IBC = "ibc"

# 02-client/types/errors.go
CLIENT_ERRORS = {
    2: "light client already exists", 3: "light client is invalid", 4: "light client not found",
    5: "light client is frozen due to misbehaviour", 6: "invalid client metadata", 7: "consensus state not found",
    8: "invalid consensus state", 9: "client type not found", 10: "invalid client type",
    11: "commitment root not found", 12: "invalid client header", 13: "invalid light client misbehaviour",
    23: "unable to update light client", 24: "invalid recovery client", 26: "invalid height",
    27: "invalid client state substitute", 29: "client state is not active", 32: "light client module route not found",
}
CLIENT_NOT_FOUND, CONSENSUS_NOT_FOUND, INVALID_CONSENSUS, INVALID_CLIENT_TYPE = 4, 7, 8, 10
INVALID_CLIENT, INVALID_HEADER, INVALID_MISBEHAVIOUR, CLIENT_NOT_ACTIVE = 3, 12, 13, 29
UPDATE_FAILED, INVALID_RECOVERY, INVALID_HEIGHT, INVALID_SUBSTITUTE = 23, 24, 26, 27
ROUTE_NOT_FOUND = 32

# 07-tendermint/errors.go
TENDERMINT_ERRORS = {
    2: "invalid chain-id", 3: "invalid trusting period", 4: "invalid unbonding period", 5: "invalid header height",
    6: "invalid header", 7: "invalid max clock drift", 8: "processed time not found", 9: "processed height not found",
    10: "packet-specified delay period has not been reached",
    11: "time since latest trusted state has passed the trusting period", 13: "invalid proof specs",
    14: "invalid validator set",
}
INVALID_CHAIN_ID, INVALID_TRUSTING_PERIOD, INVALID_UNBONDING_PERIOD, INVALID_HEADER_HEIGHT = 2, 3, 4, 5
TM_INVALID_HEADER, INVALID_MAX_CLOCK_DRIFT, TRUSTING_PERIOD_EXPIRED, INVALID_PROOF_SPECS = 6, 7, 11, 13
INVALID_VALIDATOR_SET = 14
PROCESSED_TIME_NOT_FOUND, PROCESSED_HEIGHT_NOT_FOUND, DELAY_PERIOD_NOT_PASSED = 8, 9, 10

# core/errors/errors.go
IBC_ERRORS = {1: "invalid sequence", 2: "unauthorized", 5: "invalid address", 9: "invalid height", 12: "invalid type",
              14: "failed unpacking protobuf message from Any"}
UNAUTHORIZED, INVALID_ADDRESS, IBC_INVALID_HEIGHT, UNPACK_ANY, INVALID_SEQUENCE = 2, 5, 9, 14, 1


def client_error(code, detail=None):
    return _error(CLIENT, CLIENT_ERRORS, code, detail)


def tendermint_error(code, detail=None):
    return _error(TENDERMINT, TENDERMINT_ERRORS, code, detail)


def ibc_error(code, detail=None):
    return _error(IBC, IBC_ERRORS, code, detail)


def plain(text):
    """A Go error no codespace registers (a CometBFT light-client failure, wrapped): ABCI code 1, "undefined"."""
    return TxError("undefined", 1, text)


def wrap(error, detail):
    """errorsmod.Wrap(err, detail): the same code, the detail before the text."""
    return TxError(error.codespace, error.code, f"{detail}: {error.log}")


def _error(codespace, texts, code, detail):
    registered = texts[code]
    return TxError(codespace, code, f"{detail}: {registered}" if detail else registered)
