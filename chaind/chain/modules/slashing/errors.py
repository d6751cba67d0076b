"""slashing's errors: the SDK's registered codes and texts (x/slashing/types/errors.go)."""

from chaind.chain import errors

CODESPACE = "slashing"

NO_VALIDATOR_FOR_ADDRESS = (2, "address is not associated with any known validator")
BAD_VALIDATOR_ADDR = (3, "validator does not exist for that address")
VALIDATOR_JAILED = (4, "validator still jailed; cannot be unjailed")
VALIDATOR_NOT_JAILED = (5, "validator not jailed; cannot be unjailed")
MISSING_SELF_DELEGATION = (6, "validator has no self-delegation; cannot be unjailed")
SELF_DELEGATION_TOO_LOW = (7, "validator's self delegation less than minimum; cannot be unjailed")


def error(code_text, detail=None):
    """A slashing error: the SDK's registered text, wrapped by `detail` as errorsmod.Wrap puts it."""
    code, text = code_text
    return errors.TxError(CODESPACE, code, f"{detail}: {text}" if detail else text)
