"""The events the chain publishes, named as CometBFT names them (tm.event values)."""

import attrs


@attrs.frozen
class NewBlock:
    block: object        # chain.block.CommittedBlock
    name = "NewBlock"


@attrs.frozen
class NewBlockHeader:
    block: object
    name = "NewBlockHeader"


@attrs.frozen
class NewBlockEvents:
    """CometBFT v0.38's block events alone: height, FinalizeBlock's events and the tx count."""

    block: object
    name = "NewBlockEvents"


@attrs.frozen
class Tx:
    block: object
    index: int
    name = "Tx"


@attrs.frozen
class NewEvidence:
    """One piece of evidence a committed block carries (block.evidence[index])."""

    block: object
    index: int
    name = "NewEvidence"


@attrs.frozen
class ValidatorSetUpdates:
    """The validator updates a committed block returned (block.validator_updates, never empty)."""

    block: object
    name = "ValidatorSetUpdates"


# The consensus steps the solo producer goes through for each block it commits, published with the
# block (after it is durable). `block` is that committed block; the payloads are made from it only
# when a subscriber renders them, so the steps cost a block no more than a few small objects.


@attrs.frozen
class NewRound:
    block: object
    name = "NewRound"


@attrs.frozen
class NewRoundStep:
    """The validator entered `step` (a CometBFT RoundStepType name) of round 0 for `block`; the
    NewHeight step belongs to the height after it, entered once `block` is committed."""

    block: object
    step: str
    name = "NewRoundStep"


@attrs.frozen
class CompleteProposal:
    block: object
    name = "CompleteProposal"


@attrs.frozen
class Vote:
    """The validator's prevote for `block`, or (precommit) the precommit for the parent that `block`'s
    last_commit carries: with one validator that vote is signed at the next block's time, so it
    exists only once that block is made."""

    block: object
    precommit: bool
    name = "Vote"


@attrs.frozen
class Polka:
    block: object
    name = "Polka"


@attrs.frozen
class ValidBlock:
    block: object
    name = "ValidBlock"


@attrs.frozen
class Lock:
    block: object
    name = "Lock"


@attrs.frozen
class PendingTx:
    """A tx accepted into the mempool (not a CometBFT event; feeds newPendingTransactions)."""

    tx: object           # chain.txs.DecodedTx
    name = "PendingTx"


# The consensus steps a validator goes through each height (the producer makes them only for a subscriber).
CONSENSUS_STEPS = (NewRound, NewRoundStep, CompleteProposal, Vote, Polka, ValidBlock, Lock)


def committed(block):
    """The events of a block once it is durable, in CometBFT's order: the block, its header, its own
    events, each piece of evidence it carries, each tx, and its validator updates when it has any."""
    events = [NewBlock(block), NewBlockHeader(block), NewBlockEvents(block)]
    events += [NewEvidence(block, i) for i in range(len(block.evidence))]
    events += [Tx(block, i) for i in range(len(block.txs))]
    if block.validator_updates:
        events.append(ValidatorSetUpdates(block))
    return events
