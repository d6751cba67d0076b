"""authz's errors: the SDK's registered codes and texts (x/authz/errors.go), and the SDK's root ones it wraps."""

from chaind.chain import errors

CODESPACE = "authz"

NO_AUTHORIZATION_FOUND = (2, "authorization not found")
INVALID_EXPIRATION_TIME = (3, "expiration time of authorization should be more than current time")
UNKNOWN_AUTHORIZATION_TYPE = (4, "unknown authorization type")
AUTHORIZATION_EXPIRED = (6, "authorization expired")
GRANTEE_IS_GRANTER = (7, "grantee and granter should be different")
AUTHORIZATION_NUM_OF_SIGNERS = (9, "authorization can be given to msg with only one signer")
NEGATIVE_MAX_TOKENS = (12, "max tokens should be positive")


def error(kind, detail=None):
    """An authz error: the registered text, wrapped by `detail` as errorsmod.Wrap puts it."""
    code, text = kind
    return errors.TxError(CODESPACE, code, f"{detail}: {text}" if detail else text)


def invalid_type(detail):
    return errors.TxError(errors.SDK, 29, f"{detail}: invalid type")


def wrapped(error_, prefix):
    """errorsmod.Wrapf(err, prefix): the same code, the log prefixed."""
    return errors.TxError(error_.codespace, error_.code, f"{prefix}: {error_.log}", error_.evm_message)
