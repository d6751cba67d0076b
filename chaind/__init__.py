"""chaind: a proof-of-stake chain node with an EVM beside native modules, on one Twisted reactor."""

__version__ = "0.1.0"
