"""The header chaind records for a block CometBFT decided carries the fields CometBFT's own header does,
where chaind works them out itself (found by running real CometBFT v0.38 against `chaind testnet` homes)."""

import hashlib

import pytest_twisted

from abci_driver import Driver, Replica
from chaind.chain import merkle
from helpers import in_thread


def _two_blocks(port, genesis_doc, time_ns):
    replica = Replica(port)
    driver = Driver(genesis_doc)
    driver.handshake(replica)
    wanted = []
    for i in range(2):
        wanted.append(driver.last_results_hash)     # what the header of this height carries in CometBFT
        driver.run_block([replica], driver.decide([], time_ns + i * 10**9))
    replica.close()
    return driver.genesis_app_hash, wanted


@pytest_twisted.inlineCallbacks
def test_the_first_block_carries_cometbfts_empty_results_hash(node_factory):
    node = node_factory(abci={"mode": "socket", "address": "127.0.0.1:0"})
    _, wanted = yield in_thread(_two_blocks, node.port_of("abci"), node.genesis.document,
                             node.genesis.genesis_time_ns + 10**9)
    # CometBFT's handshake sets the genesis state's LastResultsHash to the Merkle root of no results
    # (SHA-256 of nothing, RFC 6962), so its first block's header carries that, not an empty field.
    assert wanted[0] == merkle.root([])
    assert [node.app.block_at(h)[0].last_results_hash for h in (1, 2)] == wanted


@pytest_twisted.inlineCallbacks
def test_init_chain_answers_the_sdks_app_hash_of_a_new_chain(node_factory):
    node = node_factory(abci={"mode": "socket", "address": "127.0.0.1:0"})
    genesis_app_hash, _ = yield in_thread(_two_blocks, node.port_of("abci"), node.genesis.document,
                                          node.genesis.genesis_time_ns + 10**9)
    # baseapp's InitChain on a new chain answers SHA-256 of nothing; CometBFT puts it in the first header.
    assert genesis_app_hash == hashlib.sha256(b"").digest()
    assert node.app.block_at(1)[0].app_hash == genesis_app_hash
