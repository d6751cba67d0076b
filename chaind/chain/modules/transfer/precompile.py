"""The ICS20 precompile at 0x...0802 (Evmos v20 precompiles/ics20, ICS20I.sol and IICS20Authorization.sol; cosmos/evm's
denom and denoms beside): MsgTransfer for the sender, or for tx.origin by a contract within its TransferAuthorization
(an authz grant of tx.origin to the contract, kept with approve, revoke, increaseAllowance and decreaseAllowance),
and the denom trace queries."""

from chaind import errors as domain_errors
from chaind.chain.errors import TxError
from chaind.chain.modules.authz.authorizations import MSG_TRANSFER, TRANSFER, Transfer, to_any
from chaind.chain.modules.authz.errors import UNKNOWN_AUTHORIZATION_TYPE
from chaind.chain.modules.authz.errors import error as authz_error
from chaind.chain.modules.authz.keeper import expiration_ns
from chaind.chain.modules.ibc_channel import errors as channel_errors
from chaind.chain.modules.transfer import denoms
from chaind.chain.modules.transfer.query import TransferQuery
from chaind.chain.native_precompile import (
    COIN,
    PAGE_REQUEST,
    Event,
    Failure,
    Method,
    Param,
    Precompile,
    indexed,
    page_out,
    page_request,
    page_response,
    struct,
)
from chaind.crypto.addresses import checksum_address
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.ibc.applications.transfer.v1 import authz_pb2, query_pb2, tx_pb2

ADDRESS = (0x802).to_bytes(20, "big")
APPROVAL_EXPIRATION_NS = 365 * 24 * 3600 * 10**9       # cmn.DefaultExpirationDuration: a year
MAX_UINT256 = 2**256 - 1
_ZERO = bytes(20)

HEIGHT = (Param("revisionNumber", "uint64"), Param("revisionHeight", "uint64"))
DENOM_TRACE = (Param("path", "string"), Param("baseDenom", "string"))
DENOM = (Param("base", "string"), struct("trace", (Param("portId", "string"), Param("channelId", "string")),
                                         array=True))
ALLOCATION = (Param("sourcePort", "string"), Param("sourceChannel", "string"), struct("spendLimit", COIN, array=True),
              Param("allowList", "string[]"), Param("allowedPacketData", "string[]"))


def _allocations(name="allocations"):
    return struct(name, ALLOCATION, array=True)


def _hex(address):
    return checksum_address(address)


def _address(text):
    return bytes.fromhex(text[2:])


def _origin(call):
    return call.computation.transaction_context.origin


def _channel_must_exist(call, port_id, channel_id):
    if call.app.keepers["ibc_channel"].channel(call, port_id, channel_id) is None:
        raise channel_errors.channel_error(channel_errors.CHANNEL_NOT_FOUND,
                                           f"port ID ({port_id}) channel ID ({channel_id})")


def _allocations_out(authorization):
    return [(a.source_port, a.source_channel, [(c.denom, int(c.amount)) for c in a.spend_limit], list(a.allow_list),
             list(a.allowed_packet_data)) for a in authorization.allocations]


def _transfer_authorization(call, grantee, granter):
    """The TransferAuthorization and Grant of `granter` to `grantee`, or (None, None) when none is in force."""
    found = call.app.keepers["authz"].grant(call, granter, grantee, MSG_TRANSFER)
    expiration = None if found is None else expiration_ns(found)
    if found is None or (expiration is not None and expiration < call.time_ns):
        return None, None
    return found, found.authorization


def _existing(call, grantee, granter, missing):
    """CheckAuthzExists and the type check: the grant and its TransferAuthorization; `missing` the failure's text."""
    found, any_ = _transfer_authorization(call, grantee, granter)
    if found is None:
        raise Failure(missing)
    if any_.type_url != TRANSFER:
        raise authz_error(UNKNOWN_AUTHORIZATION_TYPE)
    return found, authz_pb2.TransferAuthorization.FromString(any_.value)


def _save(call, grantee, granter, authorization, expiration):
    call.native.events += call.app.keepers["authz"].save_grant(call, granter, grantee, to_any(authorization),
                                                              MSG_TRANSFER, expiration)


def _missing(grantee, granter):
    return f"authorization to {_hex(grantee)} for address {_hex(granter)} does not exist or is expired"


# -- transfer ---------------------------------------------------------------------------------------

def _transfer(call, source_port, source_channel, denom, amount, sender_text, receiver, timeout_height,
              timeout_timestamp, memo):
    sender = _address(sender_text)
    msg = tx_pb2.MsgTransfer(source_port=source_port, source_channel=source_channel, sender=call.account(sender),
                             receiver=receiver, timeout_timestamp=timeout_timestamp, memo=memo)
    msg.token.denom, msg.token.amount = denom, str(amount)
    msg.timeout_height.revision_number, msg.timeout_height.revision_height = timeout_height
    handler = call.app.handlers[MSG_TRANSFER]
    handler.validate(call.app, msg)
    _channel_must_exist(call, source_port, source_channel)
    caller, origin = call.caller, _origin(call)
    if caller != sender and origin != sender:
        raise Failure(f"origin address {_hex(origin)} is not the same as sender address {_hex(sender)}")
    grant = accepted = None
    if caller != origin:
        grant, authorization = _existing(call, caller, origin, _missing(caller, origin))
        accepted = Transfer.accept(authorization, MSG_TRANSFER, msg)
        call.use_gas(accepted.gas)
    emitted, response = handler.execute(call.app, call, msg, sender)
    call.native.events += emitted
    if accepted is not None:
        keeper = call.app.keepers["authz"]
        if accepted.delete:
            call.native.events += keeper.delete_grant(call, origin, caller, MSG_TRANSFER)
        elif accepted.updated is not None:
            _save(call, caller, origin, accepted.updated, expiration_ns(grant))
    call.log("IBCTransfer", sender, receiver, source_port, source_channel, denom, amount, memo)
    return (response.sequence,)


# -- the authorization ------------------------------------------------------------------------------

def _approve(call, grantee_text, allocations):
    grantee, origin = _address(grantee_text), _origin(call)
    authorization = authz_pb2.TransferAuthorization(allocations=[
        authz_pb2.Allocation(source_port=port, source_channel=channel,
                             spend_limit=[coin_pb2.Coin(denom=d, amount=str(n)) for d, n in limit],
                             allow_list=allow, allowed_packet_data=packet_data)
        for port, channel, limit, allow, packet_data in allocations])
    Transfer.validate(authorization)
    for allocation in authorization.allocations:
        _channel_must_exist(call, allocation.source_port, allocation.source_channel)
    _save(call, grantee, origin, authorization, call.time_ns + APPROVAL_EXPIRATION_NS)
    call.log("IBCTransferAuthorization", grantee, origin, _allocations_out(authorization))
    return (True,)


def _nonzero_grantee(text):
    grantee = _address(text)
    if grantee == _ZERO:
        raise Failure(f"invalid grantee address: {_hex(grantee)}")
    return grantee


def _revoke(call, grantee_text):
    grantee, origin = _nonzero_grantee(grantee_text), _origin(call)
    _existing(call, grantee, origin, _missing(grantee, origin))
    call.native.events += call.app.keepers["authz"].delete_grant(call, origin, grantee, MSG_TRANSFER)
    call.log("IBCTransferAuthorization", grantee, origin, [])
    return (True,)


def _matching(authorization, port_id, channel_id, denom):
    """checkAllocationExists: (the allocation's index, its spend limit of `denom`)."""
    for index, allocation in enumerate(authorization.allocations):
        if (allocation.source_port, allocation.source_channel) != (port_id, channel_id):
            continue
        for coin in allocation.spend_limit:
            if coin.denom == denom:
                return index, int(coin.amount)
        break
    raise Failure(f"no matching allocation found for source port: {port_id}, source channel: {channel_id}, and "
                  f"denom: {denom}")


def _change_allowance(call, grantee_text, port_id, channel_id, denom, amount, increase):
    grantee, granter = _nonzero_grantee(grantee_text), _origin(call)
    found, authorization = _existing(call, grantee, granter, _missing(grantee, granter))
    index, limit = _matching(authorization, port_id, channel_id, denom)
    spend = {c.denom: int(c.amount) for c in authorization.allocations[index].spend_limit}
    if increase:
        if limit + amount > MAX_UINT256:
            raise Failure("integer overflow when increasing allowance")
        spend[denom] = limit + amount
    else:
        if limit < amount:
            raise Failure("negative amount when decreasing allowance")
        spend[denom] = limit - amount
    allocation = authorization.allocations[index]
    del allocation.spend_limit[:]
    allocation.spend_limit.extend(coin_pb2.Coin(denom=d, amount=str(n)) for d, n in sorted(spend.items()) if n > 0)
    _save(call, grantee, granter, authorization, expiration_ns(found))
    call.log("IBCTransferAuthorization", grantee, granter, _allocations_out(authorization))
    return (True,)


def _increase_allowance(call, grantee, port_id, channel_id, denom, amount):
    return _change_allowance(call, grantee, port_id, channel_id, denom, amount, True)


def _decrease_allowance(call, grantee, port_id, channel_id, denom, amount):
    return _change_allowance(call, grantee, port_id, channel_id, denom, amount, False)


def _allowance(call, grantee_text, granter_text):
    grantee = _nonzero_grantee(grantee_text)
    granter = _address(granter_text)
    if granter == _ZERO:
        raise Failure(f"invalid granter address: {_hex(granter)}")
    found, any_ = _transfer_authorization(call, grantee, granter)
    if found is None:
        return ([],)
    if any_.type_url != TRANSFER:
        raise Failure("invalid type for transfer authorization: expected *types.TransferAuthorization, received "
                      "*types.TransferAuthorization")
    return (_allocations_out(authz_pb2.TransferAuthorization.FromString(any_.value)),)


# -- queries ----------------------------------------------------------------------------------------

def _servicer(call):
    return TransferQuery(call.app)


def _denom_traces(call, page):
    found = call.ask(_servicer(call), "DenomTraces", query_pb2.QueryDenomTracesRequest(pagination=page_request(page)))
    return [(t.path, t.base_denom) for t in found.denom_traces], page_out(found.pagination)


def _not_found(error):
    return isinstance(error, domain_errors.ChainError) and "denomination trace not found" in error.message


def _denom_trace(call, hash_text):
    try:
        found = call.ask(_servicer(call), "DenomTrace", query_pb2.QueryDenomTraceRequest(hash=hash_text))
    except domain_errors.ChainError as error:
        if _not_found(error):
            return (("", ""),)
        raise
    return ((found.denom_trace.path, found.denom_trace.base_denom),)


def _denom_hash(call, trace):
    try:
        found = call.ask(_servicer(call), "DenomHash", query_pb2.QueryDenomHashRequest(trace=trace))
    except domain_errors.ChainError as error:
        if _not_found(error):
            return ("",)
        raise
    return (found.hash,)


def _denom_out(trace):
    """ibc-go v10's Denom of a v8 trace: its base and its hops, from the path's port/channel pairs."""
    parts = trace.path.split("/") if trace.path else []
    return (trace.base_denom, [(parts[i], parts[i + 1]) for i in range(0, len(parts), 2)])


def _denom(call, hash_text):
    try:
        digest = denoms.parse_hex_hash(hash_text.removeprefix("ibc/"))
    except TxError as error:
        raise Failure(f"invalid denom trace hash: {hash_text}, error: {error.log}") from None
    trace = call.app.keepers["transfer"].denom_trace(call, digest)
    return (("", []) if trace is None else _denom_out(trace),)


def _denoms(call, page):
    found = call.ask(_servicer(call), "DenomTraces", query_pb2.QueryDenomTracesRequest(pagination=page_request(page)))
    return [_denom_out(t) for t in found.denom_traces], page_out(found.pagination)


PRECOMPILE = Precompile("ics20", ADDRESS, (
    Method("transfer", (("sourcePort", "string"), ("sourceChannel", "string"), ("denom", "string"),
                        ("amount", "uint256"), ("sender", "address"), ("receiver", "string"),
                        struct("timeoutHeight", HEIGHT), ("timeoutTimestamp", "uint64"), ("memo", "string")),
           (("nextSequence", "uint64"),), _transfer, transaction=True),
    Method("denomTraces", (PAGE_REQUEST,), (struct("denomTraces", DENOM_TRACE, array=True), page_response()),
           _denom_traces),
    Method("denomTrace", (("hash", "string"),), (struct("denomTrace", DENOM_TRACE),), _denom_trace),
    Method("denomHash", (("trace", "string"),), (("hash", "string"),), _denom_hash),
    Method("denoms", (PAGE_REQUEST,), (struct("denoms", DENOM, array=True), page_response()), _denoms),
    Method("denom", (("hash", "string"),), (struct("denom", DENOM),), _denom),
    Method("approve", (("grantee", "address"), _allocations()), (("approved", "bool"),), _approve,
           transaction=True),
    Method("revoke", (("grantee", "address"),), (("revoked", "bool"),), _revoke, transaction=True),
    Method("increaseAllowance", (("grantee", "address"), ("sourcePort", "string"), ("sourceChannel", "string"),
                                 ("denom", "string"), ("amount", "uint256")), (("approved", "bool"),),
           _increase_allowance, transaction=True),
    Method("decreaseAllowance", (("grantee", "address"), ("sourcePort", "string"), ("sourceChannel", "string"),
                                 ("denom", "string"), ("amount", "uint256")), (("approved", "bool"),),
           _decrease_allowance, transaction=True),
    Method("allowance", (("grantee", "address"), ("granter", "address")), (_allocations(),), _allowance),
), events=(
    Event("IBCTransfer", (indexed("sender", "address"), indexed("receiver", "string"), ("sourcePort", "string"),
                          ("sourceChannel", "string"), ("denom", "string"), ("amount", "uint256"),
                          ("memo", "string"))),
    Event("IBCTransferAuthorization", (indexed("grantee", "address"), indexed("granter", "address"),
                                       _allocations())),
))
