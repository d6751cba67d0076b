"""Blocks as the chain stores them: a CometBFT-style header, the txs, their results.

The header hash is CometBFT's (a Merkle root of the encoded fields) and is also the EVM
block hash. Records are stored as JSON (orjson) with bytes as hex.
"""

import functools
import hashlib
import json

import attrs
import orjson
from google.protobuf import timestamp_pb2, wrappers_pb2

from chaind.chain import merkle, wire
from chaind.chain.commit_info import Misbehavior, VoteInfo
from chaind.pb.tendermint.abci import types_pb2 as abci_pb2
from chaind.pb.tendermint.types import evidence_pb2, types_pb2
from chaind.pb.tendermint.version import types_pb2 as version_pb2

# The CometBFT protocol versions (and release) this chain's blocks and node info speak.
BLOCK_PROTOCOL = 11
P2P_PROTOCOL = 8
COMETBFT_VERSION = "0.38.12"       # the CometBFT release whose RPC this is (clients pick decoders by it)
EMPTY_HASH = hashlib.sha256(b"").digest()


@attrs.frozen
class Event:
    """An ABCI event: a type and (key, value, index) attributes."""

    type: str
    attributes: tuple

    def to_record(self):
        """[type, [[key, value, index], ...]] once orjson writes it (it writes tuples as arrays, so the
        attributes go as they are: a block's record holds hundreds of events)."""
        return [self.type, self.attributes]

    @classmethod
    def from_record(cls, record):
        return cls(record[0], tuple(tuple(a) for a in record[1]))


def event(type_, *pairs, index=True):
    return Event(type_, tuple([(k, v, index) for k, v in pairs]))


def typed_event(type_, **fields):
    """EmitTypedEvent of a proto event of string fields: its full name as the type, each field's JSON (a quoted
    string) as a value, keys sorted as the SDK's TypedEventToEvent writes them."""
    return event(type_, *((k, json.dumps(fields[k])) for k in sorted(fields)))


@attrs.frozen
class Log:
    address: bytes
    topics: tuple
    data: bytes


@attrs.frozen
class EvmReceipt:
    """What the EVM made of a tx: the fields of an Ethereum receipt that the tx alone doesn't give."""

    status: int
    gas_used: int
    cumulative_gas_used: int
    effective_gas_price: int
    contract_address: bytes   # b"" unless a create succeeded
    logs: tuple
    log_index_start: int      # index of the first log within the block
    bloom: bytes
    vm_error: str = ""
    return_data: bytes = b""
    tx_index: int = 0         # among the block's EVM txs: what EVM clients see as transactionIndex


@attrs.frozen
class TxResult:
    """The ExecTxResult of a tx, plus its EVM receipt when it is an EVM tx that ran."""

    code: int = 0
    codespace: str = ""
    log: str = ""
    data: bytes = b""
    gas_wanted: int = 0
    gas_used: int = 0
    events: tuple = ()
    receipt: EvmReceipt = None

    def deterministic_bytes(self):
        """The fields CometBFT hashes into last_results_hash."""
        return abci_pb2.ExecTxResult(code=self.code, data=self.data, gas_wanted=self.gas_wanted,
                                     gas_used=self.gas_used).SerializeToString()

    def to_record(self):
        rec = {"code": self.code, "codespace": self.codespace, "log": self.log, "data": self.data.hex(),
               "gas_wanted": self.gas_wanted, "gas_used": self.gas_used,
               "events": [e.to_record() for e in self.events]}
        r = self.receipt
        if r is not None:
            rec["receipt"] = [r.status, r.gas_used, r.cumulative_gas_used, r.effective_gas_price,
                              r.contract_address.hex(),
                              [[log.address.hex(), [t.hex() for t in log.topics], log.data.hex()] for log in r.logs],
                              r.log_index_start, r.bloom.hex(), r.vm_error, r.return_data.hex(), r.tx_index]
        return orjson.dumps(rec)

    @classmethod
    def from_record(cls, raw):
        rec = orjson.loads(raw)
        receipt = None
        if "receipt" in rec:
            (status, gas_used, cumulative, price, contract, logs, start, bloom, vm_error,
             ret, tx_index) = rec["receipt"]
            receipt = EvmReceipt(status, gas_used, cumulative, price, bytes.fromhex(contract),
                                 tuple(Log(bytes.fromhex(a), tuple(bytes.fromhex(t) for t in ts), bytes.fromhex(d))
                                       for a, ts, d in logs),
                                 start, bytes.fromhex(bloom), vm_error, bytes.fromhex(ret), tx_index)
        return cls(rec["code"], rec["codespace"], rec["log"], bytes.fromhex(rec["data"]), rec["gas_wanted"],
                   rec["gas_used"], tuple(Event.from_record(e) for e in rec["events"]), receipt)


@attrs.frozen
class BlockId:
    hash: bytes = b""
    parts_total: int = 0
    parts_hash: bytes = b""

    def proto(self):
        return types_pb2.BlockID(hash=self.hash, part_set_header=types_pb2.PartSetHeader(
            total=self.parts_total, hash=self.parts_hash))


@attrs.frozen
class Header:
    chain_id: str
    height: int
    time_ns: int
    last_block_id: BlockId
    last_commit_hash: bytes
    data_hash: bytes
    validators_hash: bytes
    next_validators_hash: bytes
    consensus_hash: bytes
    app_hash: bytes           # state after the previous block, as in CometBFT
    last_results_hash: bytes
    evidence_hash: bytes
    proposer_address: bytes
    version_app: int = 0

    def timestamp(self):
        return timestamp_pb2.Timestamp(seconds=self.time_ns // 10**9, nanos=self.time_ns % 10**9)

    def hash(self):
        """CometBFT Header.Hash(): the Merkle root of the 14 encoded fields, in order.

        The fields are written out as protobuf encodes them (a field at its default is left out, a BlockID's
        part set header never is): building the 14 messages cost more than the hashing."""
        block_id = self.last_block_id
        parts = wire.varint_field(b"\x08", block_id.parts_total) + wire.bytes_field(b"\x12", block_id.parts_hash)
        # CometBFT's tree splits the 14 leaves 8 | 6; the 6 (the next validators ... the proposer) seldom change
        # from one block to the next, so their subtree is remembered.
        first = merkle.root([
            _version_field(self.version_app), _chain_id_field(self.chain_id), wire.varint_field(b"\x08", self.height),
            wire.timestamp(self.time_ns),
            wire.bytes_field(b"\x0a", block_id.hash) + wire.bytes_field(b"\x12", parts, always=True),
            *[wire.bytes_field(b"\x0a", v) for v in (
                self.last_commit_hash, self.data_hash, self.validators_hash)]])
        last = _last_six_root(self.next_validators_hash, self.consensus_hash, self.app_hash, self.last_results_hash,
                              self.evidence_hash, self.proposer_address)
        return hashlib.sha256(b"\x01" + first + last).digest()

    def proto_fields(self):
        """The fields tendermint.types.Header and the SDK's Header (bech32 proposer) share, as protobuf values."""
        return dict(
            version=version_pb2.Consensus(block=BLOCK_PROTOCOL, app=self.version_app),
            chain_id=self.chain_id, height=self.height, time=self.timestamp(),
            last_block_id=self.last_block_id.proto(), last_commit_hash=self.last_commit_hash,
            data_hash=self.data_hash, validators_hash=self.validators_hash,
            next_validators_hash=self.next_validators_hash, consensus_hash=self.consensus_hash,
            app_hash=self.app_hash, last_results_hash=self.last_results_hash,
            evidence_hash=self.evidence_hash)

    def proto(self):
        """The header as tendermint.types.Header."""
        return types_pb2.Header(proposer_address=self.proposer_address, **self.proto_fields())

    def to_record(self):
        # Field by field: attrs.asdict cost more than the rest of storing an empty block.
        rec = {name: _hex_or_value(getattr(self, name)) for name in _HEADER_FIELDS}
        block_id = self.last_block_id
        rec["last_block_id"] = {"hash": block_id.hash.hex(), "parts_total": block_id.parts_total,
                                "parts_hash": block_id.parts_hash.hex()}
        return rec

    @classmethod
    def from_record(cls, rec):
        rec = dict(rec)
        bid = rec.pop("last_block_id")
        out = {k: (bytes.fromhex(v) if k.endswith(("_hash", "_address")) else v) for k, v in rec.items()}
        return cls(last_block_id=BlockId(bytes.fromhex(bid["hash"]), bid["parts_total"],
                                         bytes.fromhex(bid["parts_hash"])), **out)


@attrs.frozen
class BlockMeta:
    """Per-block facts beyond the header: the EVM view and the state after execution."""

    hash: bytes
    num_txs: int
    app_hash: bytes           # state after this block (goes into the next header): the multistore's
    evm_state_root: bytes
    gas_limit: int
    gas_used: int
    base_fee: int
    bloom: bytes
    log_count: int
    size: int
    # feemarket's block gas: every tx's gas wanted times min_gas_multiplier, or the gas they used if more;
    # the next base fee follows it (0 in records written before it was kept).
    block_gas: int = 0

    def block_id(self):
        """The BlockID of this committed block, built as the chain builds it for the next header's last_block_id."""
        if not self.hash:
            return BlockId()
        return BlockId(self.hash, 1, hashlib.sha256(self.hash).digest())


@attrs.frozen
class CommittedBlock:
    header: Header
    meta: BlockMeta
    txs: tuple               # raw envelope bytes
    results: tuple           # TxResult per tx
    events: tuple = ()       # the block's own events (FinalizeBlock's `events`)
    validator_updates: tuple = ()   # (ed25519 pubkey, power), FinalizeBlock's validator_updates
    last_commit: tuple = ()  # commit_info.VoteInfo of the parent's commit, as the app saw them
    misbehavior: tuple = ()  # commit_info.Misbehavior the app was handed
    evidence: tuple = ()     # tendermint.types.DuplicateVoteEvidence the block carries (solo producer)
    consensus_params: bytes = b""   # ConsensusParams after the block (FinalizeBlock's consensus_param_updates)

    @property
    def height(self):
        return self.header.height

    @property
    def hash(self):
        return self.meta.hash

    def record(self):
        """The block record stored under its height (txs and results are stored apart)."""
        record = {"header": self.header.to_record(),
                  "meta": {name: _hex_or_value(getattr(self.meta, name)) for name in _META_FIELDS}}
        if self.events or self.validator_updates:
            record["events"] = [e.to_record() for e in self.events]
            record["validator_updates"] = [[key.hex(), power] for key, power in self.validator_updates]
        if self.last_commit or self.misbehavior or self.evidence:
            record["last_commit"] = [v.to_record() for v in self.last_commit]
            record["misbehavior"] = [m.to_record() for m in self.misbehavior]
            record["evidence"] = [e.SerializeToString().hex() for e in self.evidence]
        return orjson.dumps(record)


# The header hash's fields: the two that stay the same from block to block encoded once, the rest by hand.

@functools.lru_cache(maxsize=16)
def _version_field(app):
    return version_pb2.Consensus(block=BLOCK_PROTOCOL, app=app).SerializeToString()


@functools.lru_cache(maxsize=16)
def _chain_id_field(chain_id):
    return wrappers_pb2.StringValue(value=chain_id).SerializeToString()


@functools.lru_cache(maxsize=16)
def _last_six_root(*fields):
    """The subtree of a header hash's last six leaves (bytes fields)."""
    return merkle.root([wire.bytes_field(b"\x0a", v) for v in fields])


_HEADER_FIELDS = tuple(f.name for f in attrs.fields(Header))
_META_FIELDS = tuple(f.name for f in attrs.fields(BlockMeta))


def load_record(raw):
    rec = orjson.loads(raw)
    meta = {k: (bytes.fromhex(v) if isinstance(v, str) else v) for k, v in rec["meta"].items()}
    return Header.from_record(rec["header"]), BlockMeta(**meta)


def load_finalize(raw):
    """(events, validator updates) of a stored block record."""
    rec = orjson.loads(raw)
    return (tuple(Event.from_record(e) for e in rec.get("events", ())),
            tuple((bytes.fromhex(key), power) for key, power in rec.get("validator_updates", ())))


def load_consensus(raw):
    """(last commit VoteInfos, Misbehaviors, DuplicateVoteEvidence protos) of a stored block record."""
    rec = orjson.loads(raw)
    return (tuple(VoteInfo.from_record(v) for v in rec.get("last_commit", ())),
            tuple(Misbehavior.from_record(m) for m in rec.get("misbehavior", ())),
            tuple(evidence_pb2.DuplicateVoteEvidence.FromString(bytes.fromhex(e)) for e in rec.get("evidence", ())))


def data_hash(txs):
    """CometBFT Txs.Hash(): the Merkle root of the SHA-256 of each tx."""
    return merkle.root([hashlib.sha256(tx).digest() for tx in txs])


def results_hash(results):
    return merkle.root([r.deterministic_bytes() for r in results])


def _hex_or_value(value):
    """A header's or a meta's field as its record holds it: bytes as hex (they hold no dicts)."""
    return value.hex() if value.__class__ is bytes else value
