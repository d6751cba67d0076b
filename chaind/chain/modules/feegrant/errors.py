"""feegrant's errors: the SDK's registered codes and texts (x/feegrant/errors.go)."""

from chaind.chain import errors

CODESPACE = "feegrant"

FEE_LIMIT_EXCEEDED = (2, "fee limit exceeded")
FEE_LIMIT_EXPIRED = (3, "fee allowance expired")
INVALID_DURATION = (4, "invalid duration")
NO_ALLOWANCE = (5, "fee-grant not found")
NO_MESSAGES = (6, "allowed messages are empty")
MESSAGE_NOT_ALLOWED = (7, "message not allowed")


def error(kind, detail=None):
    """A feegrant error: the registered text, wrapped by `detail` as errorsmod.Wrap puts it."""
    code, text = kind
    return errors.TxError(CODESPACE, code, f"{detail}: {text}" if detail else text)
