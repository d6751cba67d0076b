"""eth_call and eth_estimateGas execution: a call object on a throwaway copy of committed state.

Runs on the call thread pool. A call that outlives `evm_timeout` is aborted at its next jump or
call, which every unbounded loop must pass through.
"""

import contextlib
import threading
import time

from eth.vm import opcode_values as op
from eth.vm.execution_context import ExecutionContext
from eth.vm.spoof import SpoofTransaction
from eth_utils import ValidationError, keccak

from chaind import errors
from chaind.api import encoding as enc
from chaind.api import params as p
from chaind.chain.modules import auth, erc20
from chaind.chain.modules.evm.state import NativeState
from chaind.chain.modules.evm.vm import VM, vm_error
from chaind.crypto.addresses import checksum_address
from chaind.store.evm_state import pending_state_db
from chaind.store.versioned import VersionedWriter
from chaind.tracing.native.access_list import AccessListTracer
from chaind.tracing.traced_interpreter import trace_transaction, tx_env

_deadline = threading.local()


class CallTimeout(Exception):
    """Raised inside the EVM loop when a call runs past its deadline."""


class _Guarded:
    """An opcode that first checks the calling thread's deadline."""

    def __init__(self, opcode_fn):
        self.opcode_fn = opcode_fn
        self.mnemonic = opcode_fn.mnemonic

    def __call__(self, computation):
        _check_deadline()
        return self.opcode_fn(computation=computation)


def _check_deadline():
    deadline = getattr(_deadline, "at", None)
    if deadline is not None and time.monotonic() > deadline:
        raise CallTimeout()


# JUMP and JUMPI stay inlined in the fast loop (evm/fast_interpreter.py), which calls on_jump before each; it runs
# the CALL family itself too (evm/fast_calls.py), calling on_call before each: _Guarded checks in py-evm's loop.
_GUARDED_OPCODES = (op.CALL, op.CALLCODE, op.DELEGATECALL, op.STATICCALL, op.CREATE, op.CREATE2)


def _guarded_state_class(state_class):
    computation_class = state_class.computation_class
    opcodes = dict(computation_class.opcodes)
    for value in _GUARDED_OPCODES:
        opcodes[value] = _Guarded(opcodes[value])
    guarded_computation = type("Guarded" + computation_class.__name__, (computation_class,),
                               {"opcodes": opcodes, "on_jump": staticmethod(_check_deadline),
                                "on_call": staticmethod(_check_deadline)})
    return type("Guarded" + state_class.__name__, (state_class,), {"computation_class": guarded_computation})


CALL_STATE_CLASS = _guarded_state_class(NativeState)
PLAIN_STATE_CLASS = NativeState    # traces bring their own deadline (tracing/traced_interpreter.py)


def _refused(state, tx, error):
    """py-evm's refusal of a call as geth words it: ethers and viem recognise "insufficient funds"."""
    have = state.get_balance(tx.sender)
    want = tx.value + tx.gas * state.get_gas_price(tx)
    if have < want:
        return errors.failed(f"insufficient funds for gas * price + value: address "
                             f"{checksum_address(tx.sender)} have {have} want {want}")
    return errors.failed(str(error))


class CallRunner:
    def __init__(self, app, gas_cap, timeout):
        self.app = app
        self.gas_cap = gas_cap
        self.timeout = timeout

    def call(self, call, view, overrides, block=None):
        """The call's output as 0x-hex; reverts and VM errors raise ChainError (REVERTED with the data).
        `block`: parsed block overrides (parse_block_overrides)."""
        with self.under_timeout():
            computation = self._execute(call, view, overrides, None, block)
        if computation.is_error:
            raise revert_error(computation)
        return enc.d(computation.output)

    def estimate(self, call, view, overrides, block=None):
        """The least gas limit at which the call succeeds (geth's binary search)."""
        cap = self.gas_cap or self.app.block_gas_limit(view.height + 1)
        if call.get("gas") is not None:
            cap = min(cap, p.quantity(call["gas"], 0))
        with self.under_timeout():
            computation = self._execute(call, view, overrides, cap, block)
            if computation.is_error:
                if type(computation.error).__name__ == "Revert":
                    raise revert_error(computation)
                raise errors.failed(f"gas required exceeds allowance ({cap})")
            low, high = 21000 - 1, cap
            used = cap - computation.get_gas_remaining()
            if used > low:
                low = used - 1
            while low + 1 < high:
                mid = (low + high) // 2
                if self._execute(call, view, overrides, mid, block).is_error:
                    low = mid
                else:
                    high = mid
        return enc.q(high)

    def create_access_list(self, call, view):
        """geth's eth_createAccessList: run the call with the list found so far until it stops growing;
        the list, the gas used with it, and the execution error if any."""
        found = access_list_arg(call.get("accessList"))
        with self.under_timeout():
            while True:
                state, tx = self.prepare(call, view, {}, access_list=found)
                excluded = {tx.sender, tx_env(state, tx).to, *state.computation_class.get_precompiles(),
                            *self.app.precompiles}
                excluded |= set(state.native.precompile_addresses())
                tracer = AccessListTracer(excluded, found)
                try:
                    computation = trace_transaction(state, tx, tracer, tx_env(state, tx))
                except ValidationError as e:
                    raise errors.failed(str(e)) from None
                if tracer.access_list() == found:
                    break
                found = tracer.access_list()
        out = {"accessList": tracer.result(), "gasUsed": enc.q(VM.finalize_gas_used(tx, computation))}
        if computation.is_error:
            out["error"] = revert_error(computation).message
        return out

    def run(self, call, view):
        """(computation, gas used) of the call at `view` under evm-timeout; a revert is the caller's to read."""
        with self.under_timeout():
            state, tx = self.prepare(call, view, {})
            try:
                computation = state.apply_transaction(tx)
            except ValidationError as e:
                raise _refused(state, tx, e) from None
        return computation, VM.finalize_gas_used(tx, computation)

    @contextlib.contextmanager
    def under_timeout(self):
        """Runs in the block under evm-timeout: the guarded opcodes abort past it, with geth's message."""
        _deadline.at = time.monotonic() + self.timeout if self.timeout else None
        try:
            yield
        except CallTimeout:
            raise errors.timeout(f"execution aborted (timeout = {self.timeout:g}s)") from None
        finally:
            _deadline.at = None

    def _execute(self, call, view, overrides, gas, block=None):
        state, tx = self.prepare(call, view, overrides, gas, block=block)
        try:
            return state.apply_transaction(tx)
        except ValidationError as e:
            raise _refused(state, tx, e) from None

    def prepare(self, call, view, overrides, gas=None, state_class=CALL_STATE_CLASS, block=None, access_list=None):
        """(state, tx): a throwaway state at `view` with `overrides`, and the call as a spoofed tx;
        `block` overrides the block context's fields (parse_block_overrides), `access_list` makes the
        call an EIP-2930 tx with that list."""
        if not isinstance(call, dict):
            raise errors.invalid_argument("invalid argument 0: call object expected")
        sender = p.address(call["from"], 0) if call.get("from") else bytes(20)
        to = p.address(call["to"], 0) if call.get("to") else b""
        data = p.data(call.get("input") or call.get("data") or "0x", 0)
        value = p.quantity(call["value"], 0) if call.get("value") else 0
        if gas is None:
            gas = p.quantity(call["gas"], 0) if call.get("gas") else \
                self.gas_cap or self.app.block_gas_limit(view.height + 1)
        if self.gas_cap and gas > self.gas_cap:
            gas = self.gas_cap
        header, meta = self.app.block_at(view.height)
        _, atomic = pending_state_db(self.app.db)
        fields = dict(coinbase=auth.FEE_COLLECTOR, timestamp=header.time_ns // 10**9, block_number=view.height,
                      difficulty=0, mix_hash=bytes(32), gas_limit=max(gas, meta.gas_limit), base_fee_per_gas=0)
        fields.update(block or {})
        context = ExecutionContext(prev_hashes=(), chain_id=self.app.genesis.evm_chain_id, excess_blob_gas=0,
                                   **fields)
        # The ERC-20 precompiles read (and a call may move) native balances: a throwaway store over the view.
        state = erc20.open_state(self.app, VersionedWriter(self.app.db, view.height + 1), state_class,
                                            atomic, context, meta.evm_state_root)
        apply_overrides(state, overrides)
        builder = VM.get_transaction_builder()
        if access_list is None:
            unsigned = builder.create_unsigned_transaction(
                nonce=state.get_nonce(sender), gas_price=0, gas=gas, to=to, value=value, data=data)
        else:
            unsigned = builder.new_unsigned_access_list_transaction(
                self.app.genesis.evm_chain_id, state.get_nonce(sender), 0, gas, to, value, data, access_list)
        return state, SpoofTransaction(unsigned, from_=sender)


def access_list_arg(value):
    """A call object's accessList as [(address, [slot int])]."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise errors.invalid_argument("invalid argument 0: accessList must be an array")
    out = []
    for entry in value:
        if not isinstance(entry, dict):
            raise errors.invalid_argument("invalid argument 0: accessList entries must be objects")
        slots = entry.get("storageKeys") or []
        out.append((p.address(entry.get("address"), 0), [int.from_bytes(p.block_hash(s, 0), "big") for s in slots]))
    return out


def parse_overrides(value, index, moves=False):
    """geth's StateOverride: {address: {balance, nonce, code, state | stateDiff}}, and with `moves`
    (eth_simulateV1) movePrecompileToAddress."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise errors.invalid_argument(f"invalid argument {index}: state override must be an object")
    out = {}
    for address, account in value.items():
        key = p.address(address, index)
        if not isinstance(account, dict):
            raise errors.invalid_argument(f"invalid argument {index}: override of {address} must be an object")
        unknown = set(account) - {"balance", "nonce", "code", "state", "stateDiff"}
        if moves:
            unknown.discard("movePrecompileToAddress")
        if unknown:
            raise errors.invalid_argument(f"invalid argument {index}: unknown override field {sorted(unknown)[0]!r}")
        if account.get("state") is not None and account.get("stateDiff") is not None:
            raise errors.failed(f"account {address} has both 'state' and 'stateDiff'")
        parsed = {}
        if account.get("balance") is not None:
            parsed["balance"] = p.quantity(account["balance"], index)
        if account.get("nonce") is not None:
            parsed["nonce"] = p.quantity(account["nonce"], index)
        if account.get("code") is not None:
            parsed["code"] = p.data(account["code"], index)
        if account.get("movePrecompileToAddress") is not None:
            parsed["movePrecompileToAddress"] = p.address(account["movePrecompileToAddress"], index)
        for field in ("state", "stateDiff"):
            if account.get(field) is not None:
                slots = account[field]
                if not isinstance(slots, dict):
                    raise errors.invalid_argument(f"invalid argument {index}: {field} must be an object")
                parsed[field] = {int.from_bytes(p.block_hash(k, index), "big"):
                                 int.from_bytes(p.block_hash(v, index), "big") for k, v in slots.items()}
        out[key] = parsed
    return out


# geth's BlockOverrides fields (both its current and its older names) -> (ExecutionContext field, parser).
_BLOCK_FIELDS = {
    "number": ("block_number", p.quantity), "time": ("timestamp", p.quantity),
    "gasLimit": ("gas_limit", p.quantity), "difficulty": ("difficulty", p.quantity),
    "feeRecipient": ("coinbase", p.address), "coinbase": ("coinbase", p.address),
    "prevRandao": ("mix_hash", p.block_hash), "random": ("mix_hash", p.block_hash),
}
# Calls run with no base fee (geth's NoBaseFee for a call without a gas price), and py-evm's BASEFEE reads
# the same field its fee checks do: a base fee override could not be applied without charging the sender.
_REFUSED_BLOCK_FIELDS = ("baseFeePerGas", "baseFee")


def parse_block_overrides(value, index):
    """geth's BlockOverrides as ExecutionContext fields; a field this node cannot apply is refused by
    name, never dropped (blob base fee, beacon root and withdrawals have no part in its blocks)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise errors.invalid_argument(f"invalid argument {index}: block overrides must be an object")
    out = {}
    for name, raw in value.items():
        if name in _REFUSED_BLOCK_FIELDS:
            raise errors.invalid_argument(f"invalid argument {index}: block override {name!r} is not supported: "
                                          f"calls run without a base fee here")
        if name not in _BLOCK_FIELDS:
            raise errors.invalid_argument(f"invalid argument {index}: block override {name!r} is not supported; "
                                          f"supported: {', '.join(sorted(_BLOCK_FIELDS))}")
        field, parse = _BLOCK_FIELDS[name]
        out[field] = parse(raw, index)
    return out


def apply_overrides(state, overrides):
    for address, account in overrides.items():
        if "balance" in account:
            state.set_balance(address, account["balance"])
        if "nonce" in account:
            state.set_nonce(address, account["nonce"])
        if "code" in account:
            state.set_code(address, account["code"])
        if "state" in account:
            state.delete_storage(address)
        for slot, value in {**account.get("state", {}), **account.get("stateDiff", {})}.items():
            state.set_storage(address, slot, value)


def revert_error(computation):
    output = computation.output
    if type(computation.error).__name__ == "Revert":
        reason = _revert_reason(output)
        message = "execution reverted" + (f": {reason}" if reason else "")
        return errors.reverted(message, enc.d(output))
    return errors.failed(vm_error(computation))


def _revert_reason(output):
    """The string of an Error(string) revert, if it is one."""
    if output[:4] != keccak(b"Error(string)")[:4] or len(output) < 68:
        return None
    try:
        length = int.from_bytes(output[36:68], "big")
        return output[68:68 + length].decode()
    except (UnicodeDecodeError, ValueError):
        return None
