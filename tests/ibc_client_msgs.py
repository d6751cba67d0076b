"""IBC client messages for tests: a counterparty chain's 07-tendermint client and consensus states, headers and
misbehaviour as a relayer builds them, from tests/light_headers.py's signed headers."""

from google.protobuf import any_pb2, duration_pb2

from chaind.pb.ibc.core.client.v1 import client_pb2, tx_pb2
from chaind.pb.ibc.lightclients.tendermint.v1 import tendermint_pb2 as tm
from chaind.store.commitment import SDK_SPECS
from light_headers import CHAIN_ID, SECOND

CREATE = "/ibc.core.client.v1.MsgCreateClient"
UPDATE = "/ibc.core.client.v1.MsgUpdateClient"
MISBEHAVIOUR = "/ibc.core.client.v1.MsgSubmitMisbehaviour"
DAY = 24 * 3600 * SECOND


def duration(ns):
    return duration_pb2.Duration(seconds=ns // SECOND, nanos=ns % SECOND)


def height(revision_height, revision=1):
    return client_pb2.Height(revision_number=revision, revision_height=revision_height)


def client_state(latest, chain_id=CHAIN_ID, trusting=14 * DAY, unbonding=21 * DAY, drift=10 * SECOND,
                 trust=(1, 3), revision=1, specs=SDK_SPECS, upgrade_path=("upgrade", "upgradedIBCState")):
    return tm.ClientState(chain_id=chain_id, trust_level=tm.Fraction(numerator=trust[0], denominator=trust[1]),
                          trusting_period=duration(trusting), unbonding_period=duration(unbonding),
                          max_clock_drift=duration(drift), frozen_height=client_pb2.Height(),
                          latest_height=height(latest, revision), proof_specs=list(specs),
                          upgrade_path=list(upgrade_path))


def consensus_state(signed):
    """The consensus state a client trusts a signed header with."""
    h = signed.header
    return tm.ConsensusState(timestamp=h.time, root={"hash": h.app_hash}, next_validators_hash=h.next_validators_hash)


def pack(url, message):
    return any_pb2.Any(type_url=url, value=message.SerializeToString())


def create(signer, cs, cons):
    return CREATE, tx_pb2.MsgCreateClient(
        client_state=pack("/ibc.lightclients.tendermint.v1.ClientState", cs),
        consensus_state=pack("/ibc.lightclients.tendermint.v1.ConsensusState", cons), signer=signer)


def header(signed, vals, trusted_height, trusted_vals):
    return tm.Header(signed_header=signed, validator_set=vals[0], trusted_height=height(trusted_height),
                     trusted_validators=trusted_vals[0])


def update(signer, client_id, message):
    url = "/ibc.lightclients.tendermint.v1." + type(message).__name__
    return UPDATE, tx_pb2.MsgUpdateClient(client_id=client_id, client_message=pack(url, message), signer=signer)


def misbehaviour(signer, client_id, header_1, header_2):
    found = tm.Misbehaviour(header_1=header_1, header_2=header_2)
    return MISBEHAVIOUR, tx_pb2.MsgSubmitMisbehaviour(
        client_id=client_id, misbehaviour=pack("/ibc.lightclients.tendermint.v1.Misbehaviour", found), signer=signer)
