"""A dev chain's App driven in process, block by block, with EVM transfers from dev account 0: for benches that
measure the store (pruning, snapshots) against a state of a given size, without a node.
"""

import base64
import hashlib
import time

from cryptography.hazmat.primitives.asymmetric import ed25519
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from eth_account import Account

from chaind.chain import txs
from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.crypto.addresses import to_bech32
from chaind.home import Home
from chaind.store.db import Database


def unsigned_blocks_genesis(home_path, validators=1):
    """A dev home's genesis whose validators are not jailed for the missing signatures of in-process blocks, and the
    home. `validators`: the dev validator and more, each bonded at genesis with the dev one's stake (new keys)."""
    home = Home(home_path)
    home.init("bench", dev=True)
    genesis = Genesis.load(home.genesis_file)
    app_state = genesis.document["app_state"]
    app_state["slashing"]["params"]["min_signed_per_window"] = "0"
    first = app_state["staking"]["validators"][0]
    prefix = app_state["auth"]["bech32_prefix"]
    for i in range(1, validators):
        operator = to_bech32(prefix, hashlib.sha256(b"bench validator %d" % i).digest()[:20])
        pubkey = ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        app_state["staking"]["validators"].append({"operator": operator, "tokens": first["tokens"],
                                                   "consensus_pubkey": base64.b64encode(pubkey).decode(),
                                                   "moniker": f"bench{i}"})
        app_state["bank"]["balances"].append(
            {"address": operator, "coins": [{"denom": genesis.base_denom, "amount": str(2 * int(first["tokens"]))}]})
    return Genesis.from_document(genesis.document), home


def storage_contract(index, slots):
    """Init code that writes `slots` storage slots (values made of `index`) and deploys a runtime that stores its
    calldata's first word at slot 0 and returns it."""
    runtime = bytes.fromhex("60003560005560005460005260206000f3")
    init = b"".join(b"\x63" + (index * 1000 + slot + 1).to_bytes(4, "big") + b"\x60" + bytes((slot,)) + b"\x55"
                    for slot in range(slots))
    copy_at = len(init) + 12
    init += bytes((0x60, len(runtime), 0x60, copy_at, 0x60, 0, 0x39, 0x60, len(runtime), 0x60, 0, 0xF3))
    return init + runtime


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

    def deploys(self, init_codes, gas):
        """Signed contract creations, one per init code, at the next nonces."""
        raws = []
        for code in init_codes:
            signed = Account.sign_transaction({"chainId": 9000, "gas": gas, "maxFeePerGas": 10**10,
                                               "maxPriorityFeePerGas": 1, "nonce": self.nonce, "data": code},
                                              self.key)
            raws.append(txs.wrap_evm(signed.raw_transaction, 9000, self.genesis.base_denom).raw)
            self.nonce += 1
        return raws

    def contracts(self, count, slots, per_block):
        """Blocks deploying `count` contracts of `slots` storage slots each, `per_block` a block; whether every
        creation succeeded."""
        ok = True
        for start in range(0, count, per_block):
            codes = [storage_contract(start + i, slots) for i in range(min(per_block, count - start))]
            height = self.app.height + 1
            committed, puts = self.app.finalize_block(self.deploys(codes, 60_000 + 23_000 * slots),
                                                      self.genesis.genesis_time_ns + height * 10**9, b"\x01" * 20)
            ok = ok and all(r.code == 0 for r in committed.results)
            self.app.commit(committed, puts)
        return ok

    def fill(self, accounts, per_block):
        """Blocks of transfers to `accounts` new addresses (0x…1000 on), `per_block` a block."""
        for start in range(0, accounts, per_block):
            count = min(per_block, accounts - start)
            self.block(self.transfers((0x1000 + start + i).to_bytes(20, "big") for i in range(count)))

    def among(self, accounts, count=20):
        """`count` transfers among the `accounts` that fill made, spread over them."""
        return self.transfers((0x1000 + (self.nonce + i) * 7 % accounts).to_bytes(20, "big") for i in range(count))
