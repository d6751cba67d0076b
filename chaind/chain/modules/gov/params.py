"""gov's params: the SDK's defaults, genesis JSON, and Params.ValidateBasic."""

from google.protobuf import json_format

from chaind.chain import legacy_dec
from chaind.crypto.addresses import AddressError, parse
from chaind.pb.cosmos.gov.v1 import gov_pb2

DAY_S = 86400
# The SDK's metadata limit (MaxMetadataLen) and summary limit (MaxSummaryLen) of the keeper's config.
MAX_METADATA_LEN = 255
MAX_SUMMARY_LEN = 10200


def default_params(bond_denom):
    """x/gov/types/v1 DefaultParams, in the chain's bond denom."""
    p = gov_pb2.Params(quorum="0.334000000000000000", threshold="0.500000000000000000",
                       veto_threshold="0.334000000000000000", min_initial_deposit_ratio="0.000000000000000000",
                       proposal_cancel_ratio="0.500000000000000000", proposal_cancel_dest="",
                       expedited_threshold="0.667000000000000000", burn_vote_quorum=False,
                       burn_proposal_deposit_prevote=False, burn_vote_veto=True,
                       min_deposit_ratio="0.010000000000000000")
    p.min_deposit.add(denom=bond_denom, amount="10000000")
    p.expedited_min_deposit.add(denom=bond_denom, amount="50000000")
    p.max_deposit_period.FromSeconds(2 * DAY_S)
    p.voting_period.FromSeconds(2 * DAY_S)
    p.expedited_voting_period.FromSeconds(DAY_S)
    return p


def parse_params(doc, bond_denom, prefix):
    """Params from the genesis `gov.params` object (SDK JSON) over the defaults; raises ValueError."""
    merged = json_format.MessageToDict(default_params(bond_denom), preserving_proto_field_name=True)
    merged.update(doc or {})
    try:
        p = json_format.ParseDict(merged, gov_pb2.Params())
    except json_format.ParseError as e:
        raise ValueError(str(e)) from None
    validate(p, prefix)
    return p


def _coins(coins, what):
    out = {}
    for c in coins:
        try:
            amount = int(c.amount)
        except ValueError:
            raise ValueError(f"invalid {what}: {c.amount}{c.denom}") from None
        if amount <= 0 or not c.denom:
            raise ValueError(f"invalid {what}: {c.amount}{c.denom}")
        out[c.denom] = amount
    return out


def _ratio(text, what, one_max=True, positive=False):
    try:
        value = legacy_dec.parse(text)
    except ValueError as e:
        raise ValueError(f"invalid {what} string: {e}") from None
    if value < 0 or (positive and value == 0):
        raise ValueError(f"{what} must be positive: {text}")
    if one_max and value > legacy_dec.ONE:
        raise ValueError(f"{what} too large: {text}")
    return value


def validate(p, prefix):
    """v1.Params.ValidateBasic, its texts."""
    min_deposit = _coins(p.min_deposit, "minimum deposit")
    if not min_deposit:
        raise ValueError(f"invalid minimum deposit: {''.join(c.amount + c.denom for c in p.min_deposit)}")
    expedited = _coins(p.expedited_min_deposit, "expedited minimum deposit")
    if not expedited:
        raise ValueError("invalid expedited minimum deposit: ")
    if any(expedited.get(denom, 0) <= amount for denom, amount in min_deposit.items()):
        raise ValueError("expedited minimum deposit must be greater than minimum deposit")
    _ratio(p.quorum, "quorum")
    threshold = _ratio(p.threshold, "vote threshold", positive=True)
    expedited_threshold = _ratio(p.expedited_threshold, "expedited vote threshold", positive=True)
    if expedited_threshold <= threshold:
        raise ValueError("expedited quorum threshold must be greater than the regular threshold")
    _ratio(p.veto_threshold, "veto threshold", positive=True)
    _ratio(p.min_initial_deposit_ratio, "minimum initial deposit ratio")
    _ratio(p.proposal_cancel_ratio, "burn rate of cancel proposal")
    _ratio(p.min_deposit_ratio, "min deposit ratio")
    if p.proposal_cancel_dest:
        try:
            parse(p.proposal_cancel_dest, prefix)
        except AddressError as e:
            raise ValueError(f"deposits destination address is invalid: {p.proposal_cancel_dest}: {e}") from None
    if not p.HasField("max_deposit_period"):
        raise ValueError("maximum deposit period must not be nil: 0")
    if p.max_deposit_period.ToNanoseconds() <= 0:
        raise ValueError(f"maximum deposit period must be positive: {p.max_deposit_period.ToJsonString()}")
    if not p.HasField("voting_period"):
        raise ValueError("voting period must not be nil: 0")
    if p.voting_period.ToNanoseconds() <= 0:
        raise ValueError(f"voting period must be positive: {p.voting_period.ToJsonString()}")
    if not p.HasField("expedited_voting_period"):
        raise ValueError("expedited voting period must not be nil: 0")
    if p.expedited_voting_period.ToNanoseconds() <= 0:
        raise ValueError(f"expedited voting period must be positive: {p.expedited_voting_period.ToJsonString()}")
    if p.expedited_voting_period.ToNanoseconds() >= p.voting_period.ToNanoseconds():
        raise ValueError(f"expedited voting period {p.expedited_voting_period.ToJsonString()} must be strictly "
                         f"less that the regular voting period {p.voting_period.ToJsonString()}")
