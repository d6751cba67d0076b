"""IBC connection versions (03-connection/types/version.go): version "1" with the ORDER_ORDERED and ORDER_UNORDERED
features, the checks of a proposed version and the negotiation ConnOpenTry runs. A version is a Version proto."""

from chaind.chain.errors import TxError
from chaind.chain.modules.ibc_connection import errors as e
from chaind.pb.ibc.core.connection.v1 import connection_pb2

DEFAULT_IDENTIFIER = "1"
SUPPORTED_ORDERINGS = ("ORDER_ORDERED", "ORDER_UNORDERED")
# Version identifiers that may carry no features (none: "1" may not).
_ALLOW_NIL_FEATURES = {DEFAULT_IDENTIFIER: False}


def compatible():
    """GetCompatibleVersions: ours, newest first."""
    return [connection_pb2.Version(identifier=DEFAULT_IDENTIFIER, features=list(SUPPORTED_ORDERINGS))]


def text(version):
    """A Version as Go's %s prints it (gogoproto's compact text)."""
    features = "".join(f'features:"{f}" ' for f in version.features)
    return f'identifier:"{version.identifier}" {features}'


def texts(versions):
    return "[" + " ".join(text(v) for v in versions) + "]"


def validate(version):
    """ValidateVersion; `version` None for a nil one."""
    if version is None:
        raise e.connection_error(e.INVALID_VERSION, "version cannot be nil")
    if not version.identifier.strip():
        raise e.connection_error(e.INVALID_VERSION, "version identifier cannot be blank")
    for index, feature in enumerate(version.features):
        if not feature.strip():
            raise e.connection_error(e.INVALID_VERSION, f"feature cannot be blank, index {index}")


def _find(version, supported):
    return next((s for s in supported if s.identifier == version.identifier), None)


def verify_proposed(supported, proposed):
    """Version.VerifyProposedVersion: every proposed feature is one `supported` has."""
    if proposed.identifier != supported.identifier:
        raise e.connection_error(e.NEGOTIATION_FAILED, "proposed version identifier does not equal supported version "
                                 f"identifier ({proposed.identifier} != {supported.identifier})")
    if not proposed.features and not _ALLOW_NIL_FEATURES.get(proposed.identifier, False):
        raise e.connection_error(e.NEGOTIATION_FAILED, "nil feature sets are not supported for version identifier "
                                 f"({proposed.identifier})")
    for feature in proposed.features:
        if feature not in supported.features:
            raise e.connection_error(e.NEGOTIATION_FAILED, f"proposed feature ({feature}) is not a supported feature "
                                     f"set ([{' '.join(supported.features)}])")


def is_supported(supported_versions, proposed):
    """IsSupportedVersion."""
    supported = _find(proposed, supported_versions)
    if supported is None:
        return False
    try:
        verify_proposed(supported, proposed)
    except TxError:
        return False
    return True


def pick(supported_versions, counterparty_versions):
    """PickVersion: the first of ours the counterparty has, with the features both have."""
    for supported in supported_versions:
        theirs = _find(supported, counterparty_versions)
        if theirs is None:
            continue
        features = [f for f in supported.features if f in theirs.features]
        if not features and not _ALLOW_NIL_FEATURES.get(supported.identifier, False):
            continue
        return connection_pb2.Version(identifier=supported.identifier, features=features)
    raise e.connection_error(e.NEGOTIATION_FAILED, "failed to find a matching counterparty version "
                             f"({texts(counterparty_versions)}) from the supported version list "
                             f"({texts(supported_versions)})")
