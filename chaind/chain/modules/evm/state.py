"""py-evm's Prague State whose call-frame snapshots also cover the native store, so a revert undoes bank
moves; its precompiles are py-evm's fixed ones, P256VERIFY, bech32, the modules' (App.precompiles: cosmos/evm's
precompiles of the native modules, each in its module's package) and those the native store serves (ERC-20 pairs).

`native` is set by whoever opens the state (erc20 precompile's open_state): it journals native writes
(checkpoint, revert, commit), keeps the events of precompile calls, names the precompile at an address, and
carries the app (whose modules' precompiles a call reaches). Without it, a state has the EVM's own precompiles only.
"""

import attrs
from eth.vm.forks.prague.computation import PragueComputation
from eth.vm.forks.prague.state import PragueState

from chaind.chain.modules.evm import bech32_precompile, fast_interpreter, p256
from chaind.store.evm_accounts import FastAccountDB

_NO_PRECOMPILE = object()


@attrs.frozen
class _Snapshot:
    evm: tuple          # py-evm's own snapshot
    native: tuple       # (journal length, events length)


class _Precompiles:
    """computation.precompiles: the EVM's own and the modules' but the static ones the evm params leave inactive,
    then the ERC-20 pairs' (looked up on use)."""

    def __init__(self, fixed, native):
        self.fixed = fixed
        self.modules = native.app.precompiles
        self.native = native
        self.inactive = native.app.keepers["evm"].inactive_static(native, self.modules)

    def get(self, address, default=None):
        found = self.fixed.get(address) or self.modules.get(address)
        if found is not None and address not in self.inactive:
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
        native = self.state.native
        return self._precompiles if native is None else _Precompiles(self._precompiles, native)

    on_jump = None      # called before each JUMP and JUMPI of the fast loop (api/calls.py: the eth_call deadline)

    @classmethod
    def apply_computation(cls, state, message, transaction_context, parent_computation=None):
        """py-evm 0.12.1b1's BaseComputation.apply_computation with its loop replaced by fast_interpreter.run; a
        class whose table wraps an inlined opcode, or py-evm's per-opcode debug log, gets py-evm's own loop."""
        fast = cls.__dict__.get("_fast_loop")
        if fast is None:
            fast = fast_interpreter.uses_stock_inlined(cls)
            cls._fast_loop = fast
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
            fast_interpreter.run(computation, cls.on_jump)
        return computation


class NativeState(PragueState):
    """py-evm's Prague State whose snapshots also cover the native store (through `native`)."""

    computation_class = NativeComputation
    account_db_class = FastAccountDB
    native = None       # EvmNative, set by whoever opens the state

    def set_system_contracts(self):
        """Nothing: Ethereum's beacon-root and block-history contracts (EIPs 4788, 2935) serve its beacon chain,
        and an Evmos chain deploys none. py-evm's check reads both accounts each time a state opens (every block,
        every call), and writes their code again when it is already there."""

    def snapshot(self):
        evm = super().snapshot()
        return _Snapshot(evm, None if self.native is None else self.native.checkpoint())

    def revert(self, snapshot):
        super().revert(snapshot.evm)
        if snapshot.native is not None:
            self.native.revert(snapshot.native)

    def commit(self, snapshot):
        super().commit(snapshot.evm)
        if snapshot.native is not None:
            self.native.commit(snapshot.native)

    def is_address_warm(self, address):
        # Active precompiles are warm from a tx's start, as geth's access list has them; a static one the
        # evm params turned off is a plain account.
        native = self.native
        if native is not None and address in native.app.keepers["evm"].inactive_static(native, native.app.precompiles):
            return self._account_db.is_address_warm(address)
        if super().is_address_warm(address):
            return True
        return native is not None and (address in native.app.precompiles or native.precompile(address) is not None)


def is_precompile(state, address):
    """Whether a call to `address` in `state` runs a precompile (a fixed one, a native module's, an ERC-20 pair's)."""
    native = state.native
    return address in NativeComputation._precompiles or (native is not None and (
        address in native.app.precompiles or native.precompile(address) is not None))
