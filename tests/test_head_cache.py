"""The head cache of native store values ([storage] state-cache-keys): a chain with it commits the same app
hashes as one without it, whatever its size, and it never hands out a value a newer block replaced."""

from chain_driver import Chain
from chaind.store.head_cache import MISS, HeadCache


def test_values_follow_the_committed_blocks():
    cache = HeadCache(capacity=10)
    cache.advance(5, {b"a": b"1", b"b": None})
    assert cache.get(5, b"a") == b"1" and cache.get(5, b"b") is None
    assert cache.get(4, b"a") is MISS and cache.get(5, b"c") is MISS
    cache.put(5, b"c", b"3")
    cache.advance(6, {b"a": b"2"})
    assert (cache.get(6, b"a"), cache.get(6, b"c")) == (b"2", b"3")
    # A value read at height 6 while block 7 was committed is not kept as block 7's.
    cache.advance(7, {b"c": b"4"})
    cache.put(6, b"c", b"3")
    assert cache.get(7, b"c") == b"4"
    # A block that does not follow the cached one starts the cache again.
    cache.advance(9, {b"d": b"5"})
    assert cache.get(9, b"a") is MISS and cache.get(9, b"d") == b"5"
    cache.clear()
    assert cache.get(9, b"d") is MISS


def test_a_full_cache_keeps_only_what_fits_and_stays_right():
    cache = HeadCache(capacity=2)
    cache.advance(1, {b"a": b"1"})
    cache.put(1, b"b", b"2")
    cache.put(1, b"c", b"3")
    assert cache.get(1, b"c") is MISS and len(cache) == 2
    cache.advance(2, {b"a": b"x", b"c": b"y"})
    assert len(cache) <= 2 and cache.get(2, b"b") is MISS
    assert all(cache.get(2, k) in (MISS, v) for k, v in ((b"a", b"x"), (b"c", b"y")))
    off = HeadCache(capacity=0)
    off.advance(1, {b"a": b"1"})
    off.put(1, b"b", b"2")
    assert len(off) == 0


def test_app_hashes_do_not_depend_on_the_cache(tmp_path):
    chains = [Chain(tmp_path, "none", state_cache_keys=0), Chain(tmp_path, "tiny", state_cache_keys=3),
              Chain(tmp_path, "default")]
    try:
        for step in range(8):
            hashes = {chain.block(chain.workload(step)).meta.app_hash for chain in chains}
            assert len(hashes) == 1, step
        assert len(chains[2].app.state_cache) > 0
        assert len({tuple(chain.reads(chain.app.height)) for chain in chains}) == 1
        # A restart starts with an empty cache and goes on with the same hashes.
        chains[2].close()
        chains[2].open()
        hashes = {chain.block(chain.workload(8)).meta.app_hash for chain in chains}
        assert len(hashes) == 1
    finally:
        for chain in chains:
            chain.close()
