"""The info line of each committed block, as CometBFT logs "committed state": height, txs, gas, time taken.

The solo producer and the ABCI application both log it once the block is durable.
"""

from twisted.logger import Logger

log = Logger(namespace="chaind.consensus")


def committed(block, timings):
    """`timings`: (seconds executing, seconds committing) of the block. The line is made here (the fields stay in
    the event for observers that read them): Twisted's formatting of six fields cost a third of the line."""
    executed, written = timings
    height, txs, gas = block.height, block.meta.num_txs, block.meta.gas_used
    ms, execute, commit = (executed + written) * 1000, executed * 1000, written * 1000
    log.info("{line}", line=f"committed block height={height} txs={txs} gas={gas} took={ms:.1f}ms (execute "
                            f"{execute:.1f}ms, commit {commit:.1f}ms)",
             height=height, txs=txs, gas=gas, ms=ms, execute=execute, commit=commit)


def committed_run(blocks):
    """A dev run of empty blocks stored as headers alone (anvil_mine): one line, not thousands."""
    log.info("committed blocks {first}..{last} (an empty run of {count}, headers only)",
             first=blocks[0].height, last=blocks[-1].height, count=len(blocks))
