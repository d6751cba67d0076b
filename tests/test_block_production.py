"""Block production under load: many txs of one sender, and blocks from decoded txs equal to blocks from bytes."""


import pytest_twisted
from eth_account import Account

from chaind.chain import txs
from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.home import Home
from chaind.store.db import Database
from evm_client import DEV0, DEV0_KEY, OTHER, post
from helpers import in_thread, until_tx

PROPOSER = bytes(20)


def transfer(nonce, key=DEV0_KEY):
    return bytes(Account.sign_transaction({"type": 2, "chainId": 9000, "nonce": nonce, "to": OTHER, "value": 1 + nonce,
                                           "gas": 21000, "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 10**9},
                                          key).raw_transaction)


@pytest_twisted.inlineCallbacks
def test_many_txs_of_one_sender_all_commit_in_nonce_order(node):
    count = 600    # more than one sender could hold before, and than geth's 16 guaranteed slots
    raws = [transfer(n) for n in range(count)]
    # Arriving slightly out of order, as from several connections.
    order = [n for start in range(0, count, 10) for n in reversed(range(start, start + 10))]
    batch = [{"jsonrpc": "2.0", "id": n, "method": "eth_sendRawTransaction", "params": ["0x" + raws[n].hex()]}
             for n in order]
    status, answers = yield in_thread(post, node, batch)
    assert status == 200 and [a.get("error") for a in answers] == [None] * count
    hashes = {a["id"]: a["result"] for a in answers}
    yield until_tx(node, hashes[count - 1], evm=True, timeout=60)     # the last nonce's: every one before it is in
    _, answer = yield in_thread(post, node, {"jsonrpc": "2.0", "id": 1, "method": "eth_getTransactionCount",
                                             "params": [DEV0, "latest"]})
    assert int(answer["result"], 16) == count
    _, receipts = yield in_thread(post, node, [
        {"jsonrpc": "2.0", "id": n, "method": "eth_getTransactionReceipt", "params": [hashes[n]]}
        for n in range(count)])
    receipts = [r["result"] for r in sorted(receipts, key=lambda r: r["id"])]
    assert {r["status"] for r in receipts} == {"0x1"}
    positions = [(int(r["blockNumber"], 16), int(r["transactionIndex"], 16)) for r in receipts]
    assert positions == sorted(positions) and len(set(positions)) == count
    _, balance = yield in_thread(post, node, {"jsonrpc": "2.0", "id": 1, "method": "eth_getBalance",
                                              "params": [OTHER, "latest"]})
    assert int(balance["result"], 16) == sum(1 + n for n in range(count))
    assert len(node.mempool) == 0


def test_decoded_txs_make_the_same_blocks_as_bytes(tmp_path):
    home = Home(tmp_path / "home").init("test", dev=True)
    genesis = Genesis.load(home.genesis_file)
    other_key = "0x" + home.dev_keys()[1].private_key.hex()
    signed = [transfer(n) for n in range(3)] + [transfer(0, other_key), transfer(7)]
    envelopes = [txs.wrap_evm(raw, 9000, genesis.base_denom).raw for raw in signed]
    # The second block holds every kind of result: a success, an undecodable tx, a nonce py-evm refuses.
    second_raw = [envelopes[3], b"\x0a\x01", envelopes[4]]
    now = genesis.genesis_time_ns + 10**9

    def run(path, decoded, reopen):
        db = Database(path)
        app = App(db, genesis)
        first = [app.check_tx(raw) for raw in envelopes[:3]] if decoded else envelopes[:3]
        block, puts = app.finalize_block(first, now, PROPOSER)
        app.commit(block, puts)
        if reopen:
            db.close()
            db = Database(path)
            app = App(db, genesis)
        second = [app.check_eth_tx(signed[3])] + second_raw[1:] if decoded else second_raw
        block2, puts2 = app.finalize_block(second, now + 10**9, PROPOSER)
        db.close()
        return block, puts, block2, puts2

    expected = run(tmp_path / "bytes", decoded=False, reopen=True)
    got = run(tmp_path / "decoded", decoded=True, reopen=False)
    assert got[0].header.hash() == expected[0].header.hash() and got[1] == expected[1]
    # The second header's last_results_hash came from memory here, from the database there.
    assert got[2].header == expected[2].header and got[2].txs == tuple(second_raw)
    assert got[2].meta == expected[2].meta and got[3] == expected[3]
    assert [r.code != 0 for r in got[2].results] == [False, True, True]


def test_a_recent_block_s_txs_are_read_back_as_it_ran_them(tmp_path):
    """decode_tx of a tx of a block made here gives the tx the block ran (no second signer recovery for a receipt);
    other bytes are decoded as before."""
    home = Home(tmp_path / "home").init("test", dev=True)
    genesis = Genesis.load(home.genesis_file)
    db = Database(tmp_path / "db")
    app = App(db, genesis)
    checked = app.check_eth_tx(transfer(0))
    block, puts = app.finalize_block([checked], genesis.genesis_time_ns + 10**9, PROPOSER)
    app.commit(block, puts)
    assert app.decode_tx(app.tx_at(block.height, 0)) is checked
    other = txs.wrap_evm(transfer(1), 9000, genesis.base_denom)
    assert app.decode_tx(other.raw) == other and app.decode_tx(other.raw) is not other
    db.close()
