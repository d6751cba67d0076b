"""gov's legacy side: text proposals (MsgExecLegacyContent) and the v1beta1 messages, which the SDK's legacy
msg server turns into v1 ones."""

import re

from chaind.chain import authority, errors, legacy_dec
from chaind.chain.amino import Amino
from chaind.chain.modules.gov import msgs
from chaind.chain.modules.gov.errors import CODESPACE, INVALID_PROPOSAL_CONTENT, INVALID_VOTE, error
from chaind.chain.msgs import MsgHandler
from chaind.pb.cosmos.gov.v1 import gov_pb2 as v1_gov
from chaind.pb.cosmos.gov.v1 import tx_pb2 as v1_tx
from chaind.pb.cosmos.gov.v1beta1 import gov_pb2, tx_pb2

TEXT_PROPOSAL = "/cosmos.gov.v1beta1.TextProposal"
EXEC_LEGACY = "/cosmos.gov.v1.MsgExecLegacyContent"
_MAX_TITLE, _MAX_DESCRIPTION = 140, 10000


def _content(any_content):
    """The legacy Content of an Any: only TextProposal has a route here (the SDK's "gov" route)."""
    if any_content.type_url != TEXT_PROPOSAL:
        raise errors.decode_error(f"no concrete type registered for type URL {any_content.type_url} against "
                                  "interface *v1beta1.Content")
    try:
        return gov_pb2.TextProposal.FromString(any_content.value)
    except Exception:  # noqa: BLE001 (untrusted bytes: any decode failure is the sender's error)
        raise errors.decode_error("unable to decode TextProposal") from None


def _validate_content(content):
    """v1beta1.ValidateAbstract."""
    if not content.title.strip():
        raise error(INVALID_PROPOSAL_CONTENT, "proposal title cannot be blank")
    if len(content.title) > _MAX_TITLE:
        raise error(INVALID_PROPOSAL_CONTENT, f"proposal title is longer than max length of {_MAX_TITLE}")
    if not content.description.strip():
        raise error(INVALID_PROPOSAL_CONTENT, "proposal description cannot be blank")
    if len(content.description) > _MAX_DESCRIPTION:
        raise error(INVALID_PROPOSAL_CONTENT, f"proposal description is longer than max length of {_MAX_DESCRIPTION}")


def _validate_exec_legacy(app, msg):
    msgs.address(app, msg.authority, "authority")
    _content(msg.content)


def _exec_legacy(app, ctx, msg, signer):
    expected = app.keepers["bank"].bech32(authority.GOV)
    if msg.authority != expected:
        raise error((13, "expected gov account as only signer for proposal message"),
                    f"expected {expected} got {msg.authority}")
    _validate_content(_content(msg.content))
    # A text proposal's handler changes nothing: passing is its effect.
    return [], v1_tx.MsgExecLegacyContentResponse()


def _submit_v1beta1(app, ctx, msg, signer):
    if not msg.HasField("content"):
        raise error(INVALID_PROPOSAL_CONTENT, "missing content")
    content = _content(msg.content)
    _validate_content(content)
    wrapped = v1_tx.MsgExecLegacyContent(content=msg.content, authority=app.keepers["bank"].bech32(authority.GOV))
    v1 = v1_tx.MsgSubmitProposal(initial_deposit=msg.initial_deposit, proposer=msg.proposer, title=content.title,
                                 summary=content.description)
    v1.messages.add(type_url=EXEC_LEGACY, value=wrapped.SerializeToString())
    events, response = msgs.submit_proposal(app, ctx, v1, signer)
    return events, tx_pb2.MsgSubmitProposalResponse(proposal_id=response.proposal_id)


def _vote_v1beta1(app, ctx, msg, signer):
    msgs.address(app, msg.voter, "voter")
    if msg.option not in msgs.VALID_OPTIONS:
        raise error(INVALID_VOTE, msgs.option_name(msg.option))
    events, _ = msgs.vote(app, ctx, v1_tx.MsgVote(proposal_id=msg.proposal_id, voter=msg.voter, option=msg.option),
                          signer)
    return events, tx_pb2.MsgVoteResponse()


def _weight_text(wire):
    """A v1beta1 weight (LegacyDec atomics on the wire) as the decimal text v1 carries."""
    if not re.fullmatch(r"-?\d+", wire or ""):
        raise errors.TxError(CODESPACE, INVALID_VOTE[0], f"invalid weight: {wire!r}: {INVALID_VOTE[1]}")
    return legacy_dec.format(int(wire))


def _vote_weighted_v1beta1(app, ctx, msg, signer):
    options = [v1_gov.WeightedVoteOption(option=o.option, weight=_weight_text(o.weight)) for o in msg.options]
    events, _ = msgs.vote_weighted(app, ctx, v1_tx.MsgVoteWeighted(proposal_id=msg.proposal_id, voter=msg.voter,
                                                                   options=options), signer)
    return events, tx_pb2.MsgVoteWeightedResponse()


def _deposit_v1beta1(app, ctx, msg, signer):
    events, _ = msgs.deposit(app, ctx, v1_tx.MsgDeposit(proposal_id=msg.proposal_id, depositor=msg.depositor,
                                                        amount=msg.amount), signer)
    return events, tx_pb2.MsgDepositResponse()


MESSAGES = (
    MsgHandler(EXEC_LEGACY, v1_tx.MsgExecLegacyContent, lambda m: m.authority, _validate_exec_legacy, _exec_legacy,
               amino=Amino("cosmos-sdk/v1/MsgExecLegacyContent")),
    MsgHandler("/cosmos.gov.v1beta1.MsgSubmitProposal", tx_pb2.MsgSubmitProposal, lambda m: m.proposer,
               msgs.signer_check("proposer", "proposer"), _submit_v1beta1,
               amino=Amino("cosmos-sdk/MsgSubmitProposal", keep=("initial_deposit",), coins=("initial_deposit",))),
    MsgHandler("/cosmos.gov.v1beta1.MsgVote", tx_pb2.MsgVote, lambda m: m.voter, msgs.signer_check("voter", "voter"),
               _vote_v1beta1, amino=Amino("cosmos-sdk/MsgVote", keep=("proposal_id",))),
    MsgHandler("/cosmos.gov.v1beta1.MsgVoteWeighted", tx_pb2.MsgVoteWeighted, lambda m: m.voter,
               msgs.signer_check("voter", "voter"), _vote_weighted_v1beta1,
               amino=Amino("cosmos-sdk/MsgVoteWeighted", keep=("proposal_id",))),
    MsgHandler("/cosmos.gov.v1beta1.MsgDeposit", tx_pb2.MsgDeposit, lambda m: m.depositor,
               msgs.signer_check("depositor", "depositor"), _deposit_v1beta1,
               amino=Amino("cosmos-sdk/MsgDeposit", keep=("proposal_id", "amount"))),
)

# Amino JSON of the nested types: v1beta1's weight is a LegacyDec (atomics on the wire, a decimal in JSON); a
# TextProposal, packed in a proposal's content, goes by its amino name.
AMINO_SHAPES = {gov_pb2.WeightedVoteOption: Amino(keep=("weight",), decs=("weight",)),
                gov_pb2.TextProposal: Amino("cosmos-sdk/TextProposal"),
                # v1's params (MsgUpdateParams): both deposit lists are amino.dont_omitempty.
                v1_gov.Params: Amino(keep=("min_deposit", "expedited_min_deposit"),
                                     coins=("min_deposit", "expedited_min_deposit"))}
