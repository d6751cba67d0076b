"""py-evm's Prague State whose call-frame snapshots also cover the native store, so a revert undoes bank
moves; its precompiles are py-evm's fixed ones, P256VERIFY, bech32, the modules' (App.precompiles: cosmos/evm's
precompiles of the native modules, each in its module's package) and those the native store serves (ERC-20 pairs).

`native` is set by whoever opens the state (erc20 precompile's open_state): it journals native writes
(checkpoint, revert, commit), keeps the events of precompile calls, names the precompile at an address, and
carries the app (whose modules' precompiles a call reaches). Without it, a state has the EVM's own precompiles only.
"""

from itertools import repeat

from eth.constants import CREATE_CONTRACT_ADDRESS
from eth.vm.code_stream import CodeStream
from eth.vm.forks.prague.computation import PragueComputation
from eth.vm.forks.prague.state import PragueState, PragueTransactionExecutor
from eth.vm.forks.spurious_dragon.state import SpuriousDragonTransactionExecutor
from eth.vm.memory import Memory
from eth.vm.stack import Stack
from eth_utils import encode_hex

from chaind.chain.modules.evm import bech32_precompile, fast_calls, fast_interpreter, p256
from chaind.chain.modules.evm.params import PARAMS_KEY, inactive_of
from chaind.store.evm_accounts import FastAccountDB, commit_journal, record_journal

_NO_PRECOMPILE = object()
_UNREAD = object()
_NONE_INACTIVE = frozenset()


class _Precompiles:
    """computation.precompiles: the EVM's own and the modules' but the static ones the evm params leave inactive
    (asked of the state at each lookup: a tx may change the params), then the ERC-20 pairs' (looked up on use). One
    per state and fixed table, as every frame asks."""

    def __init__(self, fixed, state):
        native = state.native
        self.fixed = fixed
        self.modules = native.app.precompiles
        self.native = native
        self.state = state

    def get(self, address, default=None):
        found = self.fixed.get(address) or self.modules.get(address)
        if found is not None and address not in self.state.inactive_static():
            return found
        found = self.native.precompile(address)
        return default if found is None else found

    def __contains__(self, address):
        return self.get(address) is not None


class NativeComputation(PragueComputation):
    # Prague's, RIP-7212's P256VERIFY and the bech32 converter, at cosmos/evm's addresses (the modules' come with
    # the state's native).
    _precompiles = {**PragueComputation._precompiles, p256.ADDRESS: p256.p256_verify,
                    bech32_precompile.ADDRESS: bech32_precompile.run}

    @property
    def precompiles(self):
        state = self.state
        native = state.native
        if native is None:
            return self._precompiles
        table = state.__dict__.get("_precompile_table")
        if table is None or table.fixed is not self._precompiles or table.native is not native:
            table = state._precompile_table = _Precompiles(self._precompiles, state)
        return table

    def __init__(self, state, message, transaction_context):
        """py-evm's BaseComputation.__init__ and Shanghai's, which marks the coinbase warm (EIP-3651): here at depth 0
        only, as a child frame runs inside its parent's, which marked it, and no frame's revert unmarks what an outer
        frame marked. The mark's journal lookup cost a twentieth of a CALL (issue 36)."""
        self.state = state
        self.msg = message
        self.transaction_context = transaction_context
        self.code = CodeStream(message.code)
        self._gas_meter = self._configure_gas_meter()
        self.children = []
        self.accounts_to_delete = []
        self.beneficiaries = []
        self._stack = Stack()
        self._memory = Memory()
        self._log_entries = []
        self.data_floor_cost = 0
        if message.depth == 0:
            state.mark_address_warm(state.coinbase)

    def prepare_child_message(self, gas, to, value, data, code, **kwargs):
        """py-evm's, less Message's checks of each field: the call and create opcodes give a uint256 gas and value,
        20-byte addresses, bytes of data and code, as those checks want."""
        return fast_calls.child_message(gas, to, kwargs.pop("sender", self.msg.storage_address), value, data, code,
                             self.msg.depth + 1, **kwargs)

    # py-evm's walks of a tx's frames (its refund, deletions, beneficiaries and logs, asked of every frame when the tx
    # ends), with a frame that has no children and none of its own answered at once: a CALL loop's thousands of
    # frames are such leaves, and the walks' generators cost a fifth of its block (issue 36).
    def get_gas_refund(self):
        if self._error is not None:
            return self.msg.refund
        refund = self.msg.refund + self._gas_meter.gas_refunded
        for child in self.children:
            refund += child.get_gas_refund()
        return refund

    # (py-evm's deletions and beneficiaries: none of a failed frame, else its own and its children's, each once; a
    # child leaf without its own is not asked.)
    def get_accounts_for_deletion(self):
        if self._error is not None or (not self.children and not self.accounts_to_delete):
            return []
        found = set(self.accounts_to_delete)
        for child in self.children:
            if child.children or child.accounts_to_delete:
                found.update(child.get_accounts_for_deletion())
        return list(found)

    def get_self_destruct_beneficiaries(self):
        if self._error is not None or (not self.children and not self.beneficiaries):
            return []
        found = set(self.beneficiaries)
        for child in self.children:
            if child.children or child.beneficiaries:
                found.update(child.get_self_destruct_beneficiaries())
        return list(found)

    def get_raw_log_entries(self):
        if not self.children and not self._log_entries:
            return ()
        return super().get_raw_log_entries()

    _light_frames = None    # fast_calls.runs_light_frames, found once a class (in apply_computation)
    on_jump = None      # called before each JUMP and JUMPI of the fast loop (api/calls.py: the eth_call deadline)
    on_call = None      # called before each CALL-family op the fast loop runs itself (the same deadline)

    @classmethod
    def apply_computation(cls, state, message, transaction_context, parent_computation=None):
        """py-evm 0.12.1b1's BaseComputation.apply_computation with its loop replaced by fast_interpreter.run; a
        class whose table wraps an inlined opcode, or py-evm's per-opcode debug log, gets py-evm's own loop."""
        fast = cls.__dict__.get("_fast_loop")
        if fast is None:
            fast = fast_interpreter.uses_stock_inlined(cls)
            cls._fast_loop = fast
        calls = cls.__dict__.get("_fast_calls")
        if calls is None:
            calls = cls._fast_calls = fast_calls.runs_stock_calls(cls, NativeComputation.prepare_child_message)
        if cls.__dict__.get("_light_frames") is None:
            cls._light_frames = calls and fast_calls.runs_light_frames(cls, NativeComputation)
        if not fast or cls.logger.show_debug2:
            return super().apply_computation(state, message, transaction_context, parent_computation)
        with cls(state, message, transaction_context) as computation:
            if computation.is_origin_computation:
                computation.contracts_created = []
                if message.is_create:
                    cls.consume_initcode_gas_cost(computation)
            if parent_computation is not None:
                computation.contracts_created = parent_computation.contracts_created
            if message.is_create:
                computation.contracts_created.append(message.storage_address)
            precompile = computation.precompiles.get(message.code_address, _NO_PRECOMPILE)
            if precompile is not _NO_PRECOMPILE:
                if not message.is_delegation:
                    precompile(computation)
                return computation
            fast_interpreter.run(computation, cls.on_jump, fast_calls.call if calls else None, cls.on_call)
        return computation


class NativeTransactionExecutor(PragueTransactionExecutor):
    def finalize_computation(self, transaction, computation):
        """py-evm 0.12.1b1's SpuriousDragon finalize_computation (Frontier's, then EIP-161's clearing of the touched
        accounts left empty), its walk of the tx's frames a loop: collect_touched_accounts' recursive generators, a
        generator per frame, made a quarter of a CALL loop's eth_call (issue 36)."""
        computation = super(SpuriousDragonTransactionExecutor, self).finalize_computation(transaction, computation)
        state = self.vm_state
        for account in touched_accounts(computation):
            if state.account_exists(account) and state.account_is_empty(account):
                state.logger.debug2(f"CLEARING EMPTY ACCOUNT: {encode_hex(account)}")
                state.delete_account(account)
        return computation


_RIPEMD160 = (3).to_bytes(20, "big")


def touched_accounts(computation):
    """py-evm's collect_touched_accounts: the set of the accounts EIP-161 may clear after `computation`'s tx (each
    frame's state's coinbase, self-destruct beneficiaries and `to`; of a failed frame or one under it, RIPEMD160's
    only, the quirk geth and parity shared)."""
    touched = set()
    state = None
    pending = [(computation, False)]
    while pending:
        frame, ancestor_failed = pending.pop()
        if frame.state is not state:
            state = frame.state
            touched.add(state.coinbase)
        failed = frame._error is not None or ancestor_failed
        children = frame.children
        if children or frame.beneficiaries:         # (a leaf without its own has none)
            for beneficiary in frame.get_self_destruct_beneficiaries():
                if not failed or beneficiary == _RIPEMD160:
                    touched.add(beneficiary)
        to = frame.msg.to
        if to != CREATE_CONTRACT_ADDRESS and (not failed or to == _RIPEMD160):
            touched.add(to)
        if children:
            pending += zip(children, repeat(failed))
    return touched


class NativeState(PragueState):
    """py-evm's Prague State whose snapshots also cover the native store (through `native`)."""

    computation_class = NativeComputation
    transaction_executor_class = NativeTransactionExecutor
    account_db_class = FastAccountDB
    native = None       # EvmNative, set by whoever opens the state

    @property
    def written_accounts(self):
        """(state root, {address: RLP}) of the accounts its last state root changed (after persist: the block's), or
        None from an account DB that does not keep them (py-evm's own, which tests compare FastAccountDB with)."""
        return getattr(self._account_db, "last_records", None)

    def set_system_contracts(self):
        """Nothing: Ethereum's beacon-root and block-history contracts (EIPs 4788, 2935) serve its beacon chain,
        and an Evmos chain deploys none. py-evm's check reads both accounts each time a state opens (every block,
        every call), and writes their code again when it is already there."""

    # py-evm's snapshot, revert and commit (BaseState's, then CancunState's transient storage) in one frame each, the
    # native store's beside them: a snapshot is (state root, checkpoint, native checkpoint or None).
    def snapshot(self):
        accounts = self._account_db
        state_root = accounts.state_root
        checkpoint = accounts.record()
        record_journal(self.transient_storage._db, checkpoint)
        native = self.native
        return state_root, checkpoint, None if native is None else native.checkpoint()

    def revert(self, snapshot):
        state_root, checkpoint, native = snapshot
        accounts = self._account_db
        accounts.state_root = state_root
        accounts.discard(checkpoint)
        self.transient_storage.discard(checkpoint)
        if native is not None:
            self.native.revert(native)

    def commit(self, snapshot):
        _, checkpoint, native = snapshot
        self._account_db.commit(checkpoint)
        commit_journal(self.transient_storage._db, checkpoint)
        if native is not None:
            self.native.commit(native)

    _committed_evm_params = _UNREAD

    def inactive_static(self):
        """The static precompiles the evm params leave inactive (EvmKeeper.inactive_static), asked at every call
        frame and warm check: the params' committed bytes are read once per state, the block's own writes to
        them (native's store `changes`) at each ask."""
        native = self.native
        store = native.store
        changes = getattr(store, "changes", None)
        if changes is None:
            raw = store.get(PARAMS_KEY)
        elif PARAMS_KEY in changes:
            raw = changes[PARAMS_KEY]
        else:
            raw = self._committed_evm_params
            if raw is _UNREAD:
                raw = self._committed_evm_params = store.get(PARAMS_KEY)
        if raw is None:
            return _NONE_INACTIVE
        if raw is not self._inactive_of:
            self._inactive = inactive_of(raw, frozenset(native.app.precompiles))
            self._inactive_of = raw
        return self._inactive

    _inactive_of = None     # the params record inactive_static last read, and what it leaves inactive
    _inactive = _NONE_INACTIVE

    def is_address_warm(self, address):
        # Active precompiles are warm from a tx's start, as geth's access list has them; a static one the
        # evm params turned off is a plain account. (An address the access journal holds is warm either way: it is
        # asked first, py-evm's BaseState.is_address_warm inlined.)
        if self._account_db.is_address_warm(address):
            return True
        native = self.native
        if native is not None and address in self.inactive_static():
            return False
        if address in self.computation_class.get_precompiles():
            return True
        return native is not None and (address in native.app.precompiles or native.precompile(address) is not None)


def is_precompile(state, address):
    """Whether a call to `address` in `state` runs a precompile (a fixed one, a native module's, an ERC-20 pair's)."""
    native = state.native
    return address in NativeComputation._precompiles or (native is not None and (
        address in native.app.precompiles or native.precompile(address) is not None))
