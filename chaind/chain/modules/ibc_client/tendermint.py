"""The 07-tendermint light client (ibc-go v8.5 modules/light-clients/07-tendermint): its client and consensus
states' checks, a Header's and a Misbehaviour's verification through CometBFT's light client (consensus/light.py),
misbehaviour detection and the state an update writes. Times and periods are nanoseconds.
"""

from google.protobuf import text_format
from google.protobuf.message import DecodeError

from chaind.chain.errors import TxError
from chaind.chain.modules.ibc_client import errors as e
from chaind.chain.modules.ibc_client.host import check_client_id, height_of, height_text, revision_of
from chaind.consensus import light
from chaind.gocompat import go_duration
from chaind.pb.ibc.core.commitment.v1 import commitment_pb2
from chaind.pb.ibc.lightclients.tendermint.v1 import tendermint_pb2 as tm
from chaind.pb.tendermint.types import types_pb2
from chaind.store import commitment

CLIENT_TYPE = "07-tendermint"
CLIENT_STATE_URL = "/ibc.lightclients.tendermint.v1.ClientState"
CONSENSUS_STATE_URL = "/ibc.lightclients.tendermint.v1.ConsensusState"
HEADER_URL = "/ibc.lightclients.tendermint.v1.Header"
MISBEHAVIOUR_URL = "/ibc.lightclients.tendermint.v1.Misbehaviour"
FROZEN_HEIGHT = (0, 1)
ZERO = (0, 0)
MAX_CHAIN_ID_LEN = 50

ACTIVE, FROZEN, EXPIRED, UNAUTHORIZED = "Active", "Frozen", "Expired", "Unauthorized"


def duration_ns(duration):
    return duration.seconds * 10**9 + duration.nanos


def go_duration_text(ns):
    """Go's time.Duration String()."""
    return go_duration(ns / 1e9) if ns else "0s"


def normalized_client_state(state):
    """The client state with its non-nullable fields present, as ibc-go's gogoproto writes them."""
    for name in ("trust_level", "trusting_period", "unbonding_period", "max_clock_drift", "frozen_height",
                 "latest_height"):
        getattr(state, name).SetInParent()
    return state


def normalized_consensus_state(state):
    state.timestamp.SetInParent()
    state.root.SetInParent()
    return state


def validate_client_state(cs):
    """ClientState.Validate."""
    if not cs.chain_id.strip():
        raise e.tendermint_error(e.INVALID_CHAIN_ID, "chain id cannot be empty string")
    if len(cs.chain_id) > MAX_CHAIN_ID_LEN:
        raise e.tendermint_error(e.INVALID_CHAIN_ID, f"chainID is too long; got: {len(cs.chain_id)}, max: "
                                                     f"{MAX_CHAIN_ID_LEN}")
    try:
        light.validate_trust_level((cs.trust_level.numerator, cs.trust_level.denominator))
    except light.LightError as error:
        raise e.plain(str(error)) from None
    trusting, unbonding = duration_ns(cs.trusting_period), duration_ns(cs.unbonding_period)
    if trusting <= 0:
        raise e.tendermint_error(e.INVALID_TRUSTING_PERIOD, "trusting period must be greater than zero")
    if unbonding <= 0:
        raise e.tendermint_error(e.INVALID_UNBONDING_PERIOD, "unbonding period must be greater than zero")
    if duration_ns(cs.max_clock_drift) <= 0:
        raise e.tendermint_error(e.INVALID_MAX_CLOCK_DRIFT, "max clock drift must be greater than zero")
    revision = revision_of(cs.chain_id)
    if cs.latest_height.revision_number != revision:
        raise e.tendermint_error(e.INVALID_HEADER_HEIGHT, "latest height revision number must match chain id revision "
                                 f"number ({cs.latest_height.revision_number} != {revision})")
    if cs.latest_height.revision_height == 0:
        raise e.tendermint_error(e.INVALID_HEADER_HEIGHT,
                                 "tendermint client's latest height revision height cannot be zero")
    if trusting >= unbonding:
        raise e.tendermint_error(e.INVALID_TRUSTING_PERIOD, f"trusting period ({go_duration_text(trusting)}) should be "
                                                            f"< unbonding period ({go_duration_text(unbonding)})")
    if not cs.proof_specs:
        # A repeated field cannot tell nil from empty: ibc-go refuses nil, and an empty list proves nothing.
        raise e.tendermint_error(e.INVALID_PROOF_SPECS, "proof specs cannot be nil for tm client")
    for index, key in enumerate(cs.upgrade_path):
        if not key.strip():
            raise e.client_error(e.INVALID_CLIENT, f"key in upgrade path at index {index} cannot be empty")


def validate_consensus_state(cons):
    """ConsensusState.ValidateBasic."""
    if not cons.root.hash:
        raise e.client_error(e.INVALID_CONSENSUS, "root cannot be empty")
    size = len(cons.next_validators_hash)
    if size and size != 32:
        raise e.plain(f"next validators hash is invalid: expected size to be 32 bytes, got {size} bytes")
    if cons.timestamp.seconds <= 0:
        raise e.client_error(e.INVALID_CONSENSUS, "timestamp must be a positive Unix time")


def header_height(header):
    """Header.GetHeight: the revision of its chain id, its block height."""
    h = header.signed_header.header
    return revision_of(h.chain_id), h.height


def _struct_height(height):
    """Go's %d of a Height struct."""
    return f"{{{height[0]} {height[1]}}}"


def _validator_set(proto, what):
    if not proto.ListFields():
        raise light.LightError("nil validator set")
    try:
        return light.ValidatorSet.from_proto(proto)
    except light.LightError as error:
        raise light.LightError(f"{what}: {error}") from None


def validate_header(header):
    """Header.ValidateBasic."""
    if not header.HasField("signed_header"):
        raise e.client_error(e.INVALID_HEADER, "tendermint signed header cannot be nil")
    if not header.signed_header.HasField("header"):
        raise e.client_error(e.INVALID_HEADER, "tendermint header cannot be nil")
    try:
        light.validate_signed_header(header.signed_header, header.signed_header.header.chain_id)
    except light.LightError as error:
        raise e.plain(f"header failed basic validation: {error}") from None
    height = header_height(header)
    trusted = height_of(header.trusted_height)
    if trusted >= height:
        raise e.tendermint_error(e.INVALID_HEADER_HEIGHT, f"TrustedHeight {_struct_height(trusted)} must be less than "
                                                          f"header height {_struct_height(height)}")
    if not header.HasField("validator_set"):
        raise e.client_error(e.INVALID_HEADER, "validator set is nil")
    try:
        vals = light.ValidatorSet.from_proto(header.validator_set)
    except light.LightError as error:
        raise e.plain(f"validator set is not tendermint validator set: {error}") from None
    if header.signed_header.header.validators_hash != vals.hash():
        raise e.client_error(e.INVALID_HEADER, "validator set does not match hash")


def validate_misbehaviour(misbehaviour):
    """Misbehaviour.ValidateBasic."""
    h1, h2 = misbehaviour.header_1, misbehaviour.header_2
    for name, field in (("Header1", "header_1"), ("Header2", "header_2")):
        if not misbehaviour.HasField(field):
            raise e.tendermint_error(e.TM_INVALID_HEADER, f"misbehaviour {name} cannot be nil")
    for name, h in (("Header1", h1), ("Header2", h2)):
        if h.trusted_height.revision_height == 0:
            raise e.tendermint_error(e.INVALID_HEADER_HEIGHT, f"misbehaviour {name} cannot have zero revision height")
    for name, h in (("Header1", h1), ("Header2", h2)):
        if not h.HasField("trusted_validators"):
            raise e.tendermint_error(e.INVALID_VALIDATOR_SET, f"trusted validator set in {name} cannot be empty")
    if h1.signed_header.header.chain_id != h2.signed_header.header.chain_id:
        raise e.client_error(e.INVALID_MISBEHAVIOUR, "headers must have identical chainIDs")
    if misbehaviour.client_id:
        try:
            check_client_id(misbehaviour.client_id)
        except TxError as error:
            raise e.wrap(error, "misbehaviour client ID is invalid") from None
    for number, h in ((1, h1), (2, h2)):
        try:
            validate_header(h)
        except TxError as error:
            raise e.client_error(e.INVALID_MISBEHAVIOUR,
                                 f"header {number} failed validation: {error.log}") from None
    if header_height(h1) < header_height(h2):
        raise e.client_error(e.INVALID_MISBEHAVIOUR, f"Header1 height is less than Header2 height "
                             f"({height_text(header_height(h1))} < {height_text(header_height(h2))})")
    for h in (h1, h2):
        signed = h.signed_header
        try:
            vals = light.ValidatorSet.from_proto(h.validator_set)
            light.verify_commit_light(signed.header.chain_id, vals, signed.commit.block_id, signed.commit.height,
                                      signed.commit)
        except light.LightError:
            raise e.client_error(e.INVALID_MISBEHAVIOUR, "validator set did not commit to header") from None


def unpack_client_message(any_message):
    """A MsgUpdateClient's client message: a Header or a Misbehaviour, checked (ValidateBasic)."""
    if not any_message.type_url:
        raise e.ibc_error(e.UNPACK_ANY, "protobuf Any message cannot be nil")
    if any_message.type_url == HEADER_URL:
        message = tm.Header.FromString(any_message.value)
        validate_header(message)
    elif any_message.type_url == MISBEHAVIOUR_URL:
        message = tm.Misbehaviour.FromString(any_message.value)
        validate_misbehaviour(message)
    else:
        raise e.ibc_error(e.UNPACK_ANY, f"cannot unpack Any into ClientMessage {any_message.type_url}")
    return message


# State: the client store of one client (keeper.py's ClientStore).

def is_expired(cs, timestamp_ns, now_ns):
    return not timestamp_ns + duration_ns(cs.trusting_period) > now_ns


def status(cs, store, now_ns):
    """ClientState.Status."""
    if height_of(cs.frozen_height) != ZERO:
        return FROZEN
    cons = store.consensus_state(height_of(cs.latest_height))
    if cons is None or is_expired(cs, light.time_ns(cons.timestamp), now_ns):
        return EXPIRED
    return ACTIVE


def _check_trusted_header(header, cons):
    try:
        trusted_vals = _validator_set(header.trusted_validators, "")
    except light.LightError as error:
        raise e.plain(f"trusted validator set in not tendermint validator set type: "
                      f"{str(error).removeprefix(': ')}") from None
    got = trusted_vals.hash()
    if cons.next_validators_hash != got:
        shown = text_format.MessageToString(header.trusted_validators, as_one_line=True)
        raise e.tendermint_error(e.INVALID_VALIDATOR_SET, f"trusted validators {shown}, does not hash to latest "
                                 f"trusted validators. Expected: {cons.next_validators_hash.hex().upper()}, got: "
                                 f"{got.hex().upper()}")
    return trusted_vals


def verify_header(cs, store, header, now_ns):
    """verifyHeader: the header verifies from the consensus state at its trusted height."""
    trusted_height = height_of(header.trusted_height)
    cons = store.consensus_state(trusted_height)
    if cons is None:
        raise e.client_error(e.CONSENSUS_NOT_FOUND, "could not get trusted consensus state from clientStore for "
                             f"Header at TrustedHeight: {height_text(trusted_height)}")
    trusted_vals = _check_trusted_header(header, cons)
    height = header_height(header)
    if height[0] != trusted_height[0]:
        raise e.tendermint_error(e.INVALID_HEADER_HEIGHT, f"header height revision {height[0]} does not match trusted "
                                 f"header revision {trusted_height[0]}")
    try:
        vals = light.ValidatorSet.from_proto(header.validator_set)
    except light.LightError as error:
        raise e.plain(f"validator set in not tendermint validator set type: {error}") from None
    if height <= trusted_height:
        raise e.client_error(e.INVALID_HEADER, f"header height ≤ consensus state height ({height_text(height)} ≤ "
                             f"{height_text(trusted_height)})")
    trusted = types_pb2.SignedHeader(header=types_pb2.Header(
        chain_id=cs.chain_id, height=trusted_height[1], time=cons.timestamp,
        next_validators_hash=cons.next_validators_hash))
    try:
        light.verify(trusted, trusted_vals, header.signed_header, vals, duration_ns(cs.trusting_period), now_ns,
                     duration_ns(cs.max_clock_drift), (cs.trust_level.numerator, cs.trust_level.denominator))
    except light.LightError as error:
        raise e.plain(f"failed to verify header: {error}") from None


def verify_misbehaviour(cs, store, misbehaviour, now_ns):
    """verifyMisbehaviour: each header is signed by enough of the validators its trusted consensus state names."""
    for name, header in (("Header1", misbehaviour.header_1), ("Header2", misbehaviour.header_2)):
        trusted_height = height_of(header.trusted_height)
        cons = store.consensus_state(trusted_height)
        if cons is None:
            raise e.client_error(e.CONSENSUS_NOT_FOUND, "could not get trusted consensus state from clientStore for "
                                 f"{name} at TrustedHeight: {height_text(trusted_height)}")
        try:
            _check_misbehaviour_header(cs, cons, header, now_ns)
        except TxError as error:
            raise e.wrap(error, f"verifying {name} in Misbehaviour failed") from None


def _check_misbehaviour_header(cs, cons, header, now_ns):
    trusted_vals = _check_trusted_header(header, cons)
    elapsed, trusting = now_ns - light.time_ns(cons.timestamp), duration_ns(cs.trusting_period)
    if elapsed >= trusting:
        raise e.tendermint_error(e.TRUSTING_PERIOD_EXPIRED, "current timestamp minus the latest consensus state "
                                 "timestamp is greater than or equal to the trusting period "
                                 f"({elapsed} >= {trusting})")
    chain_id = cs.chain_id
    if revision_of(chain_id):
        chain_id = f"{chain_id.rsplit('-', 1)[0]}-{header_height(header)[0]}"
    try:
        light.verify_commit_light_trusting(chain_id, trusted_vals, header.signed_header.commit,
                                           (cs.trust_level.numerator, cs.trust_level.denominator))
    except light.LightError as error:
        raise e.client_error(e.INVALID_MISBEHAVIOUR, "validator set in header has too much change from trusted "
                             f"validator set: {error}") from None


def header_consensus_state(header):
    """Header.ConsensusState: what an update with it stores."""
    h = header.signed_header.header
    return normalized_consensus_state(tm.ConsensusState(
        timestamp=h.time, root={"hash": h.app_hash}, next_validators_hash=h.next_validators_hash))


def misbehaving(store, message):
    """CheckForMisbehaviour: a header conflicting with a stored consensus state (another at its height, or time
    not increasing with height), or a Misbehaviour of two conflicting headers."""
    if isinstance(message, tm.Header):
        cons = header_consensus_state(message)
        height = header_height(message)
        existing = store.consensus_state(height)
        if existing is not None:
            return existing != cons
        time = light.time_ns(cons.timestamp)
        before, after = store.neighbours(height)
        if before is not None and not light.time_ns(before.timestamp) < time:
            return True
        return after is not None and not light.time_ns(after.timestamp) > time
    h1, h2 = message.header_1, message.header_2
    if header_height(h1) == header_height(h2):
        return h1.signed_header.commit.block_id.hash != h2.signed_header.commit.block_id.hash
    return not light.time_ns(h1.signed_header.header.time) > light.time_ns(h2.signed_header.header.time)


def matching(subject, substitute):
    """IsMatchingClientState: equal but for the latest and frozen heights, trusting period and chain id."""
    a, b = tm.ClientState(), tm.ClientState()
    for found, copy in ((subject, a), (substitute, b)):
        copy.CopyFrom(found)
        for name in ("latest_height", "frozen_height", "trusting_period", "chain_id", "allow_update_after_expiry",
                     "allow_update_after_misbehaviour"):
            copy.ClearField(name)
    return normalized_client_state(a) == normalized_client_state(b)


# Proofs of the counterparty's state (what 03-connection and 04-channel verify through the client).

def verify_membership(cs, store, height, delay_ns, delay_blocks, proof, path, value, now_ns, self_height,
                      v2=False):
    """ClientState.VerifyMembership: `proof` (MerkleProof bytes) shows `value` at `path` (keys from the root down,
    the counterparty's prefix first) under the root of the consensus state at `height`, after the delay. `v2`: the
    proof's failures in ibc-go v10's texts (commitment.verify_membership_v2), as cosmos/evm's ICS02 precompile
    gives them."""
    root = _proof_root(cs, store, height, delay_ns, delay_blocks, now_ns, self_height)
    verify = commitment.verify_membership_v2 if v2 else commitment.verify_membership
    try:
        verify(cs.proof_specs, root, _merkle_proof(proof).proofs, path, value)
    except commitment.CommitmentError as error:
        raise TxError(commitment.CODESPACE, error.code, str(error)) from None


def verify_non_membership(cs, store, height, delay_ns, delay_blocks, proof, path, now_ns, self_height, v2=False):
    """ClientState.VerifyNonMembership: `proof` shows that nothing is stored at `path`."""
    root = _proof_root(cs, store, height, delay_ns, delay_blocks, now_ns, self_height)
    verify = commitment.verify_non_membership_v2 if v2 else commitment.verify_non_membership
    try:
        verify(cs.proof_specs, root, _merkle_proof(proof).proofs, path)
    except commitment.CommitmentError as error:
        raise TxError(commitment.CODESPACE, error.code, str(error)) from None


def _merkle_proof(proof):
    try:
        return commitment_pb2.MerkleProof.FromString(proof)
    except DecodeError:
        raise TxError(commitment.CODESPACE, commitment.INVALID_PROOF, "failed to unmarshal proof into ICS 23 "
                      "commitment merkle proof: invalid proof") from None


def _proof_root(cs, store, height, delay_ns, delay_blocks, now_ns, self_height):
    latest = height_of(cs.latest_height)
    if latest < height:
        raise e.ibc_error(e.IBC_INVALID_HEIGHT, f"client state height < proof height ({_struct_height(latest)} < "
                          f"{_struct_height(height)}), please ensure the client has been updated")
    if delay_ns:
        processed = store.processed_time(height)
        if processed is None:
            raise e.tendermint_error(e.PROCESSED_TIME_NOT_FOUND,
                                     f"processed time not found for height: {height_text(height)}")
        if now_ns < processed + delay_ns:
            raise e.tendermint_error(e.DELAY_PERIOD_NOT_PASSED, f"cannot verify packet until time: "
                                     f"{processed + delay_ns}, current time: {now_ns}")
    if delay_blocks:
        processed = store.processed_height(height)
        if processed is None:
            raise e.tendermint_error(e.PROCESSED_HEIGHT_NOT_FOUND,
                                     f"processed height not found for height: {height_text(height)}")
        valid = (processed[0], processed[1] + delay_blocks)
        if self_height < valid:
            raise e.tendermint_error(e.DELAY_PERIOD_NOT_PASSED, f"cannot verify packet until height: "
                                     f"{height_text(valid)}, current height: {height_text(self_height)}")
    cons = store.consensus_state(height)
    if cons is None:
        raise e.client_error(e.CONSENSUS_NOT_FOUND, "please ensure the proof was constructed against a height that "
                             "exists on the client")
    return cons.root.hash
