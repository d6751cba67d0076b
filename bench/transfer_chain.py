"""A dev chain's App driven in process, block by block, with EVM transfers from dev account 0: for benches that
measure the store (pruning, snapshots) against a state of a given size, without a node.
"""

import time

from eth_account import Account

from chaind.chain import txs
from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.home import Home
from chaind.store.db import Database


def unsigned_blocks_genesis(home_path):
    """A dev home's genesis whose validator is not jailed for the missing signatures of in-process blocks, and the
    home."""
    home = Home(home_path)
    home.init("bench", dev=True)
    genesis = Genesis.load(home.genesis_file)
    genesis.document["app_state"]["slashing"]["params"]["min_signed_per_window"] = "0"
    return Genesis.from_document(genesis.document), home


class TransferChain:
    """An App on its own LevelDB at `path`; `block(raws)` makes and commits one block (its seconds), `transfers`
    signs the next EVM transfers of 1 wei from dev account 0."""

    def __init__(self, path, genesis, key, options):
        self.genesis, self.key = genesis, key
        self.db = Database(path)
        self.app = App(self.db, genesis, options)
        self.nonce = 0

    def block(self, raws):
        height = self.app.height + 1
        started = time.perf_counter()
        committed, puts = self.app.finalize_block(raws, self.genesis.genesis_time_ns + height * 10**9, b"\x01" * 20)
        self.app.commit(committed, puts)
        return time.perf_counter() - started

    def transfers(self, recipients):
        """Signed txs, one per recipient (20-byte addresses), at the next nonces."""
        raws = []
        for to in list(recipients):
            signed = Account.sign_transaction({"chainId": 9000, "gas": 21000, "maxFeePerGas": 10**10,
                                               "maxPriorityFeePerGas": 1, "nonce": self.nonce, "to": to,
                                               "value": 1}, self.key)
            raws.append(txs.wrap_evm(signed.raw_transaction, 9000, self.genesis.base_denom).raw)
            self.nonce += 1
        return raws

    def fill(self, accounts, per_block):
        """Blocks of transfers to `accounts` new addresses (0x…1000 on), `per_block` a block."""
        for start in range(0, accounts, per_block):
            count = min(per_block, accounts - start)
            self.block(self.transfers((0x1000 + start + i).to_bytes(20, "big") for i in range(count)))

    def among(self, accounts, count=20):
        """`count` transfers among the `accounts` that fill made, spread over them."""
        return self.transfers((0x1000 + (self.nonce + i) * 7 % accounts).to_bytes(20, "big") for i in range(count))
