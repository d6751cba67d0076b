"""cosmos/evm's slashing precompile at 0x...0806 (ISlashing.sol): unjail (the caller's own validator only),
getSigningInfo, getSigningInfos (a PageRequest), getParams; ValidatorUnjailed logs.

Gas as cosmos/evm charges it: RequiredGas up front (a query 1,000 + 3 per argument byte, a tx 2,000 + 30 per
byte), then the SDK's KV gas of each store read, write and delete the call makes. Writes go through the
EVM state's journaled native store (erc20's EvmNative), so a reverted frame undoes an unjail; the module's
events ride with the tx as the ERC-20 precompile's do. A failure reverts with an Error(string) reason.
"""

import attrs
from eth.exceptions import Revert, WriteProtection
from eth_abi import decode as abi_decode
from eth_abi import encode as abi_encode
from eth_abi.exceptions import DecodingError
from eth_utils import keccak, to_checksum_address

from chaind import errors as domain_errors
from chaind.chain import errors
from chaind.chain.block import event
from chaind.chain.queries import address_bytes, paginate
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.base.query.v1beta1 import pagination_pb2

ADDRESS = (0x806).to_bytes(20, "big")
UNJAILED_TOPIC = keccak(b"ValidatorUnjailed(address)")
# storetypes.KVGasConfig()
READ_FLAT, READ_PER_BYTE, WRITE_FLAT, WRITE_PER_BYTE, DELETE, ITER_NEXT = 1000, 3, 2000, 30, 1000, 30
_ERROR_SELECTOR = keccak(b"Error(string)")[:4]
_SIGNING_INFO = "(address,int64,int64,int64,bool,int64)"
_DEC = "(uint256,uint8)"


class _Failure(Exception):
    pass


class _Metered:
    """The native store with the SDK's KV gas counted on each access (gaskv)."""

    def __init__(self, store):
        self.store = store
        self.gas = 0

    def get(self, key):
        value = self.store.get(key)
        self.gas += READ_FLAT + READ_PER_BYTE * (len(key) + len(value or b""))
        return value

    def set(self, key, value):
        self.gas += WRITE_FLAT + WRITE_PER_BYTE * (len(key) + len(value))
        self.store.set(key, value)

    def delete(self, key):
        self.gas += DELETE
        self.store.delete(key)

    def iterate(self, prefix, start_after=None):
        for key, value in self.store.iterate(prefix, start_after):
            self.gas += ITER_NEXT + READ_PER_BYTE * (len(key) + len(value))
            yield key, value


@attrs.define
class _Context:
    """What the slashing and staking keepers take as a block context, inside an EVM call."""

    store: _Metered
    accounts: object
    height: int
    time_ns: int
    events: list = attrs.Factory(list)


def _context(computation):
    native = computation.state.native
    execution = computation.state.execution_context
    # A block's own time to the nanosecond where the block gives it; an eth_call has the EVM's seconds.
    time_ns = native.time_ns if native.time_ns is not None else execution.timestamp * 10**9
    return _Context(_Metered(native), computation.state, execution.block_number, time_ns)


def _signing_info_tuple(info, prefix):
    cons = address_bytes(info.address, prefix + "valcons")
    return (to_checksum_address(cons), info.start_height, info.index_offset, info.jailed_until.seconds,
            info.tombstoned, info.missed_blocks_counter)


def _unjail(app, computation, ctx, validator):
    sender = computation.msg.sender
    requested = bytes.fromhex(validator[2:])
    if sender != requested:
        raise _Failure(f"msg.sender address {to_checksum_address(sender)} does not match the requester address "
                       f"{to_checksum_address(requested)}")
    keeper = app.keepers["slashing"]
    # The call reads slashing's and staking's params first, as the keepers it built before they were long-lived
    # did: its store gas is what it was.
    keeper.params(ctx)
    keeper.staking.params(ctx)
    try:
        keeper.unjail(ctx, requested)
    except errors.TxError as e:
        raise _Failure(e.log) from None
    valoper = to_bech32(app.genesis.bech32_prefix + "valoper", requested)
    computation.state.native.events += [event("message", ("module", "slashing"), ("sender", valoper))]
    computation.add_log_entry(ADDRESS, (int.from_bytes(UNJAILED_TOPIC, "big"), int.from_bytes(requested, "big")),
                              b"")
    return abi_encode(["bool"], [True])


def _get_signing_info(app, computation, ctx, cons):
    raw = bytes.fromhex(cons[2:])
    if raw == bytes(20):
        raise _Failure("invalid consensus address")
    info = app.keepers["slashing"].signing_info(ctx, raw)
    if info is None:
        valcons = to_bech32(app.genesis.bech32_prefix + "valcons", raw)
        raise _Failure(f"SigningInfo not found for validator {valcons}")
    return abi_encode([_SIGNING_INFO], [_signing_info_tuple(info, app.genesis.bech32_prefix)])


def _get_signing_infos(app, computation, ctx, page):
    key, offset, limit, count_total, reverse = page
    request = pagination_pb2.PageRequest(key=key, offset=offset, limit=limit, count_total=count_total,
                                         reverse=reverse)
    items = [(bytes([len(cons)]) + cons, info) for cons, info in app.keepers["slashing"].signing_infos(ctx)]
    try:
        found, response = paginate(items, request)
    except domain_errors.ChainError as e:
        raise _Failure(str(e)) from None
    prefix = app.genesis.bech32_prefix
    return abi_encode([f"{_SIGNING_INFO}[]", "(bytes,uint64)"],
                      [[_signing_info_tuple(info, prefix) for info in found], (response.next_key, response.total)])


def _get_params(app, computation, ctx):
    p = app.keepers["slashing"].params(ctx)
    return abi_encode([f"(int64,{_DEC},int64,{_DEC},{_DEC})"], [(
        p.signed_blocks_window, (p.min_signed_per_window, 18), p.downtime_jail_duration_ns // 10**9,
        (p.slash_fraction_double_sign, 18), (p.slash_fraction_downtime, 18))])


@attrs.frozen
class _Method:
    name: str
    inputs: tuple
    writes: bool
    handler: object


_METHODS = {keccak(signature.encode())[:4]: _Method(signature.split("(")[0], inputs, writes, handler)
            for signature, inputs, writes, handler in (
    ("unjail(address)", ("address",), True, _unjail),
    ("getSigningInfo(address)", ("address",), False, _get_signing_info),
    ("getSigningInfos((bytes,uint64,uint64,bool,bool))", ("(bytes,uint64,uint64,bool,bool)",), False,
     _get_signing_infos),
    ("getParams()", (), False, _get_params),
)}


def required_gas(method, data):
    """cosmos/evm's RequiredGas: the KV config's flat cost and per-byte cost of the arguments."""
    size = max(len(data) - 4, 0)
    return WRITE_FLAT + WRITE_PER_BYTE * size if method.writes else READ_FLAT + READ_PER_BYTE * size


def run(computation):
    """Answer one call (py-evm's precompile signature)."""
    msg = computation.msg
    data = bytes(msg.data)
    method = _METHODS.get(data[:4]) if len(data) >= 4 else None
    if method is not None:
        computation.consume_gas(required_gas(method, data), reason=f"slashing precompile {method.name}")
        if method.writes and msg.is_static:
            raise WriteProtection(f"cannot call {method.name} in a static call")
    try:
        if method is None:
            raise _Failure(f"no method with id: 0x{data[:4].hex()}" if len(data) >= 4 else "execution reverted")
        if msg.storage_address != msg.code_address:
            raise _Failure("the slashing precompile cannot be run by DELEGATECALL or CALLCODE")
        if msg.value:
            raise _Failure(f"{method.name} is not payable")
        try:
            args = abi_decode(list(method.inputs), data[4:]) if method.inputs else ()
        except (DecodingError, ValueError) as e:
            raise _Failure(f"invalid arguments for {method.name}: {e}") from None
        native = computation.state.native
        if native is None:
            raise _Failure("the slashing precompile needs the chain's native state")
        ctx = _context(computation)
        output = method.handler(native.app, computation, ctx, *args)
        computation.consume_gas(ctx.store.gas, reason=f"slashing precompile {method.name} store access")
        computation.output = output
    except _Failure as e:
        computation.output = _ERROR_SELECTOR + abi_encode(["string"], [str(e)])
        raise Revert(str(e)) from None
    return computation
