"""The consensus-step events (NewRound, CompleteProposal, Vote, ValidBlock, Polka, Lock) as CometBFT v0.38's
/websocket sends them, made from a committed block and the validator's own key.
"""

from google.protobuf.internal import encoder

from chaind.cometbft import encode as enc
from chaind.chain.genesis import format_time
from chaind.events import types as ev
from chaind.pb.tendermint.types import canonical_pb2, types_pb2

PREVOTE, PRECOMMIT = types_pb2.SIGNED_MSG_TYPE_PREVOTE, types_pb2.SIGNED_MSG_TYPE_PRECOMMIT


def prevote_sign_bytes(chain_id, height, block_id, time_ns):
    """VoteSignBytes of a round-0 prevote for `block_id`: the length-delimited CanonicalVote."""
    vote = canonical_pb2.CanonicalVote(type=PREVOTE, height=height, round=0, chain_id=chain_id)
    vote.block_id.hash = block_id.hash
    vote.block_id.part_set_header.total = block_id.parts_total
    vote.block_id.part_set_header.hash = block_id.parts_hash
    vote.timestamp.seconds, vote.timestamp.nanos = divmod(time_ns, 10**9)
    body = vote.SerializeToString()
    return encoder._VarintBytes(len(body)) + body


def _round_state(height, step):
    return {"height": str(height), "round": 0, "step": step}


def _vote(vote_type, height, block_id, time_ns, address, signature):
    # types.Vote through cmtjson: int64 as a string, int32 as a number, nil byte slices as null.
    return {"Vote": {"type": vote_type, "height": str(height), "round": 0, "block_id": enc.block_id(block_id),
                     "timestamp": format_time(time_ns), "validator_address": enc.hexu(address),
                     "validator_index": 0, "signature": enc.b64(signature), "extension": None,
                     "extension_signature": None}}


def data(event, app):
    """The `data` object of a consensus-step event ({"type", "value"})."""
    header = event.block.header
    height = header.height
    if isinstance(event, ev.NewRound):
        kind, value = "NewRound", {**_round_state(height, "RoundStepNewRound"),
                                   "proposer": {"address": enc.hexu(header.proposer_address), "index": 0}}
    elif isinstance(event, ev.CompleteProposal):
        kind, value = "CompleteProposal", {**_round_state(height, "RoundStepPropose"),
                                           "block_id": enc.block_id(enc.block_id_of(event.block.meta))}
    elif isinstance(event, ev.Vote) and event.precommit:
        # The parent's precommit, exactly as this block's last_commit carries it.
        sig = app.commit_sigs(header)[0]
        time_ns = sig.timestamp.seconds * 10**9 + sig.timestamp.nanos
        kind, value = "Vote", _vote(PRECOMMIT, height - 1, header.last_block_id, time_ns, sig.validator_address,
                                    sig.signature)
    elif isinstance(event, ev.Vote):
        # The proposer prevotes its own proposal at the block's time.
        block_id = enc.block_id_of(event.block.meta)
        signature = app.vote_key.sign(prevote_sign_bytes(header.chain_id, height, block_id, header.time_ns))
        kind, value = "Vote", _vote(PREVOTE, height, block_id, header.time_ns, app.validator_address, signature)
    else:
        # ValidBlock, Polka and Lock carry EventDataRoundState, registered as RoundState; all fire in the prevote step.
        kind, value = "RoundState", _round_state(height, "RoundStepPrevote")
    return {"type": f"tendermint/event/{kind}", "value": value}
