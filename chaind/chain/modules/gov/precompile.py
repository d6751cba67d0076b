"""cosmos/evm's gov precompile at 0x...0805 (IGov.sol): x/gov v1's messages for msg.sender and every query,
through gov's own message handlers and query servicer.

submitProposal takes the proposal as JSON bytes ({"messages": [...], "metadata", "title", "summary",
"expedited"}), each message in the SDK's JSON with its "@type": any message this chain handles.
"""

import json

from google.protobuf import any_pb2, json_format

from chaind.chain import txjson
from chaind.chain.modules.gov.query import GovQuery
from chaind.chain.native_precompile import (
    COIN,
    PAGE_REQUEST,
    Event,
    Failure,
    Method,
    Param,
    Precompile,
    coins,
    coins_in,
    coins_out,
    indexed,
    page_out,
    page_request,
    page_response,
    struct,
)
from chaind.crypto.addresses import AddressError, checksum_address, from_bech32
from chaind.pb.cosmos.gov.v1 import gov_pb2, query_pb2, tx_pb2

ADDRESS = (0x805).to_bytes(20, "big")
_ZERO = "0x" + "00" * 20

WEIGHTED_VOTE_OPTION = (Param("option", "uint8"), Param("weight", "string"))
WEIGHTED_VOTE = (Param("proposalId", "uint64"), Param("voter", "address"),
                 struct("options", WEIGHTED_VOTE_OPTION, array=True), Param("metadata", "string"))
DEPOSIT_DATA = (Param("proposalId", "uint64"), Param("depositor", "address"), struct("amount", COIN, array=True))
TALLY_RESULT = (Param("yes", "string"), Param("abstain", "string"), Param("no", "string"),
                Param("noWithVeto", "string"))
PROPOSAL_DATA = (Param("id", "uint64"), Param("messages", "string[]"), Param("status", "uint32"),
                 struct("finalTallyResult", TALLY_RESULT), Param("submitTime", "uint64"),
                 Param("depositEndTime", "uint64"), struct("totalDeposit", COIN, array=True),
                 Param("votingStartTime", "uint64"), Param("votingEndTime", "uint64"), Param("metadata", "string"),
                 Param("title", "string"), Param("summary", "string"), Param("proposer", "address"))
PARAMS = (Param("votingPeriod", "int64"), struct("minDeposit", COIN, array=True), Param("maxDepositPeriod", "int64"),
          Param("quorum", "string"), Param("threshold", "string"), Param("vetoThreshold", "string"),
          Param("minInitialDepositRatio", "string"), Param("proposalCancelRatio", "string"),
          Param("proposalCancelDest", "string"), Param("expeditedVotingPeriod", "int64"),
          Param("expeditedThreshold", "string"), struct("expeditedMinDeposit", COIN, array=True),
          Param("burnVoteQuorum", "bool"), Param("burnProposalDepositPrevote", "bool"),
          Param("burnVoteVeto", "bool"), Param("minDepositRatio", "string"))


def _requester(call, address_text, what):
    if address_text == _ZERO:
        raise Failure(f"invalid {what} {address_text}" if what == "proposer" else
                      f"invalid {what} address: {address_text}")
    return call.requester(address_text, what)


# -- the proposal's JSON ----------------------------------------------------------------------

def _message_any(call, i, value):
    """One proposal message from the SDK's JSON (LegacyDec fields as decimals) as an Any."""
    url = value.get("@type") if isinstance(value, dict) else None
    handler = call.app.handlers.get(url) if isinstance(url, str) else None
    if handler is None:
        raise Failure(f"unable to resolve type URL {url}: message {i}")
    fields = {k: v for k, v in value.items() if k != "@type"}
    try:
        message = txjson.from_dict(fields, handler.message_class())
    except (json_format.ParseError, ValueError, TypeError) as e:
        raise Failure(f"{e}: message {i}") from None
    return any_pb2.Any(type_url=url, value=message.SerializeToString())


def _proposal(call, blob):
    if not blob:
        raise Failure("invalid proposal json jsonBlob arg ")
    try:
        found = json.loads(blob)
    except (ValueError, UnicodeDecodeError) as e:
        raise Failure(f"invalid proposal JSON: {e}") from None
    if not isinstance(found, dict):
        raise Failure("invalid proposal JSON: want an object")
    messages = found.get("messages") or []
    if not isinstance(messages, list):
        raise Failure("invalid proposal JSON: messages must be an array")
    texts = {name: found.get(name, "") for name in ("metadata", "title", "summary")}
    if not all(isinstance(t, str) for t in texts.values()) or not isinstance(found.get("expedited", False), bool):
        raise Failure("invalid proposal JSON: metadata, title and summary are strings, expedited a bool")
    return [_message_any(call, i, m) for i, m in enumerate(messages)], texts, found.get("expedited", False)


# -- messages -----------------------------------------------------------------------------------

def _deposit_coins(amount):
    try:
        return coins_in(amount)
    except Failure:
        raise Failure("invalid deposits deposit arg ") from None


def _submit_proposal(call, proposer_address, blob, deposit):
    if proposer_address == _ZERO:
        raise Failure(f"invalid proposer {proposer_address}")
    deposit = _deposit_coins(deposit)
    messages, texts, expedited = _proposal(call, blob)
    proposer = call.requester(proposer_address, "proposer")
    msg = tx_pb2.MsgSubmitProposal(messages=messages, initial_deposit=deposit, proposer=call.account(proposer),
                                   expedited=expedited, **texts)
    pid = call.execute("/cosmos.gov.v1.MsgSubmitProposal", msg).proposal_id
    call.log("SubmitProposal", proposer, pid)
    return (pid,)


def _cancel_proposal(call, proposer_address, proposal_id):
    proposer = _requester(call, proposer_address, "proposer")
    call.execute("/cosmos.gov.v1.MsgCancelProposal",
                 tx_pb2.MsgCancelProposal(proposal_id=proposal_id, proposer=call.account(proposer)))
    call.log("CancelProposal", proposer, proposal_id)
    return (True,)


def _deposit(call, depositor_address, proposal_id, amount):
    if depositor_address == _ZERO:
        raise Failure(f"invalid depositor address: {depositor_address}")
    amount = _deposit_coins(amount)
    depositor = call.requester(depositor_address, "depositor")
    call.execute("/cosmos.gov.v1.MsgDeposit",
                 tx_pb2.MsgDeposit(proposal_id=proposal_id, depositor=call.account(depositor), amount=amount))
    call.log("Deposit", depositor, proposal_id, coins_out(amount))
    return (True,)


def _vote(call, voter_address, proposal_id, option, metadata):
    voter = _requester(call, voter_address, "voter")
    call.execute("/cosmos.gov.v1.MsgVote", tx_pb2.MsgVote(proposal_id=proposal_id, voter=call.account(voter),
                                                          option=option, metadata=metadata))
    call.log("Vote", voter, proposal_id, option)
    return (True,)


def _vote_weighted(call, voter_address, proposal_id, options, metadata):
    voter = _requester(call, voter_address, "voter")
    msg = tx_pb2.MsgVoteWeighted(proposal_id=proposal_id, voter=call.account(voter), metadata=metadata,
                                 options=[gov_pb2.WeightedVoteOption(option=o, weight=w) for o, w in options])
    call.execute("/cosmos.gov.v1.MsgVoteWeighted", msg)
    call.log("VoteWeighted", voter, proposal_id, list(options))
    return (True,)


# -- queries ------------------------------------------------------------------------------------

def _ask(call, name, request):
    return call.ask(GovQuery(call.app), name, request)


def _hex(call, text):
    """cosmos/evm's HexAddressFromBech32String: the address of a bech32 string of any prefix."""
    try:
        return checksum_address(from_bech32(text))
    except AddressError as e:
        raise Failure(str(e)) from None


def _vote_out(call, v):
    return (v.proposal_id, _hex(call, v.voter), [(o.option, o.weight) for o in v.options], v.metadata)


def _deposit_out(call, d):
    return (d.proposal_id, _hex(call, d.depositor), coins_out(d.amount))


def _tally_out(t):
    return (t.yes_count, t.abstain_count, t.no_count, t.no_with_veto_count)


def _proposal_out(call, p):
    return (p.id, [m.type_url for m in p.messages], p.status, _tally_out(p.final_tally_result),
            _unix(p.submit_time), _unix(p.deposit_end_time), coins_out(p.total_deposit),
            _unix(p.voting_start_time) if p.HasField("voting_start_time") else 0,
            _unix(p.voting_end_time) if p.HasField("voting_end_time") else 0,
            p.metadata, p.title, p.summary, _hex(call, p.proposer))


def _unix(stamp):
    # Go's uint64(t.Unix()): a time before 1970 wraps.
    return stamp.seconds % 2**64


def _nanoseconds(duration):
    return duration.seconds * 10**9 + duration.nanos


def _get_vote(call, proposal_id, voter):
    found = _ask(call, "Vote", query_pb2.QueryVoteRequest(proposal_id=proposal_id,
                                                          voter=call.account(bytes.fromhex(voter[2:]))))
    return (_vote_out(call, found.vote),)


def _get_votes(call, proposal_id, page):
    found = _ask(call, "Votes", query_pb2.QueryVotesRequest(proposal_id=proposal_id, pagination=page_request(page)))
    return [_vote_out(call, v) for v in found.votes], page_out(found.pagination)


def _get_deposit(call, proposal_id, depositor):
    found = _ask(call, "Deposit", query_pb2.QueryDepositRequest(
        proposal_id=proposal_id, depositor=call.account(bytes.fromhex(depositor[2:]))))
    return (_deposit_out(call, found.deposit),)


def _get_deposits(call, proposal_id, page):
    found = _ask(call, "Deposits", query_pb2.QueryDepositsRequest(proposal_id=proposal_id,
                                                                  pagination=page_request(page)))
    return [_deposit_out(call, d) for d in found.deposits], page_out(found.pagination)


def _get_tally_result(call, proposal_id):
    return (_tally_out(_ask(call, "TallyResult", query_pb2.QueryTallyResultRequest(proposal_id=proposal_id)).tally),)


def _get_proposal(call, proposal_id):
    found = _ask(call, "Proposal", query_pb2.QueryProposalRequest(proposal_id=proposal_id))
    return (_proposal_out(call, found.proposal),)


def _get_proposals(call, status, voter, depositor, page):
    request = query_pb2.QueryProposalsRequest(
        proposal_status=status, pagination=page_request(page),
        voter="" if voter == _ZERO else call.account(bytes.fromhex(voter[2:])),
        depositor="" if depositor == _ZERO else call.account(bytes.fromhex(depositor[2:])))
    found = _ask(call, "Proposals", request)
    return [_proposal_out(call, p) for p in found.proposals], page_out(found.pagination)


def _get_params(call):
    p = _ask(call, "Params", query_pb2.QueryParamsRequest()).params
    return ((_nanoseconds(p.voting_period), coins_out(p.min_deposit), _nanoseconds(p.max_deposit_period), p.quorum,
             p.threshold, p.veto_threshold, p.min_initial_deposit_ratio, p.proposal_cancel_ratio,
             p.proposal_cancel_dest, _nanoseconds(p.expedited_voting_period), p.expedited_threshold,
             coins_out(p.expedited_min_deposit), p.burn_vote_quorum, p.burn_proposal_deposit_prevote,
             p.burn_vote_veto, p.min_deposit_ratio),)


def _get_constitution(call):
    return (_ask(call, "Constitution", query_pb2.QueryConstitutionRequest()).constitution,)


def _tx(name, inputs, outputs, handler):
    return Method(name, inputs, outputs, handler, transaction=True)


PRECOMPILE = Precompile("gov", ADDRESS, (
    _tx("submitProposal", (("proposer", "address"), ("jsonProposal", "bytes"), coins("deposit")),
        (("proposalId", "uint64"),), _submit_proposal),
    _tx("cancelProposal", (("proposer", "address"), ("proposalId", "uint64")), (("success", "bool"),),
        _cancel_proposal),
    _tx("deposit", (("depositor", "address"), ("proposalId", "uint64"), coins("amount")), (("success", "bool"),),
        _deposit),
    _tx("vote", (("voter", "address"), ("proposalId", "uint64"), ("option", "uint8"), ("metadata", "string")),
        (("success", "bool"),), _vote),
    _tx("voteWeighted", (("voter", "address"), ("proposalId", "uint64"),
                         struct("options", WEIGHTED_VOTE_OPTION, array=True), ("metadata", "string")),
        (("success", "bool"),), _vote_weighted),
    Method("getVote", (("proposalId", "uint64"), ("voter", "address")), (struct("vote", WEIGHTED_VOTE),), _get_vote),
    Method("getVotes", (("proposalId", "uint64"), PAGE_REQUEST.rename("pagination")),
           (struct("votes", WEIGHTED_VOTE, array=True), page_response()), _get_votes),
    Method("getDeposit", (("proposalId", "uint64"), ("depositor", "address")), (struct("deposit", DEPOSIT_DATA),),
           _get_deposit),
    Method("getDeposits", (("proposalId", "uint64"), PAGE_REQUEST.rename("pagination")),
           (struct("deposits", DEPOSIT_DATA, array=True), page_response()), _get_deposits),
    Method("getTallyResult", (("proposalId", "uint64"),), (struct("tallyResult", TALLY_RESULT),), _get_tally_result),
    Method("getProposal", (("proposalId", "uint64"),), (struct("proposal", PROPOSAL_DATA),), _get_proposal),
    Method("getProposals", (("proposalStatus", "uint32"), ("voter", "address"), ("depositor", "address"),
                            PAGE_REQUEST.rename("pagination")),
           (struct("proposals", PROPOSAL_DATA, array=True), page_response()), _get_proposals),
    Method("getParams", (), (struct("params", PARAMS),), _get_params),
    Method("getConstitution", (), (("constitution", "string"),), _get_constitution),
), events=(
    Event("SubmitProposal", (indexed("proposer", "address"), ("proposalId", "uint64"))),
    Event("CancelProposal", (indexed("proposer", "address"), ("proposalId", "uint64"))),
    Event("Deposit", (indexed("depositor", "address"), ("proposalId", "uint64"), coins("amount"))),
    Event("Vote", (indexed("voter", "address"), ("proposalId", "uint64"), ("option", "uint8"))),
    Event("VoteWeighted", (indexed("voter", "address"), ("proposalId", "uint64"),
                           struct("options", WEIGHTED_VOTE_OPTION, array=True))),
))
run = PRECOMPILE
