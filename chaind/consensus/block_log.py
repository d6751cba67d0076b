"""The info line of each committed block, as CometBFT logs "committed state": height, txs, gas, time taken.

The solo producer and the ABCI application both log it once the block is durable.
"""

from twisted.logger import Logger

log = Logger(namespace="chaind.consensus")


def committed(block, timings):
    """`timings`: (seconds executing, seconds committing) of the block."""
    executed, written = timings
    log.info("committed block height={height} txs={txs} gas={gas} took={ms:.1f}ms (execute {execute:.1f}ms, "
             "commit {commit:.1f}ms)", height=block.height, txs=block.meta.num_txs, gas=block.meta.gas_used,
             ms=(executed + written) * 1000, execute=executed * 1000, commit=written * 1000)


def committed_run(blocks):
    """A dev run of empty blocks stored as headers alone (anvil_mine): one line, not thousands."""
    log.info("committed blocks {first}..{last} (an empty run of {count}, headers only)",
             first=blocks[0].height, last=blocks[-1].height, count=len(blocks))
