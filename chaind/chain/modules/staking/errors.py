"""staking's errors: the SDK's registered codes and texts (x/staking/types/errors.go)."""

from chaind.chain import errors

CODESPACE = "staking"


def error(code, text, detail=None):
    """A staking error: the SDK's registered text, wrapped by `detail` as errorsmod.Wrap puts it."""
    return errors.TxError(CODESPACE, code, f"{detail}: {text}" if detail else text)


NO_VALIDATOR = (3, "validator does not exist")
