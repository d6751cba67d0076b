"""gov's tally (x/gov/keeper/tally.go): staking power of the voters, a delegator's own vote overriding its
validator's for its share; quorum, veto and threshold decide."""

import attrs

from chaind.chain import legacy_dec
from chaind.chain.modules import staking
from chaind.chain.modules.staking.numbers import dec_quo
from chaind.pb.cosmos.gov.v1 import gov_pb2

ONE = legacy_dec.ONE
OPTIONS = (gov_pb2.VOTE_OPTION_YES, gov_pb2.VOTE_OPTION_ABSTAIN, gov_pb2.VOTE_OPTION_NO,
           gov_pb2.VOTE_OPTION_NO_WITH_VETO)


@attrs.define
class _ValidatorInfo:
    tokens: int
    shares: int
    deductions: int = 0
    options: tuple = ()


def _mul(a, b):
    """LegacyDec.Mul: banker's rounding of the product back to 18 places."""
    quotient, remainder = divmod(a * b, ONE)
    if 2 * remainder > ONE or (2 * remainder == ONE and quotient % 2):
        quotient += 1
    return quotient


def _weights(v):
    return [(o.option, legacy_dec.parse(o.weight)) for o in v.options]


def tally(app, state, p, remove_votes):
    """(passes, burn_deposits, TallyResult) of proposal `p`; remove_votes(voter) is called for each vote
    counted (the end blocker deletes them; a query passes a no-op)."""
    keeper = app.keepers["gov"]
    results = dict.fromkeys(OPTIONS, 0)
    total = 0
    current = {v.operator: _ValidatorInfo(v.tokens, v.shares)
               for v in app.keepers["staking"].validators(state) if v.status == staking.BONDED}
    counted = keeper.votes(state, p.id)
    for voter, v in counted:
        weights = _weights(v)
        if voter in current:
            current[voter].options = weights
        for operator, shares in app.keepers["staking"].delegations_of(state, voter):
            val = current.get(operator)
            if val is None:
                continue
            val.deductions += shares
            power = dec_quo(shares * val.tokens, val.shares)
            for option, weight in weights:
                results[option] += _mul(power, weight)
            total += power
    # Removed once all are counted (the SDK removes each as it walks): a block's pending writes are scanned by
    # every later prefix read, and 10,000 of them made the delegation reads quadratic.
    for voter, _ in counted:
        remove_votes(voter)
    for val in current.values():
        if not val.options:
            continue
        power = dec_quo((val.shares - val.deductions) * val.tokens, val.shares)
        for option, weight in val.options:
            results[option] += _mul(power, weight)
        total += power
    result = gov_pb2.TallyResult(yes_count=str(results[gov_pb2.VOTE_OPTION_YES] // ONE),
                                 abstain_count=str(results[gov_pb2.VOTE_OPTION_ABSTAIN] // ONE),
                                 no_count=str(results[gov_pb2.VOTE_OPTION_NO] // ONE),
                                 no_with_veto_count=str(results[gov_pb2.VOTE_OPTION_NO_WITH_VETO] // ONE))
    params = keeper.params(state)
    bonded = app.keepers["bank"].balance(state, staking.BONDED_POOL, app.keepers["staking"].params(state).bond_denom)
    if bonded == 0:
        return False, False, result
    if dec_quo(total, bonded * ONE) < legacy_dec.parse(params.quorum):
        return False, params.burn_vote_quorum, result
    non_abstain = total - results[gov_pb2.VOTE_OPTION_ABSTAIN]
    if non_abstain == 0:
        return False, False, result
    if dec_quo(results[gov_pb2.VOTE_OPTION_NO_WITH_VETO], total) > legacy_dec.parse(params.veto_threshold):
        return False, params.burn_vote_veto, result
    threshold = params.expedited_threshold if p.expedited else params.threshold
    if dec_quo(results[gov_pb2.VOTE_OPTION_YES], non_abstain) > legacy_dec.parse(threshold):
        return True, False, result
    return False, False, result


def empty_result():
    return gov_pb2.TallyResult(yes_count="0", abstain_count="0", no_count="0", no_with_veto_count="0")
