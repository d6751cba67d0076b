"""Makes `twistd chaind` start a node (see chaind/tap.py)."""

from twisted.application.service import ServiceMaker

chaind = ServiceMaker("chaind", "chaind.tap", "A proof-of-stake EVM chain node", "chaind")
