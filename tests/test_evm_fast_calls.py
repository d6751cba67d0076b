"""The fast loop's own CALL family (evm/fast_calls.py) and the cheaper frame steps beside it: which classes run it, what
a returned frame keeps, and when touch_account writes. Their results are held to py-evm's by test_evm_fast_path.py."""

from eth.constants import BLANK_ROOT_HASH
from eth.db.atomic import AtomicDB
from eth.vm.execution_context import ExecutionContext
from eth.vm.forks.prague.computation import PragueComputation
from eth.vm.message import Message
from eth.vm.transaction_context import BaseTransactionContext

from chaind.api import calls
from chaind.chain.modules.evm import fast_calls
from chaind.chain.modules.evm.state import NativeComputation, NativeState
from chaind.tracing.traced_interpreter import traced_state_class

SENDER, TARGET, RETURNER = b"\x10" * 20, b"\x20" * 20, b"\x31" * 20
# RETURNER: stores 7 at 0, logs it with topic 0x1234, returns 64 bytes from 0
RETURNER_CODE = bytes.fromhex("600760005261123460206000a160406000f3")
# A CALL to RETURNER with all gas, no value or input, 64 bytes of output at 0, its success popped
CALL_RETURNER = bytes.fromhex("604060006000600060007331313131313131313131313131313131313131315af150")


def _runs_fast_calls(state_class):
    return fast_calls.runs_stock_calls(state_class.computation_class, NativeComputation.prepare_child_message)


def test_block_execution_and_eth_call_run_calls_themselves_and_traces_do_not():
    assert _runs_fast_calls(NativeState)
    assert _runs_fast_calls(calls.CALL_STATE_CLASS)          # its guard is on_call's deadline check
    assert calls.CALL_STATE_CLASS.computation_class.on_call is not None
    # A tracer sees every frame through its own CALL ops.
    assert not _runs_fast_calls(traced_state_class(NativeState))
    assert not _runs_fast_calls(traced_state_class(calls.CALL_STATE_CLASS))


def _context():
    return ExecutionContext(coinbase=b"\0" * 20, timestamp=1, block_number=1, difficulty=0, mix_hash=b"\0" * 32,
                            gas_limit=30_000_000, prev_hashes=(), chain_id=9000, base_fee_per_gas=0, excess_blob_gas=0)


def _run(code, gas=1_000_000):
    state = NativeState(AtomicDB(), _context(), BLANK_ROOT_HASH)
    state.set_code(RETURNER, RETURNER_CODE)
    state.set_code(TARGET, code)
    state.lock_changes()
    message = Message(gas=gas, to=TARGET, sender=SENDER, value=0, data=b"", code=code)
    return state, NativeComputation.apply_message(state, message, BaseTransactionContext(0, SENDER))


def test_a_returned_call_frame_keeps_no_stack_memory_or_code():
    """py-evm keeps every child frame to the end of the tx; what it never reads again goes when the frame returns,
    and what it does read (output, logs, gas) stays."""
    state, computation = _run(CALL_RETURNER * 3 + b"\x00")
    assert computation.is_success and len(computation.children) == 3
    for child in computation.children:
        assert child._stack is None and child._memory is None and child.code is None
        assert "stack_push_int" not in vars(child)
        assert child.output[31] == 7 and child.get_log_entries() == ((RETURNER, (0x1234,), bytes(31) + b"\x07"),)
    assert len(computation.get_log_entries()) == 3


class _CountingState(NativeState):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        accounts = self._account_db
        self.writes = []
        original = accounts._set_account

        def counted(address, account):
            self.writes.append(address)
            original(address, account)
        accounts._set_account = counted


def test_touch_writes_unless_the_journal_already_holds_the_account():
    state = _CountingState(AtomicDB(), _context(), BLANK_ROOT_HASH)
    nobody = b"\x55" * 20
    assert state.get_balance(nobody) == 0
    state.touch_account(nobody)              # read, never written: the touch writes it (EIP-161 then judges it)
    assert state.writes == [nobody] and state.account_exists(nobody)
    state.touch_account(nobody)              # the journal holds exactly this account: nothing to write
    assert state.writes == [nobody]
    snapshot = state.snapshot()
    state.set_balance(nobody, 5)
    state.revert(snapshot)                   # a revert leaves a fresh account object: written again
    state.touch_account(nobody)
    assert state.writes == [nobody, nobody, nobody] and state.get_balance(nobody) == 0


def test_block_execution_and_eth_call_build_call_frames_themselves():
    """A CALL's child frame is built and run by fast_calls (py-evm's apply_message and apply_computation in one step)
    for the classes blocks and eth_call run; a class that builds or applies frames its own way gets py-evm's."""
    assert fast_calls.runs_light_frames(NativeComputation, NativeComputation)
    assert fast_calls.runs_light_frames(calls.CALL_STATE_CLASS.computation_class, NativeComputation)
    own_init = type("OwnInit", (NativeComputation,), {"__init__": PragueComputation.__init__})
    assert not fast_calls.runs_light_frames(own_init, NativeComputation)
    wrapped = type("Wrapped", (NativeComputation,), {"apply_message": classmethod(
        lambda cls, *args, **kwargs: NativeComputation.apply_message.__func__(cls, *args, **kwargs))})
    assert not fast_calls.runs_light_frames(wrapped, NativeComputation)
    _run(CALL_RETURNER + b"\x00")
    assert NativeComputation.__dict__["_light_frames"] is True


IDENTITY = (4).to_bytes(20, "big")
# A STATICCALL to the identity precompile of 32 bytes at 0, 32 bytes back at 32, its success popped
CALL_IDENTITY = bytes.fromhex("6020602060206000" + "73" + IDENTITY.hex() + "5afa50")


def test_a_returned_frame_keeps_what_is_read_and_a_precompile_frame_runs_no_code():
    """A returned frame's empty lists are the empty tuple (py-evm only reads them once it returns); a precompile's
    frame never had a stack, memory or code; what py-evm reads of each (output, logs, gas, refunds) is there."""
    state, computation = _run(CALL_RETURNER + CALL_IDENTITY + b"\x00")
    assert computation.is_success
    returner, identity = computation.children
    assert returner.children == () and returner.accounts_to_delete == () and returner.beneficiaries == ()
    assert len(returner._log_entries) == 1 and returner.output[31] == 7
    assert identity.output == returner.output[:32] and identity.get_log_entries() == ()
    assert identity._stack is None and identity._memory is None and identity.code is None
    assert computation.get_gas_refund() == 0 and computation.get_accounts_for_deletion() == []
    assert len(computation.get_log_entries()) == 1
