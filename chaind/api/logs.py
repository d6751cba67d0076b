"""Log filter criteria as geth parses them, and the stored-log query behind eth_getLogs.

Blocks whose bloom cannot match are skipped without reading their tx results.
"""

import attrs
from eth_bloom import BloomFilter

from chaind import errors
from chaind.api import encoding as enc
from chaind.api import params as p
from chaind.chain.modules.evm.results import evm_hash_of, evm_results

MAX_TOPICS = 4


@attrs.frozen
class LogCriteria:
    """What a log must match: heights (None = latest when used), or one block hash; addresses; topics.

    `topics` holds one entry per position: None (any) or a frozenset of 32-byte topics (any of them).
    """

    from_block: object = "latest"
    to_block: object = "latest"
    block_hash: bytes = None
    addresses: frozenset = frozenset()
    topics: tuple = ()

    def matches(self, log):
        if self.addresses and log.address not in self.addresses:
            return False
        if len(self.topics) > len(log.topics):
            return False
        return all(wanted is None or topic in wanted for wanted, topic in zip(self.topics, log.topics, strict=False))

    def may_be_in(self, bloom_bytes):
        """False when the block's bloom proves no log of it matches."""
        bloom = BloomFilter(int.from_bytes(bloom_bytes, "big"))
        if self.addresses and not any(a in bloom for a in self.addresses):
            return False
        return all(wanted is None or any(t in bloom for t in wanted) for wanted in self.topics)


def parse_criteria(value, index=0):
    """A FilterCriteria object, with geth's messages for what is wrong in it."""
    if not isinstance(value, dict):
        raise errors.invalid_argument(f"invalid argument {index}: filter criteria must be an object")
    block_hash = value.get("blockHash")
    if block_hash is not None and (value.get("fromBlock") is not None or value.get("toBlock") is not None):
        raise errors.invalid_argument(f"invalid argument {index}: cannot specify both BlockHash and FromBlock/ToBlock, "
                             "choose one or the other")
    return LogCriteria(
        from_block=_block_param(value.get("fromBlock"), index),
        to_block=_block_param(value.get("toBlock"), index),
        block_hash=None if block_hash is None else p.block_hash(block_hash, index),
        addresses=_addresses(value.get("address"), index),
        topics=_topics(value.get("topics"), index))


def _block_param(value, index):
    if value is None:
        return "latest"
    if value in p.BLOCK_TAGS:
        return value
    return p.quantity(value, index, "BlockNumber")


def _addresses(value, index):
    if value is None:
        return frozenset()
    if isinstance(value, str):
        return frozenset([_address(value, index, "invalid address")])
    if isinstance(value, list):
        return frozenset(_address(a, index, f"invalid address at index {i}") for i, a in enumerate(value))
    raise errors.invalid_argument(f"invalid argument {index}: invalid addresses in query")


def _address(value, index, what):
    try:
        return p.address(value, index)
    except Exception as e:  # noqa: BLE001 (any parse failure is the caller's bad argument)
        raise errors.invalid_argument(f"invalid argument {index}: {what}: {getattr(e, 'message', e)}") from None


def _topics(value, index):
    if value is None:
        return ()
    if not isinstance(value, list):
        raise errors.invalid_argument(f"invalid argument {index}: invalid topic(s)")
    if len(value) > MAX_TOPICS:
        raise errors.invalid_argument(f"invalid argument {index}: exceed max topics")
    return tuple(_topic_position(entry, index) for entry in value)


def _topic_position(entry, index):
    if entry is None:
        return None
    entries = [entry] if isinstance(entry, str) else entry
    if not isinstance(entries, list):
        raise errors.invalid_argument(f"invalid argument {index}: invalid topic(s)")
    topics = set()
    for topic in entries:
        if topic is None:
            return None      # a null inside an OR-list matches anything
        if not isinstance(topic, str) or not p.is_hex(topic) or len(topic) != 66:
            raise errors.invalid_argument(f"invalid argument {index}: invalid topic(s)")
        topics.add(bytes.fromhex(topic[2:]))
    return frozenset(topics) or None


def resolve_range(chain, criteria, block_range_cap):
    """(from, to) heights for a criteria without a block hash, checked as geth and Evmos check them."""
    head = chain.height
    start = _height(chain, criteria.from_block)
    end = _height(chain, criteria.to_block)
    if start > end:
        raise errors.invalid_argument("invalid block range params")
    if end > head:
        raise errors.invalid_argument("block range extends beyond current head block")
    if block_range_cap and end - start > block_range_cap:
        raise errors.limit_exceeded(f"maximum [from, to] blocks distance: {block_range_cap}")
    return start, end


def _height(chain, value):
    if value == "earliest":
        return chain.genesis.initial_height - 1
    if isinstance(value, str):
        return chain.height
    return value


def query(chain, criteria, logs_cap, block_range_cap):
    """Matching logs as JSON objects, oldest first; runs off the reactor (it may read many blocks)."""
    if criteria.block_hash is not None:
        height = chain.height_of_hash(criteria.block_hash)
        if height is None:
            raise errors.not_found("unknown block")
        heights = range(height, height + 1)
    else:
        start, end = resolve_range(chain, criteria, block_range_cap)
        heights = range(start, end + 1)
    out = []
    for height in heights:
        found = chain.block_at(height)
        if found is None:
            break
        out += block_logs(chain, criteria, found[0], found[1])
        if logs_cap and len(out) > logs_cap:
            raise errors.limit_exceeded(f"query returned more than {logs_cap} results")
    return out


def block_logs(chain, criteria, header, meta):
    """Matching logs of one committed block."""
    if not meta.log_count or not criteria.may_be_in(meta.bloom):
        return []
    out = []
    for _, result in evm_results(chain, header.height, meta):
        out += tx_logs(criteria, result, header, meta)
    return out


def tx_logs(criteria, result, header, meta):
    """Matching logs of one tx result, as JSON objects."""
    receipt = result.receipt
    if receipt is None or not receipt.logs:
        return []
    evm_hash = evm_hash_of(result)
    return [enc.log(entry, evm_hash, header, meta, receipt.tx_index, receipt.log_index_start + i)
            for i, entry in enumerate(receipt.logs) if criteria.matches(entry)]

