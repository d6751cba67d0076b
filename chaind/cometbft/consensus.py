"""The consensus-step events (NewRound, NewRoundStep, CompleteProposal, Vote, ValidBlock, Polka, Lock) as
CometBFT v0.38's /websocket sends them, made from a committed block and the validator's own key.
"""

from chaind.chain import votes
from chaind.chain.votes import PRECOMMIT, PREVOTE
from chaind.cometbft import encode as enc
from chaind.events import types as ev
from chaind.gocompat import format_time


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
        sig = next(s for s in app.commit_sigs(header) if s.block_id_flag == votes.BLOCK_ID_FLAG_COMMIT)
        time_ns = sig.timestamp.seconds * 10**9 + sig.timestamp.nanos
        kind, value = "Vote", _vote(PRECOMMIT, height - 1, header.last_block_id, time_ns, sig.validator_address,
                                    sig.signature)
    elif isinstance(event, ev.Vote):
        # The proposer prevotes its own proposal at the block's time.
        block_id = enc.block_id_of(event.block.meta)
        signature = app.options.vote_key.sign(votes.sign_bytes(header.chain_id, height, 0, block_id, header.time_ns,
                                                       vote_type=PREVOTE))
        kind, value = "Vote", _vote(PREVOTE, height, block_id, header.time_ns, app.options.validator_address, signature)
    elif isinstance(event, ev.NewRoundStep):
        # EventDataRoundState, registered as RoundState; NewHeight is the next height's first step.
        step = event.step
        kind, value = "RoundState", _round_state(height + 1 if step == "RoundStepNewHeight" else height, step)
    else:
        # ValidBlock, Polka and Lock carry EventDataRoundState too; all fire in the prevote step (CometBFT
        # updates the step to precommit only when enterPrecommit returns).
        kind, value = "RoundState", _round_state(height, "RoundStepPrevote")
    return {"type": f"tendermint/event/{kind}", "value": value}
