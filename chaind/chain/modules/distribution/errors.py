"""distribution's errors: the SDK's registered codes and texts (x/distribution/types/errors.go)."""

from chaind.chain import errors

CODESPACE = "distribution"

EMPTY_DELEGATION_DIST_INFO = (5, "no delegation distribution info")
NO_VALIDATOR_DIST_INFO = (6, "no validator distribution info")
NO_VALIDATOR_COMMISSION = (7, "no validator commission to withdraw")
SET_WITHDRAW_ADDR_DISABLED = (8, "set withdraw address disabled")
NO_VALIDATOR_EXISTS = (12, "validator does not exist")
NO_DELEGATION_EXISTS = (13, "delegation does not exist")


def error(code_text, detail=None):
    """A distribution error, wrapped by `detail` as errorsmod.Wrap puts it."""
    code, text = code_text
    return errors.TxError(CODESPACE, code, f"{detail}: {text}" if detail else text)
