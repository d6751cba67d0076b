"""A committed block's EVM txs, read from its stored results: which of its txs ran in the EVM, and the EVM
hash each one carries in the ethereum_tx event deliver.py gives it."""


def evm_results(chain, height, meta):
    """(index, TxResult) of the block's EVM txs, in block order."""
    for index in range(meta.num_txs):
        result = chain.result_at(height, index)
        if result.receipt is not None:
            yield index, result


def evm_hash_of(result):
    """The EVM tx hash, from the ethereum_tx event every executed EVM tx carries."""
    for e in result.events:
        if e.type == "ethereum_tx":
            for key, value, _ in e.attributes:
                if key == "ethereumTxHash":
                    return bytes.fromhex(value[2:])
    raise LookupError("EVM tx result without an ethereumTxHash event")
