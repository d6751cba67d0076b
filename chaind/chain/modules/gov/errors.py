"""gov's errors: the SDK's registered codes and texts (x/gov/types/errors.go)."""

from chaind.chain import errors

CODESPACE = "gov"

UNKNOWN_PROPOSAL = (2, "unknown proposal")
INACTIVE_PROPOSAL = (3, "inactive proposal")
INVALID_PROPOSAL_CONTENT = (5, "invalid proposal content")
INVALID_VOTE = (7, "invalid vote option")
UNROUTABLE_PROPOSAL_MSG = (10, "proposal message not recognized by router")
NO_PROPOSAL_MSGS = (11, "no messages proposed")
INVALID_PROPOSAL_MSG = (12, "invalid proposal message")
INVALID_SIGNER = (13, "expected gov account as only signer for proposal message")
METADATA_TOO_LONG = (15, "metadata too long")
MIN_DEPOSIT_TOO_SMALL = (16, "minimum deposit is too small")
INVALID_PROPOSER = (18, "invalid proposer")
VOTING_PERIOD_ENDED = (20, "voting period already ended")
INVALID_PROPOSAL = (21, "invalid proposal")
SUMMARY_TOO_LONG = (22, "summary too long")
INVALID_DEPOSIT_DENOM = (23, "invalid deposit denom")


def error(kind, detail=None):
    """A gov error: the registered text, wrapped by `detail` as errorsmod.Wrap puts it."""
    code, text = kind
    return errors.TxError(CODESPACE, code, f"{detail}: {text}" if detail else text)
