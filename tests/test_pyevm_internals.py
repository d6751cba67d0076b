"""The py-evm internals chaind copies or reaches into are the ones it was written against: the release, and a
fingerprint (a hash of the source) of each function, class or table, with the chaind file to revisit when one changes.

The traced interpreter copies py-evm's interpreter loop and swaps the classes of its CALL and CREATE opcodes; the
account store subclasses AccountDB through its private methods; both read private attributes (`_gas_meter`,
`_stack`, `_memory`, `_journaltrie`, ...). None of that is py-evm's public API, so pyproject.toml pins the exact
release; this catches the day the pin moves (as chaind/grpc/header.py guards grpcio's private name with the release
it was written for). When a fingerprint fails: read the new py-evm source against the chaind file named, fix that
file, then record the fingerprint the failure prints.
"""

import ast
import hashlib
import importlib
import importlib.metadata
import inspect
import pathlib
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

# The py-evm release the fingerprints below were taken at.
WRITTEN_FOR = "0.12.1b1"

INTERPRETER = "chaind/tracing/traced_interpreter.py"
ACCOUNTS = "chaind/store/evm_accounts.py"
PENDING_TRIE = "chaind/store/evm_state.py"
COMMITTED = "chaind/chain/view.py"
NATIVE_STATE = "chaind/chain/modules/evm/state.py"
FAST_LOOP = "chaind/chain/modules/evm/fast_interpreter.py"
FAST_CALLS = "chaind/chain/modules/evm/fast_calls.py"
OPCODES = "chaind/tracing/opcodes.py"
PRECOMPILE_SETS = ("chaind/tracing/js/tracer.py, chaind/tracing/native/fourbyte.py, "
                   "chaind/tracing/native/flat_call.py, chaind/api/simulate.py")
DECODE = "chaind/chain/evm_decode.py"

COMPUTATION = "eth.vm.forks.prague.computation.PragueComputation"
STATE = "eth.vm.forks.prague.state.PragueState"

# (what: a dotted name, or one of the computed tables below; fingerprint; the chaind file to revisit; how it is
# relied on). A method named through a fork's class is the one that class resolves to, wherever defined.
RELIED_ON = (
    # The traced interpreter (apply_computation's copy, the opcode loop, the frame hooks)
    (f"{COMPUTATION}.apply_computation", "4ba92916888be24d", f"{INTERPRETER}, {NATIVE_STATE}",
     "copied with the loop traced; copied with the loop replaced by the fast one"),
    (f"{COMPUTATION}.apply_message", "8f0e47000267d991", INTERPRETER, "wrapped: a child frame's enter and exit"),
    (f"{COMPUTATION}.apply_create_message", "699148490e86b515", INTERPRETER,
     "wrapped: a child frame's enter and exit; its error texts read by error_text"),
    (f"{COMPUTATION}.add_log_entry", "274eaf5b03d9ec8d", INTERPRETER, "wrapped: on_log"),
    (f"{COMPUTATION}.consume_initcode_gas_cost", "9e715825858f5b84", INTERPRETER,
     "called by the copied apply_computation"),
    (f"{COMPUTATION}.validate_create_message", "5251f6bb68839cc8", INTERPRETER, "error_text reads its EIP-3860 text"),
    (f"{COMPUTATION}.validate_contract_code", "286beaa71d4f8875", INTERPRETER, "error_text reads its EIP170 text"),
    ("eth.vm.computation.BaseComputation.__init__", "25808b277252c73d", f"{INTERPRETER}, {FAST_LOOP}",
     "the loop reads _gas_meter, _stack, _memory and code directly"),
    ("eth.vm.gas_meter.GasMeter", "74ed17c29c125f4f", f"{INTERPRETER}, {FAST_LOOP}",
     "gas_remaining and gas_refunded read; its out-of-gas text (Needed N) parsed, and written by the fast loop"),
    ("eth.vm.stack.Stack", "74af3c93bab03cac", f"{INTERPRETER}, {FAST_LOOP}",
     "values read as the step's stack; driven in place by the fast loop, its error texts copied"),
    ("eth.vm.memory.Memory", "d27764782eb3bbbd", f"{INTERPRETER}, {FAST_LOOP}",
     "_bytes read as the step's memory; read and written by the fast loop, which reads it again after whatever may "
     "extend memory (extend replaces it when a memoryview holds it)"),
    ("eth.vm.code_stream.CodeStream", "9befe3146fae3167", f"{INTERPRETER}, {FAST_LOOP}",
     "_raw_code_bytes and program_counter driven; its JUMPDEST validity redone by the fast loop's analysis"),
    ("eth.vm.opcode", "d1e906881cf265a7", INTERPRETER, "_unwrap finds an opcode's gas_cost through its wrappers"),
    ("eth.vm.logic.invalid.InvalidOpcode", "8a90158d2e00592e", INTERPRETER, "fills the table; its text parsed"),
    ("eth.vm.forks.istanbul.storage.sstore_eip2200_generic", "674eed70321cdfad", INTERPRETER,
     "error_text reads its reentrancy-sentry text"),
    ("call and create opcode classes", "1517dec159a81ee0", INTERPRETER,
     "their classes swapped for subclasses overriding compute_msg_gas, max_child_gas_modifier and __call__"),
    ("SSTORE logic", "6d38968f09ec320b", INTERPRETER, "the traced state defers its write until the op's cost is out"),
    (f"{STATE}.set_storage", "e01a981cd3e7b878", INTERPRETER, "overridden: held back during SSTORE"),
    (f"{STATE}.delta_balance", "6dd13ebb421a549d", INTERPRETER, "overridden: the pending op flushed first"),
    (f"{STATE}.set_balance", "8171ee1f4b3138b5", INTERPRETER, "overridden: the pending op flushed first"),
    (f"{STATE}.set_code", "fa52d93768a1c55b", INTERPRETER, "overridden: the pending op flushed first"),
    (f"{STATE}.set_nonce", "75c4663e85983eab", INTERPRETER, "overridden: the pending op flushed first"),
    (f"{STATE}.increment_nonce", "5057f6bdb747a4c5", INTERPRETER, "overridden: the pending op flushed first"),
    (f"{STATE}.delete_account", "5833917a7256da68", INTERPRETER, "overridden: the pending op flushed first"),
    (f"{STATE}.delete_storage", "1be4ce51fd220b66", INTERPRETER, "overridden: the pending op flushed first"),
    (f"{STATE}.delete_code", "e734cb4417540b32", INTERPRETER, "overridden: the pending op flushed first"),
    (f"{STATE}.touch_account", "6d92e3f04f824c8b", INTERPRETER, "overridden: the pending op flushed first"),
    ("eth.vm.forks.prague.PragueVM.finalize_gas_used", "be31e6dc5b472cc1", INTERPRETER, "a trace's gas used"),
    ("eth._utils.address.generate_contract_address", "c3d7b6cd30182ed1", INTERPRETER, "imported from _utils"),
    ("eth._utils.address.generate_safe_contract_address", "7c0e750df5986e73", INTERPRETER, "imported from _utils"),
    ("eth._utils.numeric.ceil32", "f34a83c4e4c97afa", f"{INTERPRETER}, {FAST_LOOP}", "imported from _utils"),
    # The fast loop (the inlined opcodes' logic, gas, errors and texts, as py-evm's opcodes have them)
    ("eth.vm.computation.BaseComputation.extend_memory", "c7013e34318c715e", FAST_LOOP, "copied: _expand"),
    ("eth.vm.computation.memory_gas_cost", "c3b642e1e80106d0", FAST_LOOP, "called by _expand"),
    ("eth.vm.computation.BaseComputation.__exit__", "ee343916f535e16c", FAST_LOOP,
     "the VMErrors the loop raises are its to record and burn gas for"),
    ("eth.vm.logic.flow", "d00b5223a61badae", FAST_LOOP, "JUMP, JUMPI, JUMPDEST, PC, GAS, STOP inlined"),
    ("eth.vm.logic.stack", "c8cc735bcfc63941", FAST_LOOP, "PUSH, POP, DUP, SWAP inlined"),
    ("eth.vm.logic.arithmetic", "7c059c82178fc480", FAST_LOOP, "ADD, MUL, SUB, SHL, SHR inlined"),
    ("eth.vm.logic.comparison", "a015f294ef5b7b5e", FAST_LOOP, "LT, GT, EQ, ISZERO, AND, OR, XOR, NOT inlined"),
    ("eth.vm.logic.memory", "711f49474c597362", FAST_LOOP, "MLOAD, MSTORE, MSTORE8, MSIZE inlined"),
    ("eth.vm.logic.sha3", "e25f140e8c734bcc", FAST_LOOP, "KECCAK256 inlined"),
    ("the Prague opcode table", "023033634510106d", OPCODES, "geth's names and stack bounds given for each op"),
    # The fast loop's CALL family (py-evm's call opcodes, their gas and code lookups, the child steps, run as one)
    ("eth.vm.logic.call", "cc1fb9ff42da48ad", FAST_CALLS, "BaseCall.__call__ and its kinds' params and gas copied"),
    ("eth.vm.forks.berlin.logic", "3f964a91fc10c342", FAST_CALLS, "EIP-2929's account load copied"),
    ("eth.vm.forks.prague.logic", "d7190de9b447c14d", FAST_CALLS, "EIP-7702's delegated code lookup copied"),
    ("eth._utils.state.code_is_delegation_designation", "0a13f09cbf9124b9", FAST_CALLS, "imported from _utils"),
    ("eth.vm.computation.BaseComputation.apply_child_computation", "6d7815d597667eba", FAST_CALLS, "stood in for"),
    ("eth.vm.computation.BaseComputation.generate_child_computation", "a0de50b8133eb61e", FAST_CALLS,
     "stood in for"),
    ("eth.vm.computation.BaseComputation.add_child_computation", "203aa0c96042ff88", FAST_CALLS, "copied"),
    ("eth.vm.computation.BaseComputation.prepare_child_message", "9cc15625ca13758d", f"{FAST_CALLS}, {NATIVE_STATE}",
     "its Message built without Message's checks"),
    ("eth.vm.message.Message", "e8a6c2ee5840992a", FAST_CALLS, "built by setting its slots"),
    (f"{COMPUTATION}.apply_message", "8f0e47000267d991", FAST_CALLS, "a call's child frame: _frame copies it"),
    ("eth.vm.computation.BaseComputation.__init__", "25808b277252c73d", FAST_CALLS, "_frame builds a frame as it does"),
    ("the Prague precompiles' modules", "5e49b863a59a3e10", FAST_CALLS,
     "run as pure (they read only their input and gas, write only their output): no snapshot, value moved after"),
    ("eth.vm.computation.BaseComputation.__exit__", "ee343916f535e16c", FAST_CALLS,
     "_frame records a VMError as it does"),
    ("eth.vm.forks.istanbul.computation.IstanbulComputation._configure_gas_meter", "31095c751341e06d", FAST_CALLS,
     "_frame builds the gas meter as it does"),
    ("eth.vm.forks.berlin.logic.sload_eip2929", "541979ecae663928", FAST_LOOP, "SLOAD inlined"),
    ("SSTORE logic", "6d38968f09ec320b", FAST_LOOP, "SSTORE inlined: its checks, gas, refunds and texts in order"),
    ("eth.vm.logic.storage.net_sstore", "46aa187f12c1cbcf", FAST_LOOP, "SSTORE inlined"),
    ("eth.vm.forks.istanbul.storage.sstore_eip2200_generic", "674eed70321cdfad", FAST_LOOP, "SSTORE inlined"),
    ("eth.vm.forks.berlin.logic.sstore_eip2929_generic", "ee99701e1ae71a43", FAST_LOOP, "SSTORE inlined"),
    ("eth.vm.forks.london.storage", "859bdbe0d02a5cf7", FAST_LOOP, "SSTORE inlined with EIP-3529's schedule"),
    ("eth.vm.forks.byzantium.opcodes.ensure_no_static", "7096f77f7fc0b582", FAST_LOOP,
     "SSTORE's and LOG's static check and text copied"),
    ("eth.vm.logic.logging", "8a4597248991582c", FAST_LOOP, "LOG0..LOG4 inlined: pops, gas, memory and entry in order"),
    ("eth.vm.logic.system.return_op", "e58b11b1b6b9a2b4", FAST_LOOP, "RETURN inlined"),
    ("eth.vm.logic.system.revert", "9ed712b5f68f79a6", FAST_LOOP, "REVERT inlined"),
    ("eth.vm.opcode._FastOpcode", "e34dd74ba19f3e22", FAST_LOOP, "an opcode's base gas charged before its logic"),
    ("eth.vm.computation.BaseComputation.add_log_entry", "274eaf5b03d9ec8d", FAST_LOOP,
     "copied without its checks (the loop's address, topics and data are valid): _log_entries appended"),
    ("eth.vm.computation.BaseComputation.output", "47ecc4b88c1318e2", FAST_LOOP, "set by RETURN and REVERT"),
    ("eth.vm.transaction_context.BaseTransactionContext.get_next_log_counter", "9f73601eea60c0ee", FAST_LOOP,
     "a log entry's counter"),
    ("eth.vm.logic.context", "004493042c6daafe", FAST_LOOP,
     "ADDRESS, CALLER, CALLVALUE, CALLDATALOAD, CALLDATASIZE inlined"),
    ("eth.vm.computation.BaseComputation.get_gas_refund", "b10fa0f238aa008e", NATIVE_STATE, "copied, its sum a loop"),
    ("eth.vm.computation.BaseComputation.get_accounts_for_deletion", "91804abd008d2c92", NATIVE_STATE,
     "copied as a loop, a child leaf without its own not asked"),
    ("eth.vm.computation.BaseComputation.get_self_destruct_beneficiaries", "8667f82edc8cffd2", NATIVE_STATE,
     "copied as a loop, a child leaf without its own not asked"),
    ("eth.vm.forks.prague.state.PragueTransactionExecutor.finalize_computation", "c8807f4854b9e3b3", NATIVE_STATE,
     "SpuriousDragon's, copied: NativeTransactionExecutor's"),
    ("eth.vm.forks.frontier.state.FrontierTransactionExecutor.finalize_computation", "0fe322991e3366fc", NATIVE_STATE,
     "called first by NativeTransactionExecutor's, as SpuriousDragon's calls it"),
    ("eth.vm.forks.spurious_dragon._utils.collect_touched_accounts", "eb6e742021011130", NATIVE_STATE,
     "copied as a loop: touched_accounts"),
    ("eth.vm.computation.BaseComputation.get_raw_log_entries", "49607060c25e527b", NATIVE_STATE,
     "a leaf frame's answered at once"),
    ("eth.vm.state.BaseState.is_address_warm", "c6ddba4f8e4e1cb3", NATIVE_STATE,
     "inlined in NativeState.is_address_warm"),
    ("eth.db.account.AccountDB.record", "79eeee0087c1f628", ACCOUNTS, "copied: FastAccountDB.record"),
    ("eth.db.journal.Journal.record_checkpoint", "cba03dcd8e707a17", ACCOUNTS,
     "record_journal opens a checkpoint as it does"),
    # The account store
    ("eth.db.account.AccountDB", "ca02c6cf948ff51c", f"{ACCOUNTS}, {PENDING_TRIE}, {COMMITTED}",
     "subclassed through its private methods and attributes; make_state_root and persist rewritten"),
    ("eth.db.storage.AccountStorageDB.make_storage_root", "914281103c20ded1", ACCOUNTS,
     "called by the rewritten make_state_root"),
    ("eth.db.storage.AccountStorageDB.persist", "33449e9119df49f8", ACCOUNTS, "called by the rewritten persist"),
    ("eth.db.journal.JournalDB.diff", "3513fe121d3931fa", f"{ACCOUNTS}, {PENDING_TRIE}",
     "the account trie journal's pending writes read"),
    ("eth.db.backends.base.BaseDB", "42da0f9497afb489", PENDING_TRIE, "subclassed with _exists"),
    ("eth.vm.state.BaseState.__init__", "b38f19e64d61e46f", f"{PENDING_TRIE}, chaind/api/simulate.py",
     "_account_db read"),
    # The chain's EVM state
    (f"{STATE}.set_system_contracts", "7a86c8e7bd0fd475", NATIVE_STATE, "overridden to do nothing"),
    (f"{STATE}.snapshot", "0923da52cd92b51c", NATIVE_STATE, "extended with the native store's checkpoint"),
    (f"{STATE}.revert", "fc870ac29ca92f61", NATIVE_STATE, "extended with the native store's revert"),
    (f"{STATE}.commit", "1db7e50fa07d6808", NATIVE_STATE, "extended with the native store's commit"),
    ("eth.vm.state.BaseState.snapshot", "52eef4655c692c1d", NATIVE_STATE, "copied with CancunState's"),
    ("eth.vm.state.BaseState.revert", "fef6b49f5fe5df86", NATIVE_STATE, "copied with CancunState's"),
    ("eth.vm.state.BaseState.commit", "e74c2ae656ba0551", NATIVE_STATE, "copied with CancunState's"),
    ("eth.vm.transient_storage.TransientStorage", "7128523bc46876eb", NATIVE_STATE, "its journal committed directly"),
    ("eth.db.journal.Journal.commit_checkpoint", "7ab3e5110c681c5d", ACCOUNTS,
     "commit_journal drops the newest checkpoint as it does"),
    (f"{STATE}.is_address_warm", "c6ddba4f8e4e1cb3", f"{NATIVE_STATE}, chaind/api/simulate.py", "extended"),
    ("eth.vm.computation.BaseComputation.get_precompiles", "808daca1c258a1da", PRECOMPILE_SETS,
     "_precompiles read as the fork's fixed precompiles"),
    ("eth.vm.computation.BaseComputation.precompiles", "5fc870811fcf40f5", NATIVE_STATE, "overridden"),
    # Not py-evm's own, but the same kind of reach: rlp's private cache on a decoded object
    ("rlp.sedes.serializable.Serializable", "3dbc1117dd7b9cd8", DECODE,
     "_cached_rlp set on a tx decoded by hand, as rlp.decode leaves it"),
)


def _opcode_classes():
    """The source of every class (py-evm's) of the Prague CALL and CREATE opcodes the traced interpreter swaps."""
    from chaind.tracing import opcodes as ops
    from chaind.tracing import traced_interpreter
    opcodes = _resolve(COMPUTATION).opcodes
    parts = []
    for value in sorted(ops.CALL_OPS | ops.CREATE_OPS):
        for cls in type(traced_interpreter._unwrap(opcodes[value])).__mro__:
            if cls.__module__.startswith("eth."):
                parts.append(f"{value:#x} {cls.__module__}.{cls.__qualname__}\n{inspect.getsource(cls)}")
    return "\n".join(parts)


def _sstore_logic():
    fn = _resolve(COMPUTATION).opcodes[0x55].logic_fn
    return _source(inspect.unwrap(fn))


def _opcode_table():
    from chaind.tracing import traced_interpreter
    table = _resolve(COMPUTATION).opcodes
    return repr(sorted((value, traced_interpreter._unwrap(fn).mnemonic) for value, fn in table.items()))


def _precompile_modules():
    """The source of each module that defines one of Prague's precompiles."""
    modules = {}
    for fn in _resolve(COMPUTATION)._precompiles.values():
        while not inspect.isfunction(fn) and hasattr(fn, "func"):     # toolz's curry
            fn = fn.func
        module = inspect.getmodule(fn)
        modules[module.__name__] = module
    return "\n".join(_source(modules[name]) for name in sorted(modules))


COMPUTED = {"call and create opcode classes": _opcode_classes, "SSTORE logic": _sstore_logic,
            "the Prague opcode table": _opcode_table, "the Prague precompiles' modules": _precompile_modules}


def _resolve(dotted):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name)
        return found
    raise ImportError(dotted)


def _source(found):
    if isinstance(found, property):
        found = found.fget
    bound = ""
    while not inspect.isfunction(found) and hasattr(found, "func"):     # toolz's curry, functools.partial
        bound += repr(getattr(found, "args", ()))
        found = found.func
    found = getattr(found, "__func__", found)
    if inspect.ismodule(found):
        return f"{found.__name__}\n{inspect.getsource(found)}"
    return f"{found.__module__}.{found.__qualname__}{bound}\n{inspect.getsource(found)}"


def fingerprint(what):
    text = COMPUTED[what]() if what in COMPUTED else _source(_resolve(what))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def test_the_installed_py_evm_is_the_release_the_fingerprints_were_taken_at():
    installed = importlib.metadata.version("py-evm")
    pinned = [r for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
              if r.startswith("py-evm")]
    assert pinned == [f"py-evm=={WRITTEN_FOR}"], \
        f"pyproject.toml has {pinned}; chaind reaches into py-evm {WRITTEN_FOR}'s internals and needs its exact pin"
    assert installed == WRITTEN_FOR, (
        f"py-evm {installed} is installed; chaind's tracing and account store were written against {WRITTEN_FOR}'s "
        f"internals: run this file's fingerprints against {installed} and revisit the files they name")


@pytest.mark.parametrize("what, recorded, revisit, how", RELIED_ON, ids=[entry[0] for entry in RELIED_ON])
def test_what_chaind_relies_on_in_py_evm_is_unchanged(what, recorded, revisit, how):
    now = fingerprint(what)
    owner = "rlp" if what.startswith("rlp.") else "py-evm"
    assert now == recorded, (
        f"{owner}'s {what} changed: {revisit} relies on it ({how}). Read the new source against that file, fix "
        f"the file, then record the fingerprint {now!r} in tests/test_pyevm_internals.py")


def test_every_file_to_revisit_exists():
    for _, _, revisit, _ in RELIED_ON:
        for path in revisit.split(", "):
            assert (ROOT / path).is_file(), f"RELIED_ON names {path}, which is gone: name the file that took it over"


def private_imports():
    """{"eth._module.name": file} for every name chaind imports from a private py-evm module."""
    found = {}
    for path in sorted((ROOT / "chaind").rglob("*.py")):
        if "pb" in path.relative_to(ROOT / "chaind").parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module.split(".")[0] == "eth" \
                    and any(part.startswith("_") for part in node.module.split(".")):
                for alias in node.names:
                    found[f"{node.module}.{alias.name}"] = str(path.relative_to(ROOT))
    return found


def test_every_name_imported_from_a_private_py_evm_module_is_fingerprinted():
    listed = {entry[0] for entry in RELIED_ON}
    imports = private_imports()
    assert imports, "the walk finds the eth._utils imports"
    missing = {name: where for name, where in imports.items() if name not in listed}
    assert missing == {}, f"add these to RELIED_ON, with the file that uses each: {missing}"
