"""State-sync snapshots: a committed height's whole state as the Cosmos SDK's snapshot format 3, and back.

The stream is the SDK's (store/snapshots: length-delimited SnapshotItems, zlib level 7, cut into 10 MB chunks, a
SHA-256 per chunk in the metadata): each IAVL store as a SnapshotStoreItem then its export nodes, then our
extension `chaind` (format 1) whose payloads are what the IAVL stores cannot give back: the native keys' values
at the height (the app reads them, the trees only commit to them), the EVM trie, code and preimages (the app
hash's `evm` root), and the block records the next blocks read (the last 256 for BLOCKHASH, the head's results,
the validator sets and consensus params in force). A restore rebuilds the trees as the chunks come, writing
them a batch at a time, and makes the height the head only once the commit info's hash equals the head's record
and the trusted app hash; a refused, abandoned or killed restore is wiped.
"""

import hashlib
import struct
import zlib

import attrs
from google.protobuf.message import DecodeError

from chaind.chain import block as blocks
from chaind.chain import valset
from chaind.chain.app import STATE_FORMAT
from chaind.chain.modules.consensus import params as consensus
from chaind.pb.cosmos.store.snapshots.v1 import snapshot_pb2 as spb
from chaind.store import keys
from chaind.store.iavl.export import ExportNode, Importer, TreeImportError, export_tuples
from chaind.store.iavl.node import EMPTY_ROOT, uvarint
from chaind.store.multistore import EVM, CommitInfo, commit_info_of
from chaind.store.pruning import PruneError, live_nodes
from chaind.store.read_ahead import ReadAhead

FORMAT = 3                      # the SDK's snapshot format (rootmulti's SnapshotItem stream)
CHUNK_BYTES = 10_000_000        # the SDK's snapshotChunkSize: uniform across nodes, as the format
COMPRESSION = 7                 # the SDK's snapshotCompressionLevel
EXTENSION = "chaind"
EXTENSION_FORMAT = 1
BLOCKHASH_WINDOW = 256          # blocks before the next one the EVM's BLOCKHASH reads
MAX_ITEM_BYTES = 64 << 20       # the SDK's snapshotMaxItemSize: one delimited item at most
READ_AHEAD_BYTES = 256 << 20    # a store's records read in one scan ([state-sync] snapshot-read-ahead-bytes)

_LIVE = 0x01
# The keys a payload may carry (a restore refuses any other): the rest the restore writes itself.
_PAYLOAD_PREFIXES = (keys.VERSIONED, keys.EVM_NODE, keys.EVM_PREIMAGE, keys.BLOCK, keys.BLOCK_BY_HASH, keys.RESULT,
                     keys.VALIDATOR_SET, keys.CONSENSUS_PARAMS, keys.EVIDENCE)


class SnapshotError(ValueError):
    """A snapshot that cannot be taken or restored; nothing of the node's state was changed."""


class ChunkHashMismatch(SnapshotError):
    """A chunk whose SHA-256 is not the metadata's: fetch it again (from another peer)."""


class UnknownFormat(SnapshotError):
    """A snapshot format this node does not read."""


class InvalidMetadata(SnapshotError):
    """A snapshot whose metadata does not describe its chunks."""


@attrs.frozen
class Snapshot:
    """The SDK's Snapshot: height, format, chunk count, hash (SHA-256 of the whole stream) and chunk hashes."""

    height: int
    format: int
    chunks: int
    hash: bytes
    chunk_hashes: tuple

    def metadata(self):
        return spb.Metadata(chunk_hashes=list(self.chunk_hashes)).SerializeToString()

    def to_proto(self):
        return spb.Snapshot(height=self.height, format=self.format, chunks=self.chunks, hash=self.hash,
                            metadata=spb.Metadata(chunk_hashes=list(self.chunk_hashes)))

    @classmethod
    def of_proto(cls, found):
        return cls(found.height, found.format, found.chunks, found.hash, tuple(found.metadata.chunk_hashes))

    @classmethod
    def of_abci(cls, height, format, chunks, hash, metadata):
        """The Snapshot an ABCI offer describes; InvalidMetadata when its metadata does not decode."""
        try:
            meta = spb.Metadata.FromString(metadata)
        except DecodeError as e:
            raise InvalidMetadata(f"invalid snapshot metadata: {e}") from None
        return cls(height, format, chunks, hash, tuple(meta.chunk_hashes))


# -- taking ---------------------------------------------------------------------------------------------------


def items(app, db, height, read_ahead=READ_AHEAD_BYTES):
    """The SnapshotItems of the state at `height`, read through `db` (a frozen view, so later blocks do not show)."""
    for body in item_bytes(app, db, height, read_ahead):
        yield spb.SnapshotItem.FromString(body)


def item_bytes(app, db, height, read_ahead=READ_AHEAD_BYTES):
    """items' SnapshotItems serialized, as protobuf serializes them (made here without a message each: a snapshot
    has one an IAVL node). `read_ahead`: bytes of a store's records read in one scan before its walk ([state-sync]
    snapshot-read-ahead-bytes)."""
    raw = db.get(keys.COMMIT_INFO + keys.height_bytes(height))
    block = db.get(keys.block_key(height))
    if raw is None or block is None:
        raise SnapshotError(f"no committed state at height {height} to snapshot")
    info = commit_info_of(height, raw)
    for name, root in info.roots:
        if name == EVM:
            continue
        yield spb.SnapshotItem(store=spb.SnapshotStoreItem(name=name)).SerializeToString()
        prefix = app.stores.nodes(name).prefix
        reader = ReadAhead(db, prefix, read_ahead) if root != EMPTY_ROOT else db
        yield from map(_iavl_item, export_tuples(reader, prefix, root))
        del reader
    yield spb.SnapshotItem(extension=spb.SnapshotExtensionMeta(name=EXTENSION, format=EXTENSION_FORMAT)
                           ).SerializeToString()
    for key, value in _payloads(app, db, height, read_ahead):
        yield _payload_item(key, value)


def _iavl_item(node):
    """SnapshotItem{iavl: SnapshotIAVLItem{key, value, version, height}} serialized: fields in order, those at
    their default left out (proto3), as protobuf writes them."""
    key, value, version, height = node
    body = [_TAG_KEY, _uvarint(len(key)), key] if key else []
    if value:
        body += (_TAG_VALUE, _uvarint(len(value)), value)
    if version:
        body += (_TAG_VERSION, _uvarint(version))
    if height:
        body += (_TAG_HEIGHT, _uvarint(height))
    inner = b"".join(body)
    return b"".join((_TAG_IAVL, _uvarint(len(inner)), inner))


def _payload_item(key, value):
    """SnapshotItem{extension_payload: SnapshotExtensionPayload{payload: _pair(key, value)}} serialized."""
    length = len(key)
    payload_length = len(_uvarint(length)) + length + len(value)
    inner_length = 1 + len(_uvarint(payload_length)) + payload_length
    return b"".join((_TAG_PAYLOAD, _uvarint(inner_length), _TAG_PAYLOAD_BYTES, _uvarint(payload_length),
                     _uvarint(length), key, value))


# Protobuf tags (field number << 3 | wire type) of SnapshotItem's iavl (2) and extension_payload (4), of
# SnapshotIAVLItem's key (1), value (2), version (3) and height (4), and of SnapshotExtensionPayload's payload (1).
_TAG_IAVL, _TAG_PAYLOAD = b"\x12", b"\x22"
_TAG_KEY, _TAG_VALUE, _TAG_VERSION, _TAG_HEIGHT = b"\x0a", b"\x12", b"\x18", b"\x20"
_TAG_PAYLOAD_BYTES = b"\x0a"
_SMALL_UVARINTS = [bytes((n,)) for n in range(128)]


def _uvarint(n):
    return _SMALL_UVARINTS[n] if n < 128 else uvarint(n)


def _payloads(app, db, height, read_ahead):
    yield from _native_floor(db, height)
    _, meta = blocks.load_record(db.get(keys.block_key(height)))
    nodes = ReadAhead(db, keys.EVM_NODE, read_ahead)
    for ref in live_nodes(nodes, [meta.evm_state_root]):
        yield keys.EVM_NODE + ref, nodes.get(keys.EVM_NODE + ref)
    del nodes
    # Preimages are content-addressed: one of a later block is true of this one too, and harmless.
    yield from db.iterate(keys.EVM_PREIMAGE)
    first = max(app.genesis.initial_height - 1, height - BLOCKHASH_WINDOW)
    for h in range(first, height + 1):
        record = db.get(keys.block_key(h))
        if record is None:
            continue
        yield keys.block_key(h), record
        _, found = blocks.load_record(record)
        if found.hash:
            yield keys.BLOCK_BY_HASH + found.hash, keys.height_bytes(h)
    for index in range(meta.num_txs):
        yield keys.result_key(height, index), db.get(keys.result_key(height, index))
    # The sets of the heights a next block reads (up to height + 2) and its params (height + 1), down to the
    # entry in force at `height`.
    yield from _in_force(db, keys.VALIDATOR_SET, valset.key(height + 2), height)
    yield from _in_force(db, keys.CONSENSUS_PARAMS, consensus.key(height + 1), height)
    at = keys.height_bytes(height)
    yield from ((k, v) for k, v in db.iterate(keys.EVIDENCE) if v <= at)


def _native_floor(db, height):
    """(v: key at `height`, value) of every native key live at `height`: its newest version at or below it."""
    start, current = len(keys.VERSIONED), None
    suffix = keys.inverted_height(height)
    for full, value in db.iterate(keys.VERSIONED):
        key, inverted = full[start:-8], full[-8:]
        if key == current or inverted < suffix:
            continue
        current = key
        if value[0] == _LIVE:
            yield keys.VERSIONED + key + suffix, value


def _in_force(db, prefix, start, height):
    """Entries (inverted height keys, newest first) from `start` down to the first at or below `height`."""
    floor = prefix + keys.inverted_height(height)
    for key, value in db.iterate(prefix, start=start):
        yield key, value
        if key >= floor:
            return


def _pair(key, value):
    return uvarint(len(key)) + key + value


def _unpair(payload):
    length, at = _read_uvarint(payload, 0)
    if length is None or at + length > len(payload):
        raise SnapshotError("a malformed extension payload")
    return payload[at:at + length], payload[at + length:]


def _read_uvarint(data, at):
    """(value, position after it), or (None, at) when `data` ends inside it."""
    shift = value = 0
    while at < len(data):
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7
        if shift > 63:
            raise SnapshotError("a malformed varint in the snapshot stream")
    return None, at


_COMPRESS_BYTES = 1 << 16     # bytes of delimited items given to zlib at a time


def chunks(stream, size=CHUNK_BYTES):
    """The chunks (`size` bytes each, the last shorter: format 3 takes CHUNK_BYTES; a restore reads any) of the
    zlib-compressed, delimited `stream` of items (SnapshotItems, or item_bytes' serialized ones)."""
    compressor = zlib.compressobj(COMPRESSION)
    pending = bytearray()
    parts, gathered = [], 0
    for item in stream:
        body = item if item.__class__ is bytes else item.SerializeToString()
        parts += (_uvarint(len(body)), body)
        gathered += len(body)
        if gathered < _COMPRESS_BYTES:
            continue
        pending += compressor.compress(b"".join(parts))
        parts, gathered = [], 0
        while len(pending) >= size:
            yield bytes(pending[:size])
            del pending[:size]
    pending += compressor.compress(b"".join(parts))
    pending += compressor.flush()
    while pending:
        yield bytes(pending[:size])
        del pending[:size]


# -- restoring ------------------------------------------------------------------------------------------------


_INFLATE_PIECE = 1 << 20     # bytes of the stream inflated at a time


RESTORE_BATCH_BYTES = 16 << 20   # bytes of restored state written at a time ([state-sync] restore-batch-bytes)


class Restore:
    """One restore: chunks in order (apply_chunk). `trusted_app_hash`: the app hash after the snapshot's height that
    CometBFT's light client verified (OfferSnapshot's app_hash).

    The state streams into the database, `batch_bytes` at a time, under keys nothing reads while the head is the
    genesis one; the snapshot's height becomes the head in the last batch, once the app hash is checked. A refused
    restore wipes what it wrote (the node is back at genesis); a killed one leaves its marker, and the node opened
    again wipes it. No more than `max_bytes` of the inflated stream is taken: nothing vouches for a snapshot before
    its end."""

    def __init__(self, app, snapshot, trusted_app_hash, max_bytes, batch_bytes=RESTORE_BATCH_BYTES,
                 read_ahead=READ_AHEAD_BYTES):
        if snapshot.format != FORMAT:
            raise UnknownFormat(f"unknown snapshot format {snapshot.format}: this node reads format {FORMAT}")
        if snapshot.chunks == 0:
            raise InvalidMetadata("invalid snapshot metadata: no chunks")
        if len(snapshot.chunk_hashes) != snapshot.chunks:
            raise InvalidMetadata(f"invalid snapshot metadata: snapshot has {len(snapshot.chunk_hashes)} chunk "
                                  f"hashes, but {snapshot.chunks} chunks")
        if app.height >= app.genesis.initial_height:
            raise SnapshotError(f"cannot restore a snapshot into a node with blocks (height {app.height})")
        if snapshot.height < app.genesis.initial_height:
            raise InvalidMetadata(f"invalid snapshot metadata: height {snapshot.height} is below the chain's "
                                  f"initial height {app.genesis.initial_height}")
        if app.db.get(keys.RESTORING) is not None:
            app.reset_to_genesis()      # an earlier restore's writes, abandoned for this one
        self.app = app
        self.snapshot = snapshot
        self.trusted_app_hash = trusted_app_hash
        self.max_bytes = max_bytes
        self.read_ahead = read_ahead    # bytes of the EVM nodes read in one scan for the final check
        self.inflated = 0
        self.next_chunk = 0
        self._inflater = zlib.decompressobj()
        self._buffer = bytearray()
        self._puts = _Batch(app, batch_bytes, snapshot.height)
        self._head_record = None    # the block record of the snapshot's height
        self._store = None          # the Importer of the store whose nodes come now
        self._roots = {}            # store name -> root hash, of the stores done
        self._extension = False     # after our SnapshotExtensionMeta
        self._done = False

    def apply_chunk(self, chunk):
        """Take the next chunk; True once the last one is in and the state written. ChunkHashMismatch leaves
        the restore where it was (the chunk may come again); any other error ends it, and wipes what it wrote."""
        if self._done:
            raise SnapshotError("the restore has ended: offer the snapshot again")
        expected = self.snapshot.chunk_hashes[self.next_chunk]
        found = hashlib.sha256(chunk).digest()
        if found != expected:
            raise ChunkHashMismatch(f"chunk hash verification failed: expected {expected.hex()}, got {found.hex()}")
        self.next_chunk += 1
        try:
            self._inflate(chunk)
            if self.next_chunk < self.snapshot.chunks:
                return False
            if not self._inflater.eof or self._inflater.unused_data or self._buffer:
                raise SnapshotError("the snapshot stream does not end with its last chunk")
            self._finish()
        except BaseException:
            self.abort()
            raise
        return True

    def abort(self):
        """End the restore, wiping what it wrote: the node is back at its genesis state."""
        if not self._done:
            self._done = True
            if self._puts.clear():
                self.app.reset_to_genesis()

    def _inflate(self, data):
        while True:
            try:
                piece = self._inflater.decompress(data, _INFLATE_PIECE)
            except zlib.error as e:
                raise SnapshotError(f"zlib failure: {e}") from None
            self.inflated += len(piece)
            if self.inflated > self.max_bytes:
                raise SnapshotError(f"the snapshot inflates to more than {self.max_bytes} bytes ([state-sync] "
                                    f"max-restore-bytes)")
            self._buffer += piece
            self._read_items()
            data = self._inflater.unconsumed_tail
            # A full piece may leave output inside the inflater with no input left: ask again until it is short.
            if not data and len(piece) < _INFLATE_PIECE:
                break

    def _read_items(self):
        data, at = self._buffer, 0
        while True:
            length, body_at = _read_uvarint(data, at)
            if length is None:
                break
            if length > MAX_ITEM_BYTES:
                raise SnapshotError(f"a snapshot item of {length} bytes (at most {MAX_ITEM_BYTES})")
            if body_at + length > len(data):
                break
            try:
                item = spb.SnapshotItem.FromString(bytes(data[body_at:body_at + length]))
            except DecodeError as e:
                raise SnapshotError(f"invalid protobuf message: {e}") from None
            self._take(item)
            at = body_at + length
        del data[:at]

    def _take(self, item):
        kind = item.WhichOneof("item")
        if kind == "iavl":
            if self._store is None:
                raise SnapshotError("received IAVL node item before store item")
            node = item.iavl
            try:
                self._store[1].add(ExportNode(node.key, node.value if node.height == 0 else None, node.version,
                                              node.height))
            except TreeImportError as e:
                raise SnapshotError(f"store {self._store[0]}: {e}") from None
        elif kind == "extension_payload":
            if not self._extension:
                raise SnapshotError("a payload item before its extension's")
            key, value = _unpair(item.extension_payload.payload)
            if not key.startswith(_PAYLOAD_PREFIXES):
                raise SnapshotError(f"an extension payload for key 0x{key.hex()}, which no snapshot carries")
            if key == keys.block_key(self.snapshot.height):
                self._head_record = value
            self._puts[key] = value
        elif kind == "store":
            if self._extension:
                raise SnapshotError("a store item after the extension's")
            self._end_store()
            name = item.store.name
            if name in self._roots or name == EVM or not name:
                raise SnapshotError(f"unexpected store {name!r} in the snapshot")
            self._store = (name, Importer(self.app.stores.nodes(name).prefix, self._puts, self.snapshot.height))
        elif kind == "extension":
            if (item.extension.name, item.extension.format) != (EXTENSION, EXTENSION_FORMAT):
                raise SnapshotError(f"unknown snapshot extension {item.extension.name!r} format "
                                    f"{item.extension.format}")
            self._end_store()
            self._extension = True
        else:
            raise SnapshotError(f"unknown snapshot item {kind}")

    def _end_store(self):
        if self._store is not None:
            name, importer = self._store
            try:
                self._roots[name] = importer.root()
            except TreeImportError as e:
                raise SnapshotError(f"store {name}: {e}") from None
            self._store = None

    def _finish(self):
        app, height = self.app, self.snapshot.height
        if not self._extension:
            raise SnapshotError(f"the snapshot has no {EXTENSION} extension: the native and EVM state are missing")
        if self._head_record is None:
            raise SnapshotError(f"the snapshot has no block record of its height {height}")
        header, meta = _load_record(self._head_record, height)
        if (header.chain_id, header.height) != (app.genesis.chain_id, height):
            raise SnapshotError(f"the snapshot's head block is block {header.height} of chain {header.chain_id!r}, "
                                f"not block {height} of this chain {app.genesis.chain_id!r}")
        roots = dict(self._roots)
        for name in app.stores.mounted:
            roots.setdefault(name, EMPTY_ROOT)
        roots[EVM] = meta.evm_state_root
        info = CommitInfo(height, tuple(sorted(roots.items())))
        app_hash = info.hash()
        if app_hash != meta.app_hash:
            raise SnapshotError(f"the restored stores hash to {app_hash.hex().upper()}, not the app hash "
                                f"{meta.app_hash.hex().upper()} of the snapshot's block {height}")
        if self.trusted_app_hash and app_hash != self.trusted_app_hash:
            raise SnapshotError(f"the restored app hash {app_hash.hex().upper()} at height {height} is not the "
                                f"trusted {self.trusted_app_hash.hex().upper()}")
        self._puts.flush()
        try:
            live_nodes(ReadAhead(app.db, keys.EVM_NODE, self.read_ahead), [meta.evm_state_root], verify=True)
        except PruneError as e:
            raise SnapshotError(f"the snapshot's EVM state is not whole: {e}") from None
        self._puts.commit({keys.COMMIT_INFO + keys.height_bytes(height): info.record(),
                           keys.HEAD: keys.height_bytes(height),
                           keys.PRUNED_BELOW: keys.height_bytes(height),
                           keys.STATE_FORMAT: STATE_FORMAT})
        self._done = True
        app.reload_head()


class _Batch:
    """The restore's writes, put to the database every `limit` bytes: memory holds a batch, not the state. The first
    batch marks the database as being restored; `commit` deletes the genesis state the empty node had (but what the
    restore wrote again) and the mark, with the head, in the last."""

    def __init__(self, app, limit, height):
        self.app = app
        self.limit = limit
        self.pending = {}
        self.pending_bytes = 0
        # The empty node's own keys (its genesis state: small beside a snapshot), and those the restore wrote too.
        self._before = set(app.db.keys(b"")) - {keys.GENESIS}
        self._rewritten = set()
        self._mark = {keys.RESTORING: keys.height_bytes(height)}    # written with the first batch

    def __setitem__(self, key, value):
        if key in self._before:
            self._rewritten.add(key)
        self.pending[key] = value
        self.pending_bytes += len(key) + len(value)
        if self.pending_bytes >= self.limit:
            self.flush()

    def flush(self):
        if self.pending:
            self.app.write({**self._mark, **self.pending})
            self._mark = {}
        self.clear()

    def clear(self):
        """Drop the pending writes; whether any batch was written before."""
        self.pending = {}
        self.pending_bytes = 0
        return not self._mark

    def commit(self, last):
        gone = self._before - self._rewritten - last.keys()
        self.app.write(last, [*gone, keys.RESTORING])
        self._before = self._rewritten = set()


def _load_record(record, height):
    try:
        return blocks.load_record(record)
    except (ValueError, IndexError, KeyError, TypeError, struct.error) as e:
        raise SnapshotError(f"the block record of height {height} does not decode: {e}") from None
