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
class Tx:
    block: object
    index: int
    name = "Tx"


@attrs.frozen
class ValidatorSetUpdates:
    height: int
    updates: tuple
    name = "ValidatorSetUpdates"


@attrs.frozen
class PendingTx:
    """A tx accepted into the mempool (not a CometBFT event; feeds newPendingTransactions)."""

    tx: object           # chain.txs.DecodedTx
    name = "PendingTx"
