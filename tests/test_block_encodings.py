"""The vote sign bytes, commit signatures and header hashes written by hand (chain/wire.py) against protobuf's own
encoding of the same messages, and the header hash against the light client's, from the proto header."""

import attrs
from cryptography.hazmat.primitives.asymmetric import ed25519
from google.protobuf import timestamp_pb2
from google.protobuf.internal import encoder
from hypothesis import given, settings
from hypothesis import strategies as st

from chain_driver import Chain
from chaind.chain import votes, wire
from chaind.chain.block import BlockId, Header
from chaind.consensus.light import header_hash
from chaind.pb.tendermint.types import canonical_pb2, types_pb2

HASHES = st.one_of(st.just(b""), st.binary(min_size=32, max_size=32), st.binary(max_size=300))
INT64 = st.one_of(st.sampled_from([0, 1, -1, 127, 128, 2**63 - 1, -2**63]), st.integers(-2**63, 2**63 - 1))
TIMES = st.one_of(st.sampled_from([0, 1, -1, 10**9, -10**9 - 1, 1_764_000_000_123_456_789]),
                  st.integers(-2**62, 2**62))
BLOCK_IDS = st.builds(BlockId, HASHES, st.one_of(st.just(0), st.integers(0, 2**32 - 1)), HASHES)


def _protobuf_sign_bytes(chain_id, height, round_, block_id, time_ns, vote_type):
    vote = canonical_pb2.CanonicalVote(type=vote_type, height=height, round=round_, chain_id=chain_id)
    if block_id.hash or block_id.parts_total or block_id.parts_hash:
        vote.block_id.hash = block_id.hash
        vote.block_id.part_set_header.total = block_id.parts_total
        vote.block_id.part_set_header.hash = block_id.parts_hash
    vote.timestamp.CopyFrom(timestamp_pb2.Timestamp(seconds=time_ns // 10**9, nanos=time_ns % 10**9))
    body = vote.SerializeToString()
    return encoder._VarintBytes(len(body)) + body


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=60), INT64, INT64, BLOCK_IDS, TIMES, st.sampled_from([0, 1, 2, 32]))
def test_sign_bytes_are_protobufs(chain_id, height, round_, block_id, time_ns, vote_type):
    assert votes.sign_bytes(chain_id, height, round_, block_id, time_ns, vote_type) == \
        _protobuf_sign_bytes(chain_id, height, round_, block_id, time_ns, vote_type)


@settings(max_examples=300, deadline=None)
@given(HASHES, TIMES, HASHES)
def test_commit_sig_bytes_are_protobufs(address, time_ns, signature):
    assert votes.commit_sig_bytes(address, time_ns, signature) == \
        votes.commit_sig(address, time_ns, signature).SerializeToString()


def test_absent_sig_bytes():
    assert votes.ABSENT_SIG_BYTES == types_pb2.CommitSig(
        block_id_flag=votes.BLOCK_ID_FLAG_ABSENT,
        timestamp=timestamp_pb2.Timestamp(seconds=votes.GO_ZERO_TIME_SECONDS)).SerializeToString()


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.integers(0, 300), st.integers(0, 2**64 - 1)))
def test_varints_are_protobufs(n):
    assert wire.varint(n) == encoder._VarintBytes(n)


HEADERS = st.builds(
    Header, chain_id=st.text(min_size=1, max_size=50), height=st.integers(1, 2**63 - 1),
    time_ns=st.integers(0, 2**62), last_block_id=BLOCK_IDS, last_commit_hash=HASHES, data_hash=HASHES,
    validators_hash=st.binary(min_size=32, max_size=32), next_validators_hash=HASHES, consensus_hash=HASHES,
    app_hash=HASHES, last_results_hash=HASHES, evidence_hash=HASHES, proposer_address=HASHES,
    version_app=st.integers(0, 2**32))


@settings(max_examples=300, deadline=None)
@given(HEADERS)
def test_header_hash_is_the_light_clients(header):
    """Header.hash() remembers the subtree of its last six fields: a header that differs from the last one only
    there hashes as the light client hashes its protobuf header."""
    assert header.hash() == header_hash(header.proto())


@settings(deadline=None)
@given(HEADERS, HASHES)
def test_header_hash_follows_a_changed_app_hash(header, app_hash):
    """The next block's header differs in its app hash among those six: the remembered subtree is not reused."""
    header.hash()
    changed = attrs.evolve(header, app_hash=app_hash)
    assert changed.hash() == header_hash(changed.proto())


def test_commit_hash_is_the_commits(tmp_path):
    """The last commit hash a header carries, its signature encoded by hand, is the Merkle root of the protobuf
    CommitSigs the RPC serves (App.precommit_sigs)."""
    chain = Chain(tmp_path, "chain")
    try:
        chain.block([])
        chain.block([])
        app = chain.app
        header, meta = app.head
        block_id = meta.block_id()
        time_ns = header.time_ns + 5 * 10**6
        expected = votes.commit_hash(app.precommit_sigs(header.height, block_id, time_ns))
        assert app._commit_hash(header.height, block_id, time_ns) == expected
        # The node's validator signs: the hash covers a real signature.
        assert isinstance(app.options.vote_key, ed25519.Ed25519PrivateKey)
        assert any(sig.signature for sig in app.precommit_sigs(header.height, block_id, time_ns))
        # And it is the hash the next header carries.
        block, _ = app.finalize_block([], time_ns, app.options.validator_address)
        assert block.header.last_commit_hash == expected
    finally:
        chain.close()
