"""The head cache of native store values ([storage] state-cache-keys): a chain with it commits the same app
hashes as one without it, whatever its size, and it never hands out a value or a scan a newer block (or a
rewritten chain) replaced."""

import random

from chain_driver import Chain
from chaind.store.head_cache import MISS, HeadCache


def test_values_follow_the_committed_blocks():
    cache = HeadCache(capacity=10)
    cache.advance(5, {b"a": b"1", b"b": None})
    assert cache.get(cache.stamp(5), b"a") == b"1" and cache.get(cache.stamp(5), b"b") is None
    assert cache.get(cache.stamp(4), b"a") is MISS and cache.get(cache.stamp(5), b"c") is MISS
    cache.put(cache.stamp(5), b"c", b"3")
    cache.advance(6, {b"a": b"2"})
    assert (cache.get(cache.stamp(6), b"a"), cache.get(cache.stamp(6), b"c")) == (b"2", b"3")
    # A value read at height 6 while block 7 was committed is not kept as block 7's.
    cache.advance(7, {b"c": b"4"})
    cache.put(cache.stamp(6), b"c", b"3")
    assert cache.get(cache.stamp(7), b"c") == b"4"
    # A block that does not follow the cached one starts the cache again.
    cache.advance(9, {b"d": b"5"})
    assert cache.get(cache.stamp(9), b"a") is MISS and cache.get(cache.stamp(9), b"d") == b"5"
    cache.clear()
    assert cache.get(cache.stamp(9), b"d") is MISS


def test_a_full_cache_keeps_only_what_fits_and_stays_right():
    cache = HeadCache(capacity=2)
    cache.advance(1, {b"a": b"1"})
    cache.put(cache.stamp(1), b"b", b"2")
    cache.put(cache.stamp(1), b"c", b"3")
    assert cache.get(cache.stamp(1), b"c") is MISS and len(cache) == 2
    cache.advance(2, {b"a": b"x", b"c": b"y"})
    assert len(cache) <= 2 and cache.get(cache.stamp(2), b"b") is MISS
    assert all(cache.get(cache.stamp(2), k) in (MISS, v) for k, v in ((b"a", b"x"), (b"c", b"y")))
    off = HeadCache(capacity=0)
    off.advance(1, {b"a": b"1"})
    off.put(off.stamp(1), b"b", b"2")
    assert len(off) == 0


def test_a_scan_is_kept_until_a_block_writes_under_its_prefix():
    cache = HeadCache(capacity=10)
    cache.advance(5, {b"x": b"0"})
    cache.put_scan(cache.stamp(5), b"ab", ((b"ab1", b"1"), (b"ab2", b"2")))
    cache.put_scan(cache.stamp(5), b"c", ())
    cache.put_scan(cache.stamp(4), b"d", ((b"d1", b"1"),))          # read below the head: not kept
    assert cache.scan(cache.stamp(5), b"ab") == ((b"ab1", b"1"), (b"ab2", b"2"))
    assert cache.scan(cache.stamp(5), b"c") == ()
    assert cache.scan(cache.stamp(5), b"d") is MISS and cache.scan(cache.stamp(4), b"ab") is MISS and len(cache) == 5
    # A block writing elsewhere keeps both; one writing (or deleting) under a prefix drops that scan.
    cache.advance(6, {b"a": b"1", b"x": None})
    assert cache.scan(cache.stamp(6), b"ab") is not MISS and cache.scan(cache.stamp(6), b"c") == ()
    cache.advance(7, {b"ab3": b"3"})
    assert cache.scan(cache.stamp(7), b"ab") is MISS and cache.scan(cache.stamp(7), b"c") == ()
    cache.advance(8, {b"c": None})
    assert cache.scan(cache.stamp(8), b"c") is MISS and len(cache) == 4
    # Scans share the capacity with values; a block that does not follow drops them all.
    cache.put_scan(cache.stamp(8), b"e", tuple((b"e%d" % i, b"") for i in range(5)))
    cache.put_scan(cache.stamp(8), b"f", ((b"f1", b""),))
    assert cache.scan(cache.stamp(8), b"e") is not MISS and cache.scan(cache.stamp(8), b"f") is MISS
    assert len(cache) == 10
    cache.put(cache.stamp(8), b"g", b"1")
    assert cache.get(cache.stamp(8), b"g") is MISS
    cache.advance(10, {b"h": b"1"})
    assert cache.scan(cache.stamp(10), b"e") is MISS and len(cache) == 1
    cache.put_scan(cache.stamp(10), b"e", ())
    cache.clear()
    assert cache.scan(cache.stamp(10), b"e") is MISS and len(cache) == 0


def test_a_reader_begun_before_the_chain_was_rewritten_stores_nothing():
    cache = HeadCache(capacity=10)
    cache.advance(5, {})
    old = cache.stamp(5)
    cache.clear(3)                  # a dev revert to height 3, then two new blocks
    cache.advance(4, {})
    cache.advance(5, {})
    cache.put(old, b"a", b"stale")
    cache.put_scan(old, b"p", ((b"p1", b"stale"),))
    assert cache.get(cache.stamp(5), b"a") is MISS and cache.scan(cache.stamp(5), b"p") is MISS
    cache.put(cache.stamp(5), b"a", b"new")
    assert cache.get(cache.stamp(5), b"a") == b"new" and cache.get(old, b"a") is MISS


def test_app_hashes_do_not_depend_on_the_cache(tmp_path):
    chains = [Chain(tmp_path, "none", state_cache_keys=0), Chain(tmp_path, "tiny", state_cache_keys=3),
              Chain(tmp_path, "default")]
    try:
        for step in range(8):
            hashes = {chain.block(chain.workload(step)).meta.app_hash for chain in chains}
            assert len(hashes) == 1, step
            # Scans at the head (dev2's and dev3's balances move at every step) read through the cache twice.
            for _ in range(2):
                assert len({tuple(chain.scans()) for chain in chains}) == 1, step
        assert len(chains[2].app.state_cache) > 0
        assert len({tuple(chain.reads(chain.app.height)) for chain in chains}) == 1
        # A restart starts with an empty cache and goes on with the same hashes.
        chains[2].close()
        chains[2].open()
        cache = chains[2].app.state_cache
        assert len(cache) == 0 and cache.head == cache.stamp(chains[2].app.height)
        hashes = {chain.block(chain.workload(8)).meta.app_hash for chain in chains}
        assert len(hashes) == 1
    finally:
        for chain in chains:
            chain.close()


def test_a_commit_drops_exactly_the_scans_it_wrote_under():
    """Whether the commit looks each scan's prefix up among its sorted keys (few scans) or each key's prefixes
    up among the scans (many), it drops the scans whose prefix a written key starts with, and only those."""
    rng = random.Random(3)
    for case in range(60):
        cache = HeadCache(capacity=10_000)
        cache.advance(1, {})
        stamp = cache.stamp(1)
        prefixes = {bytes(rng.randrange(3) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 30))}
        for prefix in prefixes:
            cache.put_scan(stamp, prefix, ((prefix + b"k", b"v"),))
        changed = {bytes(rng.randrange(3) for _ in range(rng.randint(1, 4))): b"" for _ in range(rng.randint(0, 12))}
        cache.advance(2, changed)
        kept = {prefix for prefix in prefixes if cache.scan(cache.stamp(2), prefix) is not MISS}
        assert kept == {p for p in prefixes if not any(k.startswith(p) for k in changed)}, case
        assert len(cache) == len(changed) + 2 * len(kept)


def test_the_last_blocks_txs_and_results_read_from_memory_equal_the_stored_ones(tmp_path):
    """The head block's txs, results and EVM positions served from memory (receipts right after a block) are
    what the store holds; once the head is reloaded (a dev revert), the store answers again."""
    from chaind.chain.block import TxResult
    from chaind.store import keys

    chain = Chain(tmp_path, "chain")
    app, db = chain.app, chain.db
    for step in range(6):
        block = chain.block(chain.workload(step))
        height = block.height
        assert app.blocks._head_block[0] is block
        evm = 0
        for index, raw in enumerate(block.txs):
            assert app.tx_at(height, index) == db.get(keys.tx_key(height, index)) == raw
            assert app.result_at(height, index) == TxResult.from_record(db.get(keys.result_key(height, index)))
            tx = app.decode_tx(raw)
            if tx.kind == "evm":
                evm += 1
                stored = keys.position_of(db.get(keys.EVM_TX_BY_HASH + tx.evm_hash))
                assert app.tx_position(tx.evm_hash, evm=True) == stored == (height, index)
                last_evm = (tx.evm_hash, index)
        assert evm and len(app.blocks._head_block[1]) == evm
    app.reload_head()
    assert app.blocks._head_block[0] is None
    assert app.tx_position(last_evm[0], evm=True) == (height, last_evm[1])
    assert app.result_at(height, 0) == TxResult.from_record(db.get(keys.result_key(height, 0)))
    chain.close()


def test_the_head_nonces_its_block_left_are_the_tries(tmp_path):
    """head_nonce answers the accounts the head's block touched from what the block left, without a trie walk:
    the same nonce a view of the head reads; another head (a reload) reads the trie again."""
    chain = Chain(tmp_path, "chain")
    app = chain.app
    for step in range(6):
        chain.block(chain.workload(step))
        head, nonces = app._head_nonces
        assert head is app.head and nonces
        assert chain.keys[1].address in nonces      # it sends in every block
        view = app.view()
        for address, nonce in nonces.items():
            assert app.head_nonce(address) == nonce == view.accounts.get_nonce(address)
    # A dev setter changes the head's state in place (a new head object, the same height).
    from chaind.chain import devstate

    sender = chain.keys[1].address
    devstate.amend_head(app, lambda ctx: ctx.accounts.set_nonce(sender, 1000))
    assert app._head_nonces[0] is not app.head
    assert app.head_nonce(sender) == 1000 == app.view().accounts.get_nonce(sender)
    chain.close()
