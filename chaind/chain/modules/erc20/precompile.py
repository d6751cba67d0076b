"""The ERC-20 contract of a native coin's token pair, run inside py-evm, moving the bank balance itself;
and the native store as the EVM's state sees it (evm/state.py), journaled so a revert undoes bank moves.

Gas: each method costs a fixed amount. Reads and approvals cost what Evmos v20's ERC-20 precompile
charges (its RequiredGas); transfer and transferFrom, for which Evmos charges a flat 3,000,000 (a
placeholder in its code), cost GAS_TRANSFER here: about what an ERC-20 contract's transfer to a new
holder spends. Allowances live in the erc20 module's store (Evmos keeps them as authz grants, which
expire after a year; these do not). Calls that carry value, and DELEGATECALL / CALLCODE (which would
let a contract spend its caller's coins), revert.
"""

import functools

import attrs
from eth.exceptions import Revert
from eth_abi import decode as abi_decode
from eth_abi import encode as abi_encode
from eth_abi.exceptions import DecodingError
from eth_utils import keccak

from chaind.chain import errors
from chaind.chain.block import event
from chaind.chain.modules.erc20 import keeper as erc20
from chaind.pb.evmos.erc20.v1 import genesis_pb2
from chaind.store.keys import compose

MAX_UINT256 = 2**256 - 1
GAS_TRANSFER = 30_000
TRANSFER_TOPIC = keccak(b"Transfer(address,address,uint256)")
APPROVAL_TOPIC = keccak(b"Approval(address,address,uint256)")
_ERROR_SELECTOR = keccak(b"Error(string)")[:4]


def _allowance_key(owner, spender, denom):
    return compose("erc20", "allowance", owner, spender, denom)


# -- the journal of native writes -------------------------------------------------------------

@attrs.frozen
class Frame:
    """What bank's and auth's keepers take as `state`: the journaled native store and the EVM accounts."""

    store: object
    accounts: object


class EvmNative:
    """The native store as EVM execution sees it: writes journaled so a reverted call frame undoes them,
    and the bank events of precompile calls, kept until the tx takes them.

    `store` is the block's VersionedWriter (or, for eth_call, a throwaway one over the view's height);
    `time_ns` the block's time, which the native precompiles' messages run at (None: the EVM's timestamp).
    """

    def __init__(self, app, store, time_ns=None):
        self.app = app
        self.time_ns = time_ns
        self.genesis = app.genesis
        self.bank = app.keepers["bank"]
        self.store = store
        self.events = []
        self._journal = []      # (key, whether store.changes held it, its value there)
        self._depth = 0
        self._committed_params = None

    # store interface (what bank and auth call)
    def get(self, key):
        return self.store.get(key)

    def set(self, key, value):
        self._record(key)
        self.store.set(key, value)

    def delete(self, key):
        self._record(key)
        self.store.delete(key)

    def iterate(self, prefix, start_after=None):
        return self.store.iterate(prefix, start_after)

    def _record(self, key):
        # store.changes is looked up each time: a failed native message replaces the dict.
        changes = self.store.changes
        self._journal.append((key, key in changes, changes.get(key)))

    # call-frame snapshots
    def checkpoint(self):
        self._depth += 1
        return len(self._journal), len(self.events)

    def revert(self, checkpoint):
        position, event_count = checkpoint
        changes = self.store.changes
        for key, present, value in reversed(self._journal[position:]):
            if present:
                changes[key] = value
            else:
                changes.pop(key, None)
        del self._journal[position:]
        del self.events[event_count:]
        self._close()

    def commit(self, checkpoint):
        self._close()

    def _close(self):
        self._depth = max(0, self._depth - 1)
        if not self._depth:
            self._journal.clear()      # no frame is left to revert these

    def take_events(self):
        """The bank events of the tx that just ran, and a clean journal for the next one."""
        events, self.events = self.events, []
        self._journal.clear()
        self._depth = 0
        return events

    # the active precompiles
    def precompile_addresses(self):
        """Addresses of the active ERC-20 precompiles: params change only by native messages, which
        write the block's store directly, so the committed value is read once."""
        changes = self.store.changes
        if erc20.PARAMS_KEY in changes:
            raw = changes[erc20.PARAMS_KEY]
        else:
            if self._committed_params is None:
                self._committed_params = self.store.get(erc20.PARAMS_KEY) or b""
            raw = self._committed_params
        return _active_addresses(raw)

    def precompile(self, address):
        """The precompile function serving `address`, or None."""
        if address not in self.precompile_addresses():
            return None
        pair = self.app.keepers["erc20"].pair_at(self, address)
        if pair is None or pair.contract_owner != erc20.OWNER_MODULE:
            return None
        return functools.partial(run, pair)


@functools.lru_cache(maxsize=16)
def _active_addresses(raw):
    """The precompile addresses of the erc20 params record `raw`; remembered, as every block reads them (a state
    per block) and they seldom change."""
    params = genesis_pb2.Params()
    params.ParseFromString(raw or b"")
    return erc20.precompile_addresses(params)


# -- the contract ---------------------------------------------------------------------------

class _Failure(Exception):
    """A revert with an Error(string) reason; without one, go-ethereum's ErrExecutionReverted text, which
    cosmos/evm's ReturnRevertError encodes as any other."""

    def __init__(self, reason="execution reverted"):
        super().__init__(reason)
        self.reason = reason


@attrs.frozen
class _Method:
    name: str
    inputs: tuple
    gas: int
    writes: bool
    handler: object


def _selector(signature):
    return keccak(signature.encode())[:4]


def run(pair, computation):
    """Answer one call to the pair's contract (py-evm's precompile signature)."""
    msg = computation.msg
    data = bytes(msg.data)
    method = _METHODS.get(data[:4]) if len(data) >= 4 else None
    if method is not None:
        computation.consume_gas(method.gas, reason=f"ERC-20 precompile {method.name}")
    try:
        # Each failure reverts with an Error(string), worded as cosmos/evm's Execute, SetupABI and
        # ReturnRevertError do.
        if msg.value:
            raise _Failure(f"cannot receive funds, received: {msg.value}")
        if len(data) < 4:
            raise _Failure("execution reverted")
        if method is None:
            raise _Failure(f"no method with id: 0x{data[:4].hex()}")
        if method.writes and msg.is_static:
            raise _Failure("write protection")
        if msg.storage_address != msg.code_address:
            raise _Failure("the ERC-20 precompile cannot be run by DELEGATECALL or CALLCODE")
        try:
            args = abi_decode(list(method.inputs), data[4:]) if method.inputs else ()
        except (DecodingError, ValueError) as e:
            raise _Failure(f"invalid arguments for {method.name}: {e}") from None
        native = computation.state.native
        frame = Frame(native, computation.state)
        computation.output = method.handler(_Call(pair, computation, native, frame), *args)
    except _Failure as e:
        computation.output = _ERROR_SELECTOR + abi_encode(["string"], [e.reason])
        raise Revert(e.reason) from None
    return computation


@attrs.frozen
class _Call:
    pair: object
    computation: object
    native: EvmNative
    frame: Frame

    @property
    def denom(self):
        return self.pair.denom

    @property
    def caller(self):
        return self.computation.msg.sender

    @property
    def address(self):
        return self.computation.msg.code_address

    def log(self, topic, first, second, amount):
        self.computation.add_log_entry(self.address, (int.from_bytes(topic, "big"), int.from_bytes(first, "big"),
                                                      int.from_bytes(second, "big")), amount.to_bytes(32, "big"))

    def metadata(self):
        found = self.native.bank.metadata(self.frame, self.denom)
        if found is None:
            raise _Failure()    # a coin without metadata has no name: plain "execution reverted", as upstream
        return found

    def allowance(self, owner, spender):
        raw = self.frame.store.get(_allowance_key(owner, spender, self.denom))
        return int(raw) if raw else 0

    def set_allowance(self, owner, spender, amount):
        key = _allowance_key(owner, spender, self.denom)
        if amount:
            self.frame.store.set(key, str(amount).encode())
        else:
            self.frame.store.delete(key)


def _uint(value):
    return abi_encode(["uint256"], [value])


def _name(call):
    return abi_encode(["string"], [call.metadata().get("name", "")])


def _symbol(call):
    return abi_encode(["string"], [call.metadata().get("symbol", "")])


def _decimals(call):
    found = call.metadata()
    display = found.get("display")
    for unit in reversed(found.get("denom_units", ())):
        if unit.get("denom") == display:
            try:
                exponent = int(unit.get("exponent", 0))
            except (TypeError, ValueError):
                raise _Failure() from None
            if not 0 <= exponent <= 255:
                raise _Failure()
            return abi_encode(["uint8"], [exponent])
    raise _Failure()


def _total_supply(call):
    return _uint(call.native.bank.supply(call.frame, call.denom))


def _balance_of(call, account):
    return _uint(call.native.bank.balance(call.frame, _address(account), call.denom))


def _allowance(call, owner, spender):
    owner, spender = _address(owner), _address(spender)
    if owner == spender:
        return _uint(MAX_UINT256)
    return _uint(call.allowance(owner, spender))


def _address(text):
    return bytes.fromhex(text[2:])


def _move(call, sender, recipient, amount):
    """The bank send an ERC-20 transfer is (bank's MsgSend), its Transfer log and its bank events."""
    if amount <= 0:
        raise _Failure(f"coin {amount}{call.denom} amount is not positive")
    bank = call.native.bank
    coins = [(call.denom, amount)]
    try:
        bank.auth.ensure_account(call.frame, recipient)
        emitted = bank.send(call.frame, sender, recipient, coins)
    except errors.TxError as e:
        if e.code == 5 and e.codespace == errors.SDK:
            raise _Failure("ERC20: transfer amount exceeds balance") from None
        raise _Failure(e.log) from None
    emitted.append(event("message", ("sender", bank.bech32(sender))))
    call.native.events += emitted
    call.log(TRANSFER_TOPIC, sender, recipient, amount)


def _transfer(call, to, amount):
    _move(call, call.caller, _address(to), amount)
    return abi_encode(["bool"], [True])


def _transfer_from(call, owner, to, amount):
    owner, spender = _address(owner), call.caller
    if owner == spender:
        remaining = MAX_UINT256
    else:
        allowed = call.allowance(owner, spender)
        if amount > allowed or not allowed:
            raise _Failure("ERC20: insufficient allowance")
        remaining = allowed - amount
        call.set_allowance(owner, spender, remaining)
    _move(call, owner, _address(to), amount)
    call.log(APPROVAL_TOPIC, owner, spender, remaining)
    return abi_encode(["bool"], [True])


def _owner_and_spender(call, spender):
    owner, spender = call.caller, _address(spender)
    if owner == spender:
        raise _Failure("spender cannot be the owner")
    return owner, spender


def _set_allowance(call, owner, spender, amount):
    """Store the allowance and log Approval; the methods' `true`."""
    call.set_allowance(owner, spender, amount)
    call.log(APPROVAL_TOPIC, owner, spender, amount)
    return abi_encode(["bool"], [True])


def _approve(call, spender, amount):
    return _set_allowance(call, *_owner_and_spender(call, spender), amount)


def _increase_allowance(call, spender, added):
    owner, spender = _owner_and_spender(call, spender)
    if added <= 0:
        raise _Failure("cannot increase allowance with non-positive values")
    amount = call.allowance(owner, spender) + added
    if amount > MAX_UINT256:
        raise _Failure()
    return _set_allowance(call, owner, spender, amount)


def _decrease_allowance(call, spender, subtracted):
    owner, spender = _owner_and_spender(call, spender)
    if subtracted <= 0:
        raise _Failure("cannot decrease allowance with non-positive values")
    allowed = call.allowance(owner, spender)
    if not allowed:
        raise _Failure(f"allowance for token {call.denom} does not exist")
    if subtracted > allowed:
        raise _Failure("ERC20: decreased allowance below zero")
    amount = allowed - subtracted
    return _set_allowance(call, owner, spender, amount)


_METHODS = {_selector(signature): _Method(signature.split("(")[0], inputs, gas, writes, handler)
            for signature, inputs, gas, writes, handler in (
    # Reads, at Evmos v20's RequiredGas.
    ("name()", (), 3_421, False, _name),
    ("symbol()", (), 3_464, False, _symbol),
    ("decimals()", (), 427, False, _decimals),
    ("totalSupply()", (), 2_477, False, _total_supply),
    ("balanceOf(address)", ("address",), 2_851, False, _balance_of),
    ("allowance(address,address)", ("address", "address"), 3_246, False, _allowance),
    # Writes.
    ("transfer(address,uint256)", ("address", "uint256"), GAS_TRANSFER, True, _transfer),
    ("transferFrom(address,address,uint256)", ("address", "address", "uint256"), GAS_TRANSFER, True,
     _transfer_from),
    ("approve(address,uint256)", ("address", "uint256"), 30_956, True, _approve),
    ("increaseAllowance(address,uint256)", ("address", "uint256"), 34_605, True, _increase_allowance),
    ("decreaseAllowance(address,uint256)", ("address", "uint256"), 34_519, True, _decrease_allowance),
)}
