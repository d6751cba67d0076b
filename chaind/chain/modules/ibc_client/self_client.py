"""This chain as a counterparty sees it (07-tendermint's ConsensusHost): our consensus state at a past height, from
the header staking's historical info keeps, and the checks of a counterparty's client of us (ValidateSelfClient),
which 03-connection's handshake runs."""

from google.protobuf import timestamp_pb2

from chaind.chain.errors import TxError
from chaind.chain.modules.ibc_client import errors as e
from chaind.chain.modules.ibc_client import tendermint as tmc
from chaind.chain.modules.ibc_client.host import height_of, revision_of
from chaind.chain.modules.staking.params import params as staking_params
from chaind.consensus import light
from chaind.pb.ibc.lightclients.tendermint.v1 import tendermint_pb2 as tm
from chaind.store.commitment import SDK_SPECS

UPGRADE_PATH = ("upgrade", "upgradedIBCState")
NO_HISTORICAL_INFO = TxError("staking", 38, "no historical info found")


def consensus_state(block_at, chain_id, state, height):
    """GetSelfConsensusState of (revision, height): the timestamp, app hash (the state before that block) and next
    validators hash of our header at `height`, while staking's historical entries keep it."""
    revision = revision_of(chain_id)
    if height[0] != revision:
        raise e.client_error(e.INVALID_HEIGHT, "chainID revision number does not match height revision number: "
                             f"expected {revision}, got {height[0]}")
    number = height[1]
    kept = staking_params(state).historical_entries
    found = block_at(number) if state.height - kept < number <= state.height else None
    if found is None:
        raise e.wrap(NO_HISTORICAL_INFO, f"height {number}")
    header = found[0]
    seconds, nanos = divmod(header.time_ns, 10**9)
    return tmc.normalized_consensus_state(tm.ConsensusState(
        timestamp=timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos), root={"hash": header.app_hash},
        next_validators_hash=header.next_validators_hash))


def _struct(height):
    return f"{{{height[0]} {height[1]}}}"


def validate(chain_id, state, block_height, cs):
    """ValidateSelfClient: a counterparty's client of this chain names our chain id and revision, a height we
    have passed, the SDK's proof specs, our unbonding period and the upgrade module's path."""
    if height_of(cs.frozen_height) != tmc.ZERO:
        raise e.client_error(5)
    if cs.chain_id != chain_id:
        raise e.client_error(e.INVALID_CLIENT, f"invalid chain-id. expected: {chain_id}, got: {cs.chain_id}")
    revision = revision_of(chain_id)
    latest = height_of(cs.latest_height)
    if latest[0] != revision:
        # ibc-go's text names the client's revision as the expected one.
        raise e.client_error(e.INVALID_CLIENT, "client is not in the same revision as the chain. expected revision: "
                             f"{latest[0]}, got: {revision}")
    ours = (revision, block_height)
    if latest >= ours:
        raise e.client_error(e.INVALID_CLIENT, f"client has LatestHeight {_struct(latest)} greater than or equal to "
                             f"chain height {_struct(ours)}")
    if list(cs.proof_specs) != list(SDK_SPECS):
        raise e.client_error(e.INVALID_CLIENT, f"client has invalid proof specs. expected: the SDK's {len(SDK_SPECS)} "
                             f"(iavl, tendermint) got: {len(cs.proof_specs)} other")
    try:
        light.validate_trust_level((cs.trust_level.numerator, cs.trust_level.denominator))
    except light.LightError as error:
        raise e.client_error(e.INVALID_CLIENT, f"trust-level invalid: {error}") from None
    expected = staking_params(state).unbonding_time_ns
    unbonding, trusting = tmc.duration_ns(cs.unbonding_period), tmc.duration_ns(cs.trusting_period)
    if unbonding != expected:
        raise e.client_error(e.INVALID_CLIENT, f"invalid unbonding period. expected: "
                             f"{tmc.go_duration_text(expected)}, got: {tmc.go_duration_text(unbonding)}")
    if unbonding < trusting:
        raise e.client_error(e.INVALID_CLIENT, "unbonding period must be greater than trusting period. unbonding "
                             f"period ({unbonding}) < trusting period ({trusting})")
    if cs.upgrade_path and tuple(cs.upgrade_path) != UPGRADE_PATH:
        raise e.client_error(e.INVALID_CLIENT, "upgrade path must be the upgrade path defined by upgrade module. "
                             f"expected [{' '.join(UPGRADE_PATH)}], got [{' '.join(cs.upgrade_path)}]")
