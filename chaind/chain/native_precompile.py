"""What cosmos/evm's stateful precompiles share (its precompiles/common): the ABI of methods, events and the
common structs, RequiredGas plus the SDK's KV gas, acting for msg.sender only, and reverting with a reason.

A method's handler gets a NativeCall: the call's block context for the modules' own message handlers and query
servicers, over the native store journaled with the EVM frame (erc20/precompile.py's EvmNative), so a reverted
frame undoes the native writes and drops the native events with them.
"""

import attrs
from eth.exceptions import OutOfGas, Revert, VMError
from eth_abi import decode as abi_decode
from eth_abi import encode as abi_encode
from eth_abi.exceptions import DecodingError, EncodingError
from eth_utils import keccak
from twisted.logger import Logger

from chaind import errors as domain_errors
from chaind.chain import errors
from chaind.chain.view import StateView
from chaind.crypto.addresses import AddressError, checksum_address, parse, to_bech32
from chaind.pb.cosmos.base.query.v1beta1 import pagination_pb2
from chaind.pb.cosmos.base.v1beta1 import coin_pb2

# The SDK's KVGasConfig, which cosmos/evm's precompiles meter their store accesses with.
HAS_COST = 1000
DELETE_COST = 1000
READ_COST_FLAT = 1000
READ_COST_PER_BYTE = 3
WRITE_COST_FLAT = 2000
WRITE_COST_PER_BYTE = 30
ITER_NEXT_COST_FLAT = 30
LEGACY_PRECISION = 18
_ERROR_SELECTOR = keccak(b"Error(string)")[:4]

log = Logger()


def required_gas(transaction, data):
    """cosmos/evm's Precompile.RequiredGas: a flat write or read cost plus its per-byte cost of the input."""
    if transaction:
        return WRITE_COST_FLAT + WRITE_COST_PER_BYTE * len(data)
    return READ_COST_FLAT + READ_COST_PER_BYTE * len(data)


# -- the ABI --------------------------------------------------------------------------------------

@attrs.frozen
class Param:
    """One ABI parameter: `type` is an elementary type, or "tuple" / "tuple[]" with `components`."""

    name: str
    type: str
    components: tuple = ()
    indexed: bool = False

    @property
    def canonical(self):
        if not self.type.startswith("tuple"):
            return self.type
        return "(" + ",".join(c.canonical for c in self.components) + ")" + self.type[len("tuple"):]

    def rename(self, name):
        return attrs.evolve(self, name=name)

    def abi(self, event=False):
        out = {"name": self.name, "type": self.type}
        if self.components:
            out["components"] = [c.abi() for c in self.components]
        if event:
            out["indexed"] = self.indexed
        return out


def struct(name, fields, array=False):
    return Param(name, "tuple[]" if array else "tuple", tuple(fields))


def indexed(name, type_):
    return Param(name, type_, indexed=True)


def _params(spec):
    return tuple(p if isinstance(p, Param) else Param(*p) for p in spec)


COIN = (Param("denom", "string"), Param("amount", "uint256"))
DEC_COIN = (Param("denom", "string"), Param("amount", "uint256"), Param("precision", "uint8"))
DEC = (Param("value", "uint256"), Param("precision", "uint8"))
PAGE_REQUEST = struct("pageRequest", (Param("key", "bytes"), Param("offset", "uint64"), Param("limit", "uint64"),
                                      Param("countTotal", "bool"), Param("reverse", "bool")))
PAGE_RESPONSE = (Param("nextKey", "bytes"), Param("total", "uint64"))


def coins(name):
    return struct(name, COIN, array=True)


def dec_coins(name):
    return struct(name, DEC_COIN, array=True)


def page_response(name="pageResponse"):
    return struct(name, PAGE_RESPONSE)


@attrs.frozen
class Method:
    """A method: `handler(call, *args)` returns the output values; `transaction` as cosmos/evm's
    IsTransaction; `gas` a fixed RequiredGas (None: cosmos/evm's formula over the input)."""

    name: str
    inputs: tuple = attrs.field(converter=_params)
    outputs: tuple = attrs.field(converter=_params)
    handler: object
    transaction: bool = False
    gas: int | None = None

    @property
    def signature(self):
        return f"{self.name}({','.join(p.canonical for p in self.inputs)})"

    @property
    def selector(self):
        return keccak(self.signature.encode())[:4]

    def abi(self):
        return {"type": "function", "name": self.name, "inputs": [p.abi() for p in self.inputs],
                "outputs": [p.abi() for p in self.outputs],
                "stateMutability": "nonpayable" if self.transaction else "view"}


@attrs.frozen
class Event:
    name: str
    inputs: tuple = attrs.field(converter=_params)

    @property
    def topic(self):
        return keccak(f"{self.name}({','.join(p.canonical for p in self.inputs)})".encode())

    def abi(self):
        return {"type": "event", "name": self.name, "anonymous": False,
                "inputs": [p.abi(event=True) for p in self.inputs]}

    def encode(self, values):
        """(topics, data) of a log of this event: indexed values as topics (a string's topic is its keccak)."""
        topics = [self.topic]
        plain_types, plain = [], []
        for param, value in zip(self.inputs, values, strict=True):
            if not param.indexed:
                plain_types.append(param.canonical)
                plain.append(value)
            elif param.type == "string":
                topics.append(keccak(value.encode()))
            else:
                topics.append(abi_encode([param.type], [value]))
        return topics, abi_encode(plain_types, plain)


class Failure(Exception):
    """A revert with an Error(string) reason, as cosmos/evm's ReturnRevertError gives every failure."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


# -- the call ---------------------------------------------------------------------------------------

class MeteredStore:
    """The journaled native store, charging the SDK's KV gas for each access to `call`."""

    def __init__(self, store, call):
        self._store = store
        self._call = call

    def get(self, key):
        value = self._store.get(key)
        self._call.use_gas(READ_COST_FLAT + READ_COST_PER_BYTE * (len(key) + len(value or b"")))
        return value

    def set(self, key, value):
        self._call.use_gas(WRITE_COST_FLAT + WRITE_COST_PER_BYTE * (len(key) + len(value)))
        self._store.set(key, value)

    def delete(self, key):
        self._call.use_gas(DELETE_COST)
        self._store.delete(key)

    def iterate(self, prefix, start_after=None):
        for key, value in self._store.iterate(prefix, start_after):
            self._call.use_gas(ITER_NEXT_COST_FLAT + READ_COST_PER_BYTE * (len(key) + len(value)))
            yield key, value


class NativeCall:
    """One precompile call, and the block context the modules' handlers and servicers take (height, time_ns,
    store, accounts): the call's caller, its precompile, and the KV gas used so far."""

    def __init__(self, precompile, computation, metered=True):
        self.precompile = precompile
        self.computation = computation
        self.native = computation.state.native
        self.app = self.native.app
        self.accounts = computation.state
        context = computation.state.execution_context
        self.height = context.block_number
        self.time_ns = self.native.time_ns if self.native.time_ns is not None else context.timestamp * 10**9
        self.store = MeteredStore(self.native, self) if metered else self.native
        self.gas_used = 0

    @property
    def caller(self):
        return self.computation.msg.sender

    @property
    def prefix(self):
        return self.app.genesis.bech32_prefix

    def use_gas(self, amount):
        self.gas_used += amount
        if self.gas_used > self.computation.get_gas_remaining():
            raise OutOfGas(f"{self.precompile.name} precompile: out of gas")

    def view(self):
        return StateView(self.height, self.store, self.accounts)

    # addresses
    def account(self, address):
        return to_bech32(self.prefix, address)

    def valoper(self, address):
        return to_bech32(self.prefix + "valoper", address)

    def hex_of(self, text, prefix):
        """The 20-byte address of a bech32 string (any error as the revert reason)."""
        try:
            return parse(text, prefix)
        except AddressError as e:
            raise Failure(str(e)) from None

    def requester(self, address_text, what="delegator"):
        """The 20-byte address of an address argument, which must be msg.sender: no one acts for another."""
        address = bytes.fromhex(address_text[2:])
        if address == bytes(20):
            raise Failure(f"invalid {what} address: {checksum_address(address)}")
        if address != self.caller:
            raise Failure(f"msg.sender address {checksum_address(self.caller)} does not match the requester "
                          f"address {checksum_address(address)}")
        return address

    # the modules
    def execute(self, type_url, msg):
        """Run one native message through its module's handler for msg.sender; its events join the tx's."""
        handler = self.app.handlers.get(type_url)
        if handler is None:
            raise Failure(f"{type_url} is not handled on this chain")
        handler.validate(self.app, msg)
        emitted, response = handler.execute(self.app, self, msg, self.caller)
        self.native.events += emitted
        return response

    def ask(self, servicer, name, request):
        """A module's query servicer method, read over this call's state rather than a committed height."""
        return getattr(type(servicer), name).__wrapped__(servicer, request, self.view())

    def log(self, event_name, *values):
        topics, data = self.precompile.events[event_name].encode(values)
        self.computation.add_log_entry(self.precompile.address, tuple(int.from_bytes(t, "big") for t in topics), data)


class Precompile:
    """A precompile at `address` serving `methods` (py-evm's precompile signature: call it with a computation)."""

    def __init__(self, name, address, methods, events=(), metered=True):
        self.name = name
        self.address = address
        self.methods = {m.selector: m for m in methods}
        self.events = {e.name: e for e in events}
        self.metered = metered

    def abi(self):
        return [m.abi() for m in self.methods.values()] + [e.abi() for e in self.events.values()]

    def __call__(self, computation):
        msg = computation.msg
        data = bytes(msg.data)
        try:
            method = self.methods.get(data[:4]) if len(data) >= 4 else None
            if len(data) < 4:
                raise Failure("execution reverted")
            if method is None:
                raise Failure(f"no method with id: 0x{data[:4].hex()}")
            computation.consume_gas(method.gas if method.gas is not None else required_gas(method.transaction, data),
                                    reason=f"{self.name} precompile {method.name}")
            if method.transaction and msg.is_static:
                raise Failure("write protection")
            if msg.storage_address != msg.code_address:
                raise Failure(f"the {self.name} precompile cannot be run by DELEGATECALL or CALLCODE")
            if msg.value:
                raise Failure(f"{method.name} is not payable")
            if computation.state.native is None:
                raise Failure("not run in EVM")
            try:
                args = abi_decode([p.canonical for p in method.inputs], data[4:])
            except (DecodingError, ValueError, OverflowError) as e:
                raise Failure(f"invalid arguments for {method.name}: {e}") from None
            call = NativeCall(self, computation, self.metered)
            values = method.handler(call, *args)
            try:
                computation.output = abi_encode([p.canonical for p in method.outputs], values)
            except (EncodingError, ValueError, OverflowError) as e:
                raise Failure(f"cannot encode the {method.name} output: {e}") from None
            computation.consume_gas(call.gas_used, reason=f"{self.name} precompile {method.name} store gas")
        except errors.TxError as e:
            _revert(computation, e.log)
        except domain_errors.ChainError as e:
            _revert(computation, e.message)
        except Failure as e:
            _revert(computation, e.reason)
        except VMError:
            raise
        except Exception as e:  # noqa: BLE001 (a fault of ours reverts the frame, never stops the block)
            # A fault of ours must not stop the block: the frame reverts (undoing its native writes too).
            log.failure("{name} precompile failed", name=self.name)
            _revert(computation, f"{self.name} precompile: internal error: {type(e).__name__}: {e}")
        return computation


def _revert(computation, reason):
    computation.output = _ERROR_SELECTOR + abi_encode(["string"], [reason])
    raise Revert(reason)


# -- values between the ABI and the modules' protos -------------------------------------------------

def page_request(page):
    """A PageRequest tuple as the SDK's proto; a key of one zero byte is no key (cosmos/evm's reading)."""
    key, offset, limit, count_total, reverse = page
    return pagination_pb2.PageRequest(key=b"" if key == b"\0" else key, offset=offset, limit=limit,
                                      count_total=count_total, reverse=reverse)


def page_out(page):
    return (page.next_key, page.total)


def coins_out(found):
    """Proto Coins as Coin[] tuples."""
    return [(c.denom, int(c.amount or 0)) for c in found]


def dec_coins_out(found):
    """Proto DecCoins (LegacyDec atomics) as DecCoin[]: the amount truncated to an integer, precision 18, as
    cosmos/evm's NewDecCoinsResponse gives them."""
    return [(c.denom, int(c.amount or 0) // 10**LEGACY_PRECISION, LEGACY_PRECISION) for c in found]


def coins_in(found):
    """Coin[] arguments as the SDK's sorted Coins of proto Coins; cosmos/evm's NewSdkCoinsFromCoins checks."""
    out = []
    for denom, amount in found:
        if not denom:
            raise Failure("invalid coin: empty denom")
        out.append(coin_pb2.Coin(denom=denom, amount=str(amount)))
    return sorted(out, key=lambda c: c.denom)


def int64(value):
    """A uint256 argument the SDK reads as int64 (big.Int.Int64 keeps the low 64 bits, two's complement)."""
    value &= 2**64 - 1
    return value - 2**64 if value >= 2**63 else value
