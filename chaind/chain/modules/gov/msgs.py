"""gov's messages: MsgSubmitProposal, MsgDeposit, MsgVote, MsgVoteWeighted, MsgCancelProposal, MsgUpdateParams.

As in SDK v0.50 the checks live in the msg server (gov's messages have no ValidateBasic), so they run when
the message executes; validate() keeps only the signer's address check every message gets.
"""

import json

from chaind.chain import authority, errors, legacy_dec
from chaind.chain.amino import Amino
from chaind.chain.block import event
from chaind.chain.modules.gov import coins, deposits
from chaind.chain.modules.gov.errors import (
    INACTIVE_PROPOSAL,
    INVALID_PROPOSAL,
    INVALID_PROPOSAL_CONTENT,
    INVALID_PROPOSAL_MSG,
    INVALID_PROPOSER,
    INVALID_SIGNER,
    INVALID_VOTE,
    METADATA_TOO_LONG,
    MIN_DEPOSIT_TOO_SMALL,
    NO_PROPOSAL_MSGS,
    SUMMARY_TOO_LONG,
    UNKNOWN_PROPOSAL,
    UNROUTABLE_PROPOSAL_MSG,
    VOTING_PERIOD_ENDED,
    error,
)
from chaind.chain.modules.gov.keeper import GOV
from chaind.chain.modules.gov.params import MAX_METADATA_LEN, MAX_SUMMARY_LEN, validate
from chaind.chain.msgs import MsgHandler
from chaind.crypto.addresses import AddressError, parse
from chaind.pb.cosmos.gov.v1 import gov_pb2, tx_pb2

VALID_OPTIONS = (gov_pb2.VOTE_OPTION_YES, gov_pb2.VOTE_OPTION_ABSTAIN, gov_pb2.VOTE_OPTION_NO,
                  gov_pb2.VOTE_OPTION_NO_WITH_VETO)


def address(app, text, what):
    try:
        return parse(text, app.genesis.bech32_prefix)
    except AddressError as e:
        raise errors.invalid_address(f"invalid {what} address: {e}") from None


def signer_check(field, what):
    def validate_msg(app, msg):
        address(app, getattr(msg, field), what)
    return validate_msg


def _metadata_length(text):
    if len(text) > MAX_METADATA_LEN:
        raise error(METADATA_TOO_LONG, f"got metadata with length {len(text)}")


def _deposit_coins(repeated):
    """validateDeposit: valid and all positive."""
    amount, valid = coins.parse(repeated)
    if not valid or not amount:
        raise errors.invalid_coins(coins.wire_text(repeated))
    return amount


def decode_messages(app, anys):
    """A proposal's messages as (handler, message); an unknown type is unroutable."""
    out = []
    for item in anys:
        handler = app.handlers.get(item.type_url)
        if handler is None:
            raise error(UNROUTABLE_PROPOSAL_MSG, item.type_url)
        try:
            out.append((handler, handler.message_class.FromString(item.value)))
        except Exception:  # noqa: BLE001 (untrusted bytes: any decode failure is the sender's error)
            raise errors.decode_error(f"unable to decode {item.type_url}") from None
    return out


def _signer_bytes(app, text):
    """A signer field's bytes (account or valoper bech32), None when it is neither."""
    prefix = app.genesis.bech32_prefix
    for hrp in (prefix + "valoper", prefix):
        try:
            return parse(text, hrp)
        except AddressError:
            continue
    return None


def _check_proposal_messages(app, decoded):
    """Keeper.SubmitProposal's loop: ValidateBasic, the gov account as the one signer, a route."""
    for handler, msg in decoded:
        try:
            handler.validate(app, msg)
        except errors.TxError as e:
            raise error(INVALID_PROPOSAL_MSG, e.log) from None
        signer = handler.signer(msg)
        if _signer_bytes(app, signer) != GOV:
            raise error(INVALID_SIGNER, signer)


def submit_proposal(app, ctx, msg, signer):
    keeper = app.keepers["gov"]
    if not msg.title:
        raise error(INVALID_PROPOSAL_CONTENT, "proposal title cannot be empty")
    if not msg.summary:
        raise error(INVALID_PROPOSAL_CONTENT, "proposal summary cannot be empty")
    proposer = address(app, msg.proposer, "proposer")
    if not msg.messages and not msg.metadata:
        raise error(NO_PROPOSAL_MSGS, "either metadata or Msgs length must be non-nil")
    if msg.metadata:
        try:
            meta = json.loads(msg.metadata)
        except ValueError:
            meta = None
        # Metadata in the recommended JSON shape must agree with the title and summary; any other is allowed.
        if isinstance(meta, dict):
            if meta.get("title", "") != msg.title:
                raise error(INVALID_PROPOSAL_CONTENT, f"metadata title '{meta.get('title', '')}' must equal "
                            f"proposal title '{msg.title}'")
            if meta.get("summary", "") != msg.summary:
                raise error(INVALID_PROPOSAL_CONTENT, f"metadata summary '{meta.get('summary', '')}' must equal "
                            f"proposal summary '{msg.summary}'")
    decoded = decode_messages(app, msg.messages)
    params = keeper.params(ctx)
    initial, valid = coins.parse(msg.initial_deposit)
    if not valid:
        raise errors.invalid_coins(coins.wire_text(msg.initial_deposit))
    ratio = legacy_dec.parse(params.min_initial_deposit_ratio)
    if ratio:
        needed = {denom: _round_half_even(value * ratio) for denom, value in
                  deposits.min_deposit(params, msg.expedited).items()}
        if not coins.all_gte(initial, needed):
            raise error(MIN_DEPOSIT_TOO_SMALL, f"was ({coins.text(initial)}), need ({coins.text(needed)})")
    deposits.validate_denoms(params, initial)
    _metadata_length(msg.metadata)
    if len(msg.summary) > MAX_SUMMARY_LEN:
        raise error(SUMMARY_TOO_LONG, f"got summary with length {len(msg.summary)}")
    _metadata_length(msg.title)
    _check_proposal_messages(app, decoded)
    pid = keeper.next_proposal_id(ctx)
    keeper.set_next_proposal_id(ctx, pid + 1)
    p = gov_pb2.Proposal(id=pid, messages=msg.messages, status=gov_pb2.PROPOSAL_STATUS_DEPOSIT_PERIOD,
                         final_tally_result=gov_pb2.TallyResult(yes_count="0", abstain_count="0", no_count="0",
                                                                no_with_veto_count="0"),
                         metadata=msg.metadata, title=msg.title, summary=msg.summary, proposer=msg.proposer,
                         expedited=msg.expedited)
    p.submit_time.FromNanoseconds(ctx.time_ns)
    p.deposit_end_time.FromNanoseconds(ctx.time_ns + params.max_deposit_period.ToNanoseconds())
    keeper.set_proposal(ctx, p)
    keeper.enqueue(ctx, "inactive", p.deposit_end_time.ToNanoseconds(), pid)
    events = [event("submit_proposal", ("proposal_id", str(pid)),
                    ("proposal_messages", ",".join(item.type_url for item in msg.messages)))]
    emitted, started = deposits.add_deposit(app, ctx, pid, proposer, initial)
    events += emitted
    if started:
        events.append(event("submit_proposal", ("voting_period_start", str(pid))))
    return events, tx_pb2.MsgSubmitProposalResponse(proposal_id=pid)


def _round_half_even(atomics):
    """LegacyDec.RoundInt of an 18-place product."""
    quotient, remainder = divmod(atomics, legacy_dec.ONE)
    if 2 * remainder > legacy_dec.ONE or (2 * remainder == legacy_dec.ONE and quotient % 2):
        quotient += 1
    return quotient


def deposit(app, ctx, msg, signer):
    depositor = address(app, msg.depositor, "depositor")
    amount = _deposit_coins(msg.amount)
    events, started = deposits.add_deposit(app, ctx, msg.proposal_id, depositor, amount)
    if started:
        events.append(event("proposal_deposit", ("voting_period_start", str(msg.proposal_id))))
    return events, tx_pb2.MsgDepositResponse()


def _option_text(option, weight):
    """WeightedVoteOption.String() (the proto's compact text), as the proposal_vote event carries it."""
    return f'option:{option_name(option)} weight:"{weight}"'


def _add_vote(app, ctx, pid, voter, options, metadata):
    """Keeper.AddVote: options are (VoteOption, weight text) pairs already checked."""
    keeper = app.keepers["gov"]
    if not keeper.in_voting_period(ctx, pid):
        raise error(INACTIVE_PROPOSAL, str(pid))
    _metadata_length(metadata)
    voter_b32 = app.keepers["bank"].bech32(voter)
    v = gov_pb2.Vote(proposal_id=pid, voter=voter_b32, metadata=metadata,
                     options=[gov_pb2.WeightedVoteOption(option=o, weight=w) for o, w in options])
    keeper.set_vote(ctx, pid, voter, v)
    text = "\n".join(_option_text(o, w) for o, w in options)
    return [event("proposal_vote", ("voter", voter_b32), ("option", text), ("proposal_id", str(pid)))]


def vote(app, ctx, msg, signer):
    voter = address(app, msg.voter, "voter")
    if msg.option not in VALID_OPTIONS:
        raise error(INVALID_VOTE, option_name(msg.option))
    return _add_vote(app, ctx, msg.proposal_id, voter, [(msg.option, legacy_dec.format(legacy_dec.ONE))],
                     msg.metadata), tx_pb2.MsgVoteResponse()


def option_name(option):
    try:
        return gov_pb2.VoteOption.Name(option)
    except ValueError:
        return str(option)


def vote_weighted(app, ctx, msg, signer):
    voter = address(app, msg.voter, "voter")
    if not msg.options:
        raise errors.invalid_request("")
    total, used, options = 0, set(), []
    for o in msg.options:
        try:
            weight = legacy_dec.parse(o.weight)
        except ValueError as e:
            weight, problem = None, e
        if o.option not in VALID_OPTIONS or (weight is not None and not 0 < weight <= legacy_dec.ONE):
            raise error(INVALID_VOTE, _option_text(o.option, o.weight))
        if weight is None:
            raise error(INVALID_VOTE, f"invalid weight: {problem}")
        total += weight
        if o.option in used:
            raise error(INVALID_VOTE, "duplicated vote option")
        used.add(o.option)
        options.append((o.option, legacy_dec.format(weight)))
    if total > legacy_dec.ONE:
        raise error(INVALID_VOTE, "total weight overflow 1.00")
    if total < legacy_dec.ONE:
        raise error(INVALID_VOTE, "total weight lower than 1.00")
    return _add_vote(app, ctx, msg.proposal_id, voter, options, msg.metadata), tx_pb2.MsgVoteWeightedResponse()


def _cancel_proposal(app, ctx, msg, signer):
    keeper = app.keepers["gov"]
    address(app, msg.proposer, "proposer")
    pid = msg.proposal_id
    p = keeper.proposal(ctx, pid)
    if p is None:
        raise error(UNKNOWN_PROPOSAL, f"proposal {pid} doesn't exist")
    if not p.proposer:
        raise error(INVALID_PROPOSAL, f"proposal {pid} doesn't have proposer {msg.proposer}, so cannot be canceled")
    if p.proposer != msg.proposer:
        raise error(INVALID_PROPOSER, f"invalid proposer {msg.proposer}")
    if p.status not in (gov_pb2.PROPOSAL_STATUS_DEPOSIT_PERIOD, gov_pb2.PROPOSAL_STATUS_VOTING_PERIOD):
        raise error(INVALID_PROPOSAL, "proposal should be in the deposit or voting period")
    if p.HasField("voting_end_time") and p.voting_end_time.ToNanoseconds() < ctx.time_ns:
        raise error(VOTING_PERIOD_ENDED, f"voting period is already ended for this proposal {pid}")
    params = keeper.params(ctx)
    events = deposits.charge(app, ctx, pid, params.proposal_cancel_dest, params.proposal_cancel_ratio)
    if p.HasField("voting_start_time"):
        for voter, _ in keeper.votes(ctx, pid):
            keeper.delete_vote(ctx, pid, voter)
    keeper.delete_proposal(ctx, p)
    events.append(event("cancel_proposal", ("sender", msg.proposer), ("proposal_id", str(pid))))
    response = tx_pb2.MsgCancelProposalResponse(proposal_id=pid, canceled_height=ctx.height)
    response.canceled_time.FromNanoseconds(ctx.time_ns)
    return events, response


def _update_params(app, ctx, msg, signer):
    keeper = app.keepers["gov"]
    authority.check(app, msg.authority)
    try:
        validate(msg.params, app.genesis.bech32_prefix)
    except ValueError as e:
        raise authority.invalid_params(str(e)) from None
    keeper.set_params(ctx, msg.params)
    return [], tx_pb2.MsgUpdateParamsResponse()


MESSAGES = (
    MsgHandler("/cosmos.gov.v1.MsgSubmitProposal", tx_pb2.MsgSubmitProposal, lambda m: m.proposer,
               signer_check("proposer", "proposer"), submit_proposal,
               amino=Amino("cosmos-sdk/v1/MsgSubmitProposal", keep=("initial_deposit",), coins=("initial_deposit",))),
    MsgHandler("/cosmos.gov.v1.MsgDeposit", tx_pb2.MsgDeposit, lambda m: m.depositor,
               signer_check("depositor", "depositor"), deposit,
               amino=Amino("cosmos-sdk/v1/MsgDeposit", keep=("proposal_id", "amount"))),
    MsgHandler("/cosmos.gov.v1.MsgVote", tx_pb2.MsgVote, lambda m: m.voter, signer_check("voter", "voter"), vote,
               amino=Amino("cosmos-sdk/v1/MsgVote", keep=("proposal_id",))),
    MsgHandler("/cosmos.gov.v1.MsgVoteWeighted", tx_pb2.MsgVoteWeighted, lambda m: m.voter,
               signer_check("voter", "voter"), vote_weighted,
               amino=Amino("cosmos-sdk/v1/MsgVoteWeighted", keep=("proposal_id",))),
    MsgHandler("/cosmos.gov.v1.MsgCancelProposal", tx_pb2.MsgCancelProposal, lambda m: m.proposer,
               signer_check("proposer", "proposer"), _cancel_proposal,
               amino=Amino("cosmos-sdk/v1/MsgCancelProposal", keep=("proposal_id",))),
    MsgHandler("/cosmos.gov.v1.MsgUpdateParams", tx_pb2.MsgUpdateParams, lambda m: m.authority,
               signer_check("authority", "authority"), _update_params,
               amino=Amino("cosmos-sdk/x/gov/v1/MsgUpdateParams", keep=("params",))),
)
