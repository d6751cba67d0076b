"""tx_search and block_search: a parsed event query answered from the event index, as positions.

Faces (CometBFT tx_search/block_search, gRPC GetTxsEvent) page the positions and render them. Conditions
are ANDed per tx or block (across its different events), which is what users expect; CometBFT v0.38's kv
indexer instead needs them all inside one event (cometbft/cometbft#4003).
"""

import math
import re
from collections.abc import Sequence

from chaind import errors
from chaind.events import query as q
from chaind.store import eventindex, keys

# Once this few txs are left, the remaining conditions are checked on them rather than looked up.
CHECK_BELOW = 256
_HEX = re.compile(r"^[0-9a-fA-F]*$")


def order_of(order_by, default):
    if order_by in ("", None):
        return default
    if order_by not in ("asc", "desc"):
        raise errors.invalid_argument("expected order_by to be either `asc` or `desc` or empty")
    return order_by


def page_bounds(total, page, per_page, default_per_page, max_per_page):
    """(start, stop) of the page, validated as CometBFT's validatePage/validatePerPage do."""
    if per_page is None or per_page < 1:
        per_page = default_per_page
    per_page = min(per_page, max_per_page)
    pages = max(1, math.ceil(total / per_page))
    page = 1 if page is None else page
    if page <= 0 or page > pages:
        raise errors.invalid_argument(f"page should be within [1, {pages}] range, given {page}")
    start = (page - 1) * per_page
    return start, min(start + per_page, total)


def _index_match(cond, value):
    """What the indexer counts as a match: `=` on the literal text, ranges on whole numbers."""
    if cond.op == q.EQ:
        return value == cond.text
    return cond.matches_value(value, strict=True)


def _height_bounds(cond):
    """[low, high] heights a numeric tx.height/block.height condition allows (None: unbounded)."""
    v = cond.value
    if cond.op == q.EQ:
        return (int(v), int(v)) if v == int(v) else (1, 0)
    return {q.LT: (None, math.ceil(v) - 1), q.LEQ: (None, math.floor(v)),
            q.GT: (math.floor(v) + 1, None), q.GEQ: (math.ceil(v), None)}[cond.op]


def _decode_hash(cond):
    if cond.op != q.EQ:
        raise errors.invalid_argument("tx.hash supports only the = operator")
    text = cond.text
    if not _HEX.match(text):
        bad = next(c for c in text if c not in "0123456789abcdefABCDEF")
        raise errors.invalid_argument(f"error during searching for a hash in the query: encoding/hex: invalid byte: "
                          f"U+{ord(bad):04X} {bad!r}")
    if len(text) % 2:
        raise errors.invalid_argument(
            "error during searching for a hash in the query: encoding/hex: odd length hex string")
    return bytes.fromhex(text)


class Positions(Sequence):
    """Sorted (height, index) positions of matching txs, decoded only as they are read: a broad query can
    match hundreds of thousands of txs, of which a face renders one page."""

    def __init__(self, raw):
        self._raw = raw

    def __len__(self):
        return len(self._raw)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [keys.position_of(p) for p in self._raw[i]]
        return keys.position_of(self._raw[i])

    def reverse(self):
        self._raw.reverse()


class TxSearch:
    """Finds txs for a query, reading the index (and the few candidates' results) only.

    records: the chain's committed records (chain.App): db, tx_position(hash), result_at(height, index).
    """

    def __init__(self, records):
        self.records = records
        self.db = records.db

    def positions(self, query):
        """Positions of the txs matching every condition, ascending."""
        return Positions(self._positions(query))

    def _positions(self, query):
        conditions = sorted(query.conditions, key=self._cost)
        candidates = None
        results = {}
        for cond in conditions:
            if candidates is not None and len(candidates) <= CHECK_BELOW:
                candidates = {p for p in candidates if self._check(cond, p, results)}
            else:
                found = self._lookup(cond)
                candidates = found if candidates is None else candidates & found
            if not candidates:
                return []
        return sorted(candidates)

    @staticmethod
    def _cost(cond):
        if cond.tag == "tx.hash":
            return 0
        if cond.op == q.EQ and cond.tag not in ("tx.height", "tm.event"):
            return 1
        if cond.tag == "tx.height" and cond.kind == q.NUMBER:
            return 3 if cond.op == q.EQ else 4
        return 5

    def _lookup(self, cond):
        tag = cond.tag
        if tag == "tx.hash":
            found = self.records.tx_position(_decode_hash(cond))
            return set() if found is None else {keys.position_bytes(*found)}
        if tag == "tm.event":
            return self._heights(None, None) if cond.matches_value("Tx") else set()
        if tag == "tx.height":
            if cond.kind == q.NUMBER and cond.op != q.EXISTS:
                return self._heights(*_height_bounds(cond))
            return {p for p in self._heights(None, None) if cond.matches_value(str(keys.position_of(p)[0]))}
        if cond.op == q.EQ:
            return eventindex.lookup_equal(self.db, keys.TX_EVENT, tag, cond.text)
        return eventindex.scan_tag(self.db, keys.TX_EVENT, tag, lambda v: _index_match(cond, v))

    def _heights(self, low, high):
        """Positions of every tx with low <= height <= high."""
        low = max(low or 0, 0)
        if high is not None and high < low:
            return set()
        start = keys.TX + keys.position_bytes(low, 0)
        stop = keys.TX + keys.position_bytes(high + 1, 0) if high is not None and high < 2**63 else \
            keys.TX + b"\xff" * 12
        return {k[len(keys.TX):] for k in self.db.keys_between(start, stop)}

    def _check(self, cond, position, results):
        height, index = keys.position_of(position)
        tag = cond.tag
        if tag == "tx.hash":
            return self.records.tx_position(_decode_hash(cond)) == (height, index)
        if tag == "tm.event":
            return cond.matches_value("Tx")
        if tag == "tx.height":
            return cond.matches_value(str(height))
        result = results.get(position)
        if result is None:
            result = results[position] = self.records.result_at(height, index)
        return any(_index_match(cond, value) for e in result.events for key, value, indexed in e.attributes
                   if indexed and f"{e.type}.{key}" == tag)


class BlockSearch:
    """Finds block heights for a block_search query: block.height narrows a range of heights, the
    other conditions read the block event index (bounded to that range), or, once few heights are
    left, those blocks' own events.

    records: the chain's committed records (chain.App): db, finalize_info(height).
    """

    def __init__(self, records):
        self.records = records
        self.db = records.db

    def heights(self, query, initial_height, head):
        """The matching heights, ascending (a range when block.height alone decides)."""
        low, high = initial_height, head
        others = []
        for cond in query.conditions:
            if cond.tag == "tm.event":
                if not cond.matches_value("NewBlock"):
                    return range(0)
            elif cond.tag == "block.height" and cond.kind == q.NUMBER:
                a, b = _height_bounds(cond)
                low = low if a is None else max(low, a)
                high = high if b is None else min(high, b)
            elif cond.tag == "block.height" and cond.op == q.EXISTS:
                continue
            else:
                others.append(cond)
        if low > high:
            return range(0)
        if not others:
            return range(low, high + 1)
        candidates, cache = None, {}
        # Index lookups by value first, then scans of a tag; block.height tests last, on what is left.
        for cond in sorted(others, key=lambda c: (c.tag == "block.height", c.op != q.EQ)):
            if cond.tag == "block.height":
                # block.height against a string, date or time: the heights themselves decide.
                pool = range(low, high + 1) if candidates is None else candidates
                candidates = {h for h in pool if cond.matches_value(str(h))}
            elif candidates is not None and len(candidates) <= CHECK_BELOW:
                candidates = {h for h in candidates if self._check(cond, h, cache)}
            else:
                found = self._lookup(cond, low, high)
                candidates = found if candidates is None else candidates & found
            if not candidates:
                return []
        return sorted(candidates)

    def _lookup(self, cond, low, high):
        if cond.op == q.EQ:
            found = eventindex.lookup_equal(self.db, keys.BLOCK_EVENT, cond.tag, cond.text,
                                            keys.height_bytes(low), keys.height_bytes(high + 1))
            return {keys.height_of(p) for p in found}
        found = eventindex.scan_tag(self.db, keys.BLOCK_EVENT, cond.tag, lambda v: _index_match(cond, v))
        return {h for h in map(keys.height_of, found) if low <= h <= high}

    def _check(self, cond, height, cache):
        events = cache.get(height)
        if events is None:
            info = self.records.finalize_info(height)
            events = cache[height] = info[0] if info else ()
        return any(_index_match(cond, value) for e in events for key, value, indexed in e.attributes
                   if indexed and f"{e.type}.{key}" == cond.tag)
