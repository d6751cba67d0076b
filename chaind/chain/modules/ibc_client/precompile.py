"""cosmos/evm's ICS02 precompile at 0x...0807 (ICS02I.sol): getClientState, updateClient, verifyMembership and
verifyNonMembership of this chain's IBC light clients, for Solidity.

Each call goes where cosmos/evm's goes: the client id checked (ClientIdentifierValidator), then ibc-go's 02-client
keeper (its Route: the id's client type, the allowed clients, the one light client module there is, 07-tendermint;
then the client's status), then the light client's own checks, this chain's 07-tendermint. The texts are cosmos/evm's
(ibc-go v11): the precompile's, the keeper's and the proofs' (commitment's *_v2 checks, which carry cosmos/ics23's
reason); a header's checks in updateClient give this chain's 07-tendermint texts (ibc-go v8's), as a relayer gets
them. updateClient's events join the tx's.
"""

import re

from google.protobuf import any_pb2
from google.protobuf.message import DecodeError

from chaind.chain.errors import TxError
from chaind.chain.modules.ibc_client import errors as e
from chaind.chain.modules.ibc_client import host
from chaind.chain.modules.ibc_client import tendermint as tmc
from chaind.chain.modules.ibc_client.keeper import NAME, allowed
from chaind.chain.native_precompile import Failure, Method, Param, Precompile, struct

ADDRESS = (0x807).to_bytes(20, "big")
UPDATE, MISBEHAVIOUR = 0, 1          # ICS02I.UpdateResult
UNKNOWN = "Unknown"                  # exported.Unknown: the status of a client that is not there
HEIGHT = (Param("revisionNumber", "uint64"), Param("revisionHeight", "uint64"))
_MAX_INT64 = 2**63 - 1
_CLIENT_ID_FORMAT = re.compile(r"^.*[^\n-]-[0-9]{1,20}\Z")      # 02-client's IsClientIDFormat


def _checked_id(client_id):
    """cosmos/evm's check of a client id argument (host.ClientIdentifierValidator)."""
    try:
        host.check_client_id(client_id)
    except TxError:
        raise e.client_error(e.INVALID_CLIENT, f"invalid client ID: {client_id}") from None
    return client_id


def _route(call, client_id, doing):
    """02-client keeper's Route, then its status check: (the keeper, the client's state, which is Active)."""
    if not _CLIENT_ID_FORMAT.match(client_id):
        raise TxError(host.HOST, host.INVALID_ID, f"unable to parse client identifier {client_id}: invalid client "
                        f"identifier {client_id} is not in format: `{{client-type}}-{{N}}`: invalid identifier")
    client_type = client_id.rsplit("-", 1)[0]
    keeper = call.app.keepers[NAME]
    if not allowed(keeper.params(call), client_type):
        raise e.client_error(e.INVALID_CLIENT_TYPE, f"client ({client_id}) type {client_type} is not in the allowed "
                                                    "client list")
    if client_type != tmc.CLIENT_TYPE:
        raise e.client_error(e.ROUTE_NOT_FOUND, client_id)
    cs = keeper.client_state(call, client_id)
    status = UNKNOWN if cs is None else keeper.status(call, client_id, call.time_ns, cs)
    if status != tmc.ACTIVE:
        raise e.client_error(e.CLIENT_NOT_ACTIVE, f"cannot {doing} client ({client_id}) with status {status}")
    return keeper, cs


def _get_client_state(call, client_id):
    raw = call.store.get(host.key(NAME, "clients", client_id, "clientState"))
    value = b"" if raw is None else any_pb2.Any.FromString(raw).value
    if not value:
        raise Failure(f"client state not found for client ID {client_id}")
    return (value,)


def _client_message(update):
    """UnmarshalClientMessage of the Any's bytes, then its ValidateBasic."""
    try:
        found = any_pb2.Any.FromString(update)
    except DecodeError as error:
        raise Failure(f"cannot decode the client message as a protobuf Any: {error}") from None
    if found.type_url not in ("", tmc.HEADER_URL, tmc.MISBEHAVIOUR_URL):
        raise Failure(f"no concrete type registered for type URL {found.type_url} against interface "
                      "*exported.ClientMessage")
    try:
        return tmc.unpack_client_message(found)
    except DecodeError as error:
        raise Failure(f"cannot decode the client message {found.type_url}: {error}") from None


def _update_client(call, client_id, update):
    _checked_id(client_id)
    message = _client_message(update)
    keeper, _ = _route(call, client_id, "update")
    call.native.events += keeper.update_client(call, client_id, message)
    frozen = keeper.status(call, client_id, call.time_ns) == tmc.FROZEN
    return (MISBEHAVIOUR if frozen else UPDATE,)


def _timestamp_seconds(call, keeper, client_id, height):
    """GetClientTimestampAtHeight, in whole seconds."""
    nanoseconds = keeper.timestamp_at_height(call, client_id, height)
    if nanoseconds > _MAX_INT64:
        raise Failure("timestamp in nanoseconds exceeds int64 max value")
    return nanoseconds // 10**9


def _verify_membership(call, client_id, proof, proof_height, path, value):
    _checked_id(client_id)
    keeper, cs = _route(call, client_id, "call verify membership on")
    height = tuple(proof_height)
    tmc.verify_membership(cs, keeper.store(call, client_id), height, 0, 0, proof, tuple(path), value, call.time_ns,
                          host.self_height(keeper.chain_id, call.height), v2=True)
    return (_timestamp_seconds(call, keeper, client_id, height),)


def _verify_non_membership(call, client_id, proof, proof_height, path):
    _checked_id(client_id)
    keeper, cs = _route(call, client_id, "call verify non membership on")
    height = tuple(proof_height)
    tmc.verify_non_membership(cs, keeper.store(call, client_id), height, 0, 0, proof, tuple(path), call.time_ns,
                              host.self_height(keeper.chain_id, call.height), v2=True)
    return (_timestamp_seconds(call, keeper, client_id, height),)


_CLIENT_ID = ("clientId", "string")
PRECOMPILE = Precompile("ics02", ADDRESS, (
    Method("getClientState", (_CLIENT_ID,), (("", "bytes"),), _get_client_state),
    Method("updateClient", (_CLIENT_ID, ("updateMsg", "bytes")), (("", "uint8"),), _update_client,
           transaction=True),
    Method("verifyMembership", (_CLIENT_ID, ("proof", "bytes"), struct("proofHeight", HEIGHT), ("path", "bytes[]"),
                                ("value", "bytes")), (("", "uint256"),), _verify_membership, transaction=True),
    Method("verifyNonMembership", (_CLIENT_ID, ("proof", "bytes"), struct("proofHeight", HEIGHT),
                                   ("path", "bytes[]")), (("", "uint256"),), _verify_non_membership,
           transaction=True),
))
run = PRECOMPILE
