"""Gov messages for tests: built as a client (cosmjs, the SDK CLI) would put them in a tx."""

from google.protobuf import any_pb2

from chaind.chain.authority import GOV
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.gov.v1 import gov_pb2, tx_pb2
from chaind.pb.cosmos.staking.v1beta1 import staking_pb2
from chaind.pb.cosmos.staking.v1beta1 import tx_pb2 as staking_tx

SUBMIT = "/cosmos.gov.v1.MsgSubmitProposal"
DEPOSIT = "/cosmos.gov.v1.MsgDeposit"
VOTE = "/cosmos.gov.v1.MsgVote"
WEIGHTED = "/cosmos.gov.v1.MsgVoteWeighted"
CANCEL = "/cosmos.gov.v1.MsgCancelProposal"
STAKING_PARAMS = "/cosmos.staking.v1beta1.MsgUpdateParams"
YES, ABSTAIN, NO, VETO = (gov_pb2.VOTE_OPTION_YES, gov_pb2.VOTE_OPTION_ABSTAIN, gov_pb2.VOTE_OPTION_NO,
                          gov_pb2.VOTE_OPTION_NO_WITH_VETO)


def coins(amount, denom="achain"):
    return [coin_pb2.Coin(denom=denom, amount=str(amount))] if amount else []


def staking_params_msg(prefix, max_validators=7, bond_denom="achain", authority=None, unbonding_s=1814400):
    params = staking_pb2.Params(max_validators=max_validators, max_entries=7, historical_entries=10000,
                                bond_denom=bond_denom, min_commission_rate="0")
    params.unbonding_time.FromSeconds(unbonding_s)
    msg = staking_tx.MsgUpdateParams(authority=authority or to_bech32(prefix, GOV), params=params)
    return any_pb2.Any(type_url=STAKING_PARAMS, value=msg.SerializeToString())


def submit(prefix, proposer, messages, deposit=10, title="Fewer validators", summary="Seven is enough",
           expedited=False, metadata=""):
    return tx_pb2.MsgSubmitProposal(messages=messages, initial_deposit=coins(deposit),
                                    proposer=to_bech32(prefix, proposer), title=title, summary=summary,
                                    expedited=expedited, metadata=metadata)


def deposit(prefix, depositor, pid, amount):
    return tx_pb2.MsgDeposit(proposal_id=pid, depositor=to_bech32(prefix, depositor), amount=coins(amount))


def vote(prefix, voter, pid, option):
    return tx_pb2.MsgVote(proposal_id=pid, voter=to_bech32(prefix, voter), option=option)


def weighted(prefix, voter, pid, *pairs):
    return tx_pb2.MsgVoteWeighted(proposal_id=pid, voter=to_bech32(prefix, voter),
                                  options=[gov_pb2.WeightedVoteOption(option=o, weight=w) for o, w in pairs])


def cancel(prefix, proposer, pid):
    return tx_pb2.MsgCancelProposal(proposal_id=pid, proposer=to_bech32(prefix, proposer))
