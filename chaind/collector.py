"""Python's cyclic garbage collector set for a node: young collections far apart, so a block's own objects die
before one runs instead of being promoted to the old generation, whose full passes stall a block.

With Python's default (a young collection every 700 net allocations), a block's events, records and tx
objects, alive while it runs, survive a few young collections and reach the old generation; every few
dozen blocks that triggers a full pass over all of the node's objects (the IAVL node cache's among them),
50-150 ms inside some block. Far apart, a young collection finds them already freed by reference counting.
"""

import gc


def tune(young_threshold):
    """Net allocations between two young collections (Python's default 700); 0 leaves Python's settings."""
    if young_threshold:
        _, middle, old = gc.get_threshold()
        gc.set_threshold(young_threshold, middle, old)
