"""eth_simulateV1 as geth serves it: blocks of calls, each block with its own overrides, run one after
the other on a throwaway copy of a committed state; each answered as a block with its calls' results.

Runs on the call pool under the [json-rpc] evm-timeout, its calls sharing one gas-cap budget; the limits
are geth's, as settings. Errors that stop the whole simulation carry execution-apis' codes (-38010 ...).
"""

import time
import types

import rlp
from eth.vm.execution_context import ExecutionContext
from eth.vm.spoof import SpoofTransaction
from eth_bloom import BloomFilter
from eth_utils import keccak
from trie import HexaryTrie

from chaind import errors
from chaind.api import calls
from chaind.api import encoding as enc
from chaind.api import params as p
from chaind.chain.modules import auth, erc20, feemarket
from chaind.chain.modules.evm.vm import VM, vm_error
from chaind.store.evm_state import pending_state_db
from chaind.store.versioned import VersionedWriter
from chaind.tracing import traced_interpreter
from chaind.tracing.tracer import Tracer

# execution-apis' eth_simulateV1 error codes, as geth answers them.
NONCE_TOO_LOW = -38010
NONCE_TOO_HIGH = -38011
BASE_FEE_TOO_LOW = -38012
INTRINSIC_GAS = -38013
INSUFFICIENT_FUNDS = -38014
BLOCK_GAS_LIMIT_REACHED = -38015
BLOCK_NUMBER_INVALID = -38020
BLOCK_TIMESTAMP_INVALID = -38021
MAX_INIT_CODE_SIZE = -38025
CLIENT_LIMIT_EXCEEDED = -38026
VM_ERROR = -32015
REVERTED = 3

TIMESTAMP_INCREMENT = 12            # seconds between simulated blocks whose time is not given (geth's)
MAX_INIT_CODE_SIZE_BYTES = 49152    # EIP-3860
# ERC-7528's address for the native coin, and ERC-20's Transfer topic: traceTransfers' pseudo-logs.
TRANSFER_ADDRESS = bytes.fromhex("eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee")
TRANSFER_TOPIC = keccak(b"Transfer(address,address,uint256)")

_OPTIONS = {"blockStateCalls", "traceTransfers", "validation", "returnFullTransactions"}
_BLOCK_KEYS = {"blockOverrides", "stateOverrides", "calls"}
_CALL_KEYS = {"from", "to", "gas", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas", "value", "nonce", "data",
              "input", "accessList", "chainId", "type"}
_BLOCK_OVERRIDES = {"number", "time", "gasLimit", "feeRecipient", "prevRandao", "difficulty", "baseFeePerGas",
                    "withdrawals", "blobBaseFee", "beaconRoot"}


def _error(code, message, kind=errors.Kind.FAILED):
    return errors.ChainError(kind, message, code=code)


class Simulator:
    """settings: [json-rpc]; runner: the CallRunner whose evm-timeout the simulation runs under."""

    def __init__(self, app, settings, runner):
        self.app = app
        self.settings = settings
        self.runner = runner

    def parse(self, params):
        """(options, blocks) of eth_simulateV1's first argument, every limit checked before any work."""
        opts = p.arg(params, 0)
        if not isinstance(opts, dict):
            raise errors.invalid_argument("invalid argument 0: simulation options must be an object")
        _known(opts, _OPTIONS, "simulation option")
        blocks = opts.get("blockStateCalls")
        if blocks is None or blocks == []:
            raise errors.invalid_argument("empty input")
        if not isinstance(blocks, list):
            raise errors.invalid_argument("invalid argument 0: blockStateCalls must be an array")
        if len(blocks) > self.settings.simulate_max_blocks:
            raise _error(CLIENT_LIMIT_EXCEEDED, "too many blocks")
        flags = {}
        for name in ("traceTransfers", "validation", "returnFullTransactions"):
            value = opts.get(name, False)
            if not isinstance(value, bool):
                raise errors.invalid_argument(f"invalid argument 0: {name} must be a boolean")
            flags[name] = value
        parsed, total = [], 0
        for block in blocks:
            if not isinstance(block, dict):
                raise errors.invalid_argument("invalid argument 0: each of blockStateCalls must be an object")
            _known(block, _BLOCK_KEYS, "block state call field")
            block_calls = block.get("calls") or []
            if not isinstance(block_calls, list):
                raise errors.invalid_argument("invalid argument 0: calls must be an array")
            if len(block_calls) > self.settings.simulate_max_calls_per_block:
                raise _error(CLIENT_LIMIT_EXCEEDED, f"too many calls in block: {len(block_calls)} > "
                                                    f"{self.settings.simulate_max_calls_per_block}")
            total += len(block_calls)
            if total > self.settings.simulate_max_calls:
                raise _error(CLIENT_LIMIT_EXCEEDED, f"too many calls: {total} > {self.settings.simulate_max_calls}")
            overrides = _block_overrides(block.get("blockOverrides"), flags["validation"])
            state = calls.parse_overrides(block.get("stateOverrides"), 0, moves=True)
            parsed.append((overrides, state, [_call(c) for c in block_calls]))
        return flags, parsed

    def run(self, flags, blocks, view):
        """The simulated blocks as JSON objects (call pool thread)."""
        try:
            with self.runner.under_timeout():
                return _Run(self.app, self.settings, flags, view).blocks(blocks)
        except traced_interpreter.TraceTimeout:      # traceTransfers runs traced, under the same deadline
            raise errors.timeout(f"execution aborted (timeout = {self.settings.evm_timeout:g}s)") from None


class _Run:
    def __init__(self, app, settings, flags, view):
        self.app = app
        self.validate = flags["validation"]
        self.trace_transfers = flags["traceTransfers"]
        self.full = flags["returnFullTransactions"]
        self.budget = settings.gas_cap or None
        self.max_blocks = settings.simulate_max_blocks
        self.deadline = time.monotonic() + settings.evm_timeout if settings.evm_timeout else None
        self.chain_id = app.genesis.evm_chain_id
        self.base_header, self.base_meta = app.block_at(view.height)
        self.fee_params = app.keepers["feemarket"].params(view)
        # On the head, the first block's base fee is the one the chain's next block will have (a dev node's
        # override or a MsgUpdateParams included).
        self.head_base_fee = app.next_base_fee() if view.height == app.height else None
        _, atomic = pending_state_db(app.db)
        context = self._context(view.height, self.base_header.time_ns // 10**9, self.base_meta.gas_limit,
                                auth.FEE_COLLECTOR, bytes(32), 0, 0, ())
        self.state = erc20.open_state(app, VersionedWriter(app.db, view.height + 1), _SimState, atomic, context,
                                      self.base_meta.evm_state_root)

    def _context(self, number, timestamp, gas_limit, coinbase, mix_hash, difficulty, base_fee, ancestors):
        return ExecutionContext(coinbase=coinbase, timestamp=timestamp, block_number=number, difficulty=difficulty,
                                mix_hash=mix_hash, gas_limit=gas_limit, prev_hashes=ancestors,
                                chain_id=self.chain_id, base_fee_per_gas=base_fee, excess_blob_gas=0)

    def blocks(self, blocks):
        blocks = self._sanitize(blocks)
        out = []
        # The base block's gas as x/feemarket counts it; a simulated block's is its gas used, as geth's.
        parent = {"number": self.base_header.height, "hash": self.base_meta.hash,
                  "base_fee": self.base_meta.base_fee, "gas_used": self.base_meta.block_gas,
                  "gas_limit": self.base_meta.gas_limit}
        hashes = []     # of the simulated blocks so far, for BLOCKHASH
        for overrides, state_overrides, block_calls in blocks:
            block = self._block(overrides, state_overrides, block_calls, parent, hashes)
            out.append(block)
            hashes.append(bytes.fromhex(block["hash"][2:]))
            parent = {"number": int(block["number"], 16), "hash": hashes[-1],
                      "base_fee": int(block["baseFeePerGas"], 16), "gas_used": int(block["gasUsed"], 16),
                      "gas_limit": int(block["gasLimit"], 16)}
        return out

    def _sanitize(self, blocks):
        """geth's sanitizeChain: numbers and times given or one step on, strictly increasing; gaps in the
        numbers filled with empty blocks; at most simulate-max-blocks past the base."""
        out = []
        number, time = self.base_header.height, self.base_header.time_ns // 10**9
        base = number
        for overrides, state_overrides, block_calls in blocks:
            overrides = dict(overrides)
            wanted = overrides.setdefault("number", number + 1)
            if wanted <= number:
                raise _error(BLOCK_NUMBER_INVALID, f"block numbers must be in order: {wanted} <= {number}")
            if wanted - base > self.max_blocks:
                raise _error(CLIENT_LIMIT_EXCEEDED, "too many blocks")
            for gap in range(number + 1, wanted):
                time += TIMESTAMP_INCREMENT
                out.append(({"number": gap, "time": time}, {}, []))
            number = wanted
            if "time" not in overrides:
                overrides["time"] = time + TIMESTAMP_INCREMENT
            elif overrides["time"] <= time:
                raise _error(BLOCK_TIMESTAMP_INVALID,
                             f"block timestamps must be in order: {overrides['time']} <= {time}")
            time = overrides["time"]
            out.append((overrides, state_overrides, block_calls))
        return out

    def _block(self, overrides, state_overrides, block_calls, parent, hashes):
        number, timestamp = overrides["number"], overrides["time"]
        gas_limit = overrides.get("gasLimit", self.base_meta.gas_limit)
        if "baseFeePerGas" in overrides:
            base_fee = overrides["baseFeePerGas"]
        elif self.validate:
            if parent["number"] == self.base_header.height and self.head_base_fee is not None:
                base_fee = self.head_base_fee
            else:
                base_fee = feemarket.next_base_fee(self.fee_params, parent["base_fee"], parent["gas_used"],
                                                   parent["gas_limit"])
        else:
            base_fee = 0    # geth: without validation, a call may pay less than the base fee
        coinbase = overrides.get("feeRecipient", auth.FEE_COLLECTOR)
        mix_hash = overrides.get("prevRandao", bytes(32))
        state = self.state
        state.execution_context = self._context(number, timestamp, gas_limit, coinbase, mix_hash,
                                                overrides.get("difficulty", 0), base_fee,
                                                _Ancestors(self.app, hashes, self.base_header.height))
        state.moved_precompiles = self._move_precompiles(state_overrides)
        calls.apply_overrides(state, state_overrides)
        state.lock_changes()

        used, log_index = 0, 0
        results, txs, receipts, bloom = [], [], [], BloomFilter()
        for index, call in enumerate(block_calls):
            tx, shown, sender = self._transaction(call, gas_limit - used, base_fee)
            tx_hash = keccak(shown.encode())
            env = traced_interpreter.tx_env(state, tx, tx_index=index, tx_hash=tx_hash)
            transfers = _Transfers(self.trace_transfers)
            if self.trace_transfers:
                computation = traced_interpreter.trace_transaction(state, tx, transfers, env, deadline=self.deadline)
            else:
                computation = state.apply_transaction(tx)
            state.lock_changes()
            gas_used = VM.finalize_gas_used(tx, computation)
            used += gas_used
            if self.budget is not None:
                if gas_used > self.budget:
                    raise errors.failed(f"RPC gas cap exhausted: need {gas_used}, remaining {self.budget}")
                self.budget -= gas_used
            logs = transfers.logs if self.trace_transfers else [
                (address, [t.to_bytes(32, "big") for t in topics], data)
                for address, topics, data in computation.get_log_entries()]
            if computation.is_error:
                logs = []
            result = {"returnData": "0x", "logs": [], "gasUsed": enc.q(gas_used),
                      "maxUsedGas": enc.q(tx.gas - computation.get_gas_remaining()),
                      "status": "0x0" if computation.is_error else "0x1"}
            if computation.is_error:
                error = calls.revert_error(computation)
                if error.kind == errors.Kind.REVERTED:
                    result["error"] = {"code": REVERTED, "message": error.message, "data": error.data}
                else:
                    result["error"] = {"code": VM_ERROR, "message": vm_error(computation)}
            else:
                result["returnData"] = enc.d(computation.output)
            result["logs"] = [(address, topics, data, tx_hash, index, log_index + i)
                              for i, (address, topics, data) in enumerate(logs)]
            log_index += len(logs)
            receipt_logs = [] if computation.is_error else [
                (address, list(topics), data) for address, topics, data in computation.get_log_entries()]
            receipt_bloom = BloomFilter()
            for address, topics, _ in receipt_logs:
                receipt_bloom.add(address)
                for topic in topics:
                    receipt_bloom.add(topic.to_bytes(32, "big"))
            bloom |= receipt_bloom
            receipts.append((getattr(shown, "type_id", None) or 0, 0 if computation.is_error else 1, used,
                             receipt_bloom, receipt_logs))
            results.append(result)
            txs.append((shown, sender, tx_hash))
        state_root = state.make_state_root()
        return self._assemble(number, timestamp, gas_limit, coinbase, mix_hash, base_fee, used, parent["hash"],
                              state_root, bloom, txs, receipts, results)

    def _move_precompiles(self, state_overrides):
        """geth's override.Apply for precompiles: a moved one answers at its new address, and any
        overridden precompile address is a plain account for this block."""
        moved, landed = {}, set()
        self.state.moved_precompiles = None
        for address in sorted(state_overrides):
            if address in landed:
                raise errors.failed(f"account {enc.addr(address)} has already been overridden by a precompile")
            target = state_overrides[address].get("movePrecompileToAddress")
            found = moved[address] if address in moved else self.state.precompile_at(address)
            if target is not None:
                if found is None:
                    raise errors.failed(f"account {enc.addr(address)} is not a precompile")
                if target in state_overrides:
                    raise errors.failed(f"account {enc.addr(target)} is already overridden")
                if address in self.app.precompiles or (self.state.native is not None
                                                     and self.state.native.precompile(address) is not None):
                    raise errors.failed(f"account {enc.addr(address)} is a native module's precompile: only the "
                                        f"EVM's own precompiles can be moved")
                moved[target] = found
                landed.add(target)
            if found is not None:
                moved[address] = None
        return moved

    def _transaction(self, call, remaining, base_fee):  # noqa: C901 (geth's checks of a simulated tx, in its order)
        """(tx to run, tx shown in the block, sender): geth's sanitizeCall, CallDefaults and the checks its
        state transition makes before running, each with its execution-apis code."""
        state = self.state
        sender = call["from"]
        nonce = state.get_nonce(sender)
        given_nonce = call.get("nonce", nonce)
        gas = call.get("gas", remaining)
        if remaining < gas:
            raise _error(BLOCK_GAS_LIMIT_REACHED, f"block gas limit reached: remaining: {remaining}, required: {gas}")
        if self.budget is not None and gas > self.budget:
            gas = self.budget
        if "chainId" in call and call["chainId"] != self.chain_id:
            raise errors.failed(f"chainId does not match node's (have={call['chainId']}, want={self.chain_id})")
        legacy = "gasPrice" in call
        if legacy:
            fee_cap = tip = call["gasPrice"]
        else:
            fee_cap, tip = call.get("maxFeePerGas", 0), call.get("maxPriorityFeePerGas", 0)
        to, value, data = call.get("to", b""), call.get("value", 0), call.get("data", b"")
        access_list = call.get("accessList", [])
        address = enc.addr(sender)
        if self.validate:
            if given_nonce < nonce:
                raise _error(NONCE_TOO_LOW, f"nonce too low: address {address}, tx: {given_nonce} state: {nonce}")
            if given_nonce > nonce:
                raise _error(NONCE_TOO_HIGH, f"nonce too high: address {address}, tx: {given_nonce} state: {nonce}")
        if self.validate or fee_cap or tip:
            if tip > fee_cap:
                raise _error(-32602, f"max priority fee per gas higher than max fee per gas: address {address}, "
                                     f"maxPriorityFeePerGas: {tip}, maxFeePerGas: {fee_cap}",
                             errors.Kind.INVALID_ARGUMENT)
            if fee_cap < base_fee:
                raise _error(BASE_FEE_TOO_LOW, f"max fee per gas less than block base fee: address {address}, "
                                               f"maxFeePerGas: {fee_cap}, baseFee: {base_fee}")
        have, want = state.get_balance(sender), gas * fee_cap + value
        if have < want:
            raise _error(INSUFFICIENT_FUNDS, f"insufficient funds for gas * price + value: address {address} "
                                             f"have {have} want {want}")
        builder = VM.get_transaction_builder()
        keys = list(access_list)
        if legacy and not access_list:
            run = builder.create_unsigned_transaction(nonce=nonce, gas_price=fee_cap, gas=gas, to=to, value=value,
                                                      data=data)
            shown = builder.new_transaction(given_nonce, fee_cap, gas, to, value, data, 0, 0, 0)
        elif legacy:
            run = builder.new_unsigned_access_list_transaction(self.chain_id, nonce, fee_cap, gas, to, value, data,
                                                               keys)
            shown = builder.new_access_list_transaction(self.chain_id, given_nonce, fee_cap, gas, to, value, data,
                                                        keys, 0, 0, 0)
        else:
            run = builder.new_unsigned_dynamic_fee_transaction(self.chain_id, nonce, tip, fee_cap, gas, to, value,
                                                               data, keys)
            shown = builder.new_dynamic_fee_transaction(self.chain_id, given_nonce, tip, fee_cap, gas, to, value,
                                                        data, keys, 0, 0, 0)
        tx = SpoofTransaction(run, from_=sender)
        intrinsic = traced_interpreter.tx_env(state, tx).intrinsic_gas
        if gas < intrinsic:
            raise _error(INTRINSIC_GAS, f"intrinsic gas too low: have {gas}, want {intrinsic}")
        if not to and len(data) > MAX_INIT_CODE_SIZE_BYTES:
            raise _error(MAX_INIT_CODE_SIZE, f"max initcode size exceeded: code size {len(data)} limit "
                                             f"{MAX_INIT_CODE_SIZE_BYTES}")
        return tx, shown, sender

    def _assemble(self, number, timestamp, gas_limit, coinbase, mix_hash, base_fee, used, parent_hash, state_root,
                  bloom, txs, receipts, results):
        tx_trie, receipt_trie = HexaryTrie({}), HexaryTrie({})
        pairs = zip(txs, receipts, strict=True)
        for index, ((shown, _, _), (type_id, status, cumulative, receipt_bloom, logs)) in enumerate(pairs):
            key = rlp.encode(index)
            tx_trie[key] = shown.encode()
            body = rlp.encode([status, cumulative, int(receipt_bloom).to_bytes(256, "big"),
                               [[a, [t.to_bytes(32, "big") for t in topics], d] for a, topics, d in logs]])
            receipt_trie[key] = (bytes([type_id]) + body) if type_id else body
        fields = {
            "number": enc.q(number),
            "hash": None,
            "parentHash": enc.d(parent_hash),
            "nonce": "0x0000000000000000",
            "sha3Uncles": enc.EMPTY_UNCLES,
            "logsBloom": enc.d(int(bloom).to_bytes(256, "big")),
            "transactionsRoot": enc.d(tx_trie.root_hash),
            "stateRoot": enc.d(state_root),
            "receiptsRoot": enc.d(receipt_trie.root_hash),
            "miner": enc.addr(coinbase),
            "mixHash": enc.d(mix_hash),
            "difficulty": "0x0",
            "extraData": "0x",
            "gasLimit": enc.q(gas_limit),
            "gasUsed": enc.q(used),
            "timestamp": enc.q(timestamp),
            "baseFeePerGas": enc.q(base_fee),
        }
        header = [int(fields[k], 16) if k in enc.HEADER_QUANTITIES else bytes.fromhex(fields[k][2:])
                  for k in enc.HEADER_RLP]
        block_hash = keccak(rlp.encode(header))
        fields["hash"] = enc.d(block_hash)
        transactions = []
        for index, (shown, sender, tx_hash) in enumerate(txs):
            if not self.full:
                transactions.append(enc.d(tx_hash))
                continue
            type_id = getattr(shown, "type_id", None) or 0
            price = min(shown.max_fee_per_gas, base_fee + shown.max_priority_fee_per_gas) if type_id == 2 else None
            transactions.append(enc.transaction(
                types.SimpleNamespace(evm=shown, sender=sender, evm_hash=tx_hash, type_id=type_id),
                types.SimpleNamespace(height=number), types.SimpleNamespace(hash=block_hash),
                types.SimpleNamespace(receipt=types.SimpleNamespace(tx_index=index, effective_gas_price=price))))
        for result in results:
            result["logs"] = [{"address": enc.addr(address), "topics": [enc.d(t) for t in topics], "data": enc.d(data),
                               "blockNumber": enc.q(number), "blockTimestamp": enc.q(timestamp),
                               "transactionHash": enc.d(tx_hash), "transactionIndex": enc.q(index),
                               "blockHash": enc.d(block_hash), "logIndex": enc.q(log_index), "removed": False}
                              for address, topics, data, tx_hash, index, log_index in result["logs"]]
        encoded = [shown.encode() for shown, _, _ in txs]
        return {**fields, "totalDifficulty": "0x0", "size": enc.q(enc.block_size(fields, encoded)),
                "transactions": transactions, "uncles": [], "calls": results}


class _Moved:
    """A block's precompiles with geth's state-override moves: address -> precompile, or None (gone)."""

    def __init__(self, table, moved):
        self.table = table
        self.moved = moved

    def get(self, address, default=None):
        if address in self.moved:
            found = self.moved[address]
            return default if found is None else found
        return self.table.get(address, default)

    def __contains__(self, address):
        return self.get(address) is not None


class _SimComputation(calls.CALL_STATE_CLASS.computation_class):
    @property
    def precompiles(self):
        table = super().precompiles
        moved = self.state.moved_precompiles
        return _Moved(table, moved) if moved else table


class _SimState(calls.CALL_STATE_CLASS):
    """The call state (deadline-guarded), whose precompiles a block's state overrides may move."""

    computation_class = _SimComputation
    moved_precompiles = None

    def precompile_at(self, address):
        moved = self.moved_precompiles or {}
        if address in moved:
            return moved[address]
        found = self.computation_class._precompiles.get(address)
        if found is None and self.native is not None:
            found = self.native.app.precompiles.get(address) or self.native.precompile(address)
        return found

    def is_address_warm(self, address):
        moved = self.moved_precompiles
        if moved and address in moved:
            return moved[address] is not None or self._account_db.is_address_warm(address)
        return super().is_address_warm(address)


class _Ancestors:
    """A simulated block's prev_hashes (BLOCKHASH): the simulated blocks before it, newest first, then
    the chain's from the base down; iterable again each time py-evm looks."""

    def __init__(self, app, simulated, base_height):
        self.app = app
        self.simulated = list(simulated)
        self.base_height = base_height

    def __iter__(self):
        yield from reversed(self.simulated)
        lowest = max(self.base_height - 256, self.app.genesis.initial_height - 1)
        for height in range(self.base_height, lowest, -1):
            found = self.app.block_at(height)
            if found is None or not found[1].hash:
                return
            yield found[1].hash


class _Transfers(Tracer):
    """geth's simulate log tracer: the logs of the frames that did not revert, and with traceTransfers an
    ERC-7528 Transfer pseudo-log for each move of the native coin (not DELEGATECALL or CALLCODE)."""

    wants_stack = False

    def __init__(self, enabled):
        self.enabled = enabled
        self.frames = [[]]

    @property
    def logs(self):
        return self.frames[0]

    def on_tx_start(self, env, db):
        if env.value:
            self._transfer(env.sender, env.to, env.value)

    def on_enter(self, depth, kind, sender, to, input, gas, value, db):
        self.frames.append([])
        if kind not in ("DELEGATECALL", "CALLCODE") and value:
            self._transfer(sender, to, value)

    def on_log(self, address, topics, data, index):
        self.frames[-1].append((address, list(topics), data))

    def on_exit(self, depth, output, gas_used, error, reverted):
        frame = self.frames.pop()
        if not reverted:
            self.frames[-1].extend(frame)

    def on_tx_end(self, gas_used, output, error, reverted):
        if reverted:
            self.frames[0] = []

    def _transfer(self, sender, to, value):
        if self.enabled:
            self.frames[-1].append((TRANSFER_ADDRESS, [TRANSFER_TOPIC, sender.rjust(32, b"\0"), to.rjust(32, b"\0")],
                                    value.to_bytes(32, "big")))

    def result(self):
        return None


def _known(value, allowed, what):
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise errors.invalid_argument(f"invalid argument 0: unknown {what} {unknown[0]!r}; known: "
                                      f"{', '.join(sorted(allowed))}")


def _block_overrides(value, validate):
    """A simulated block's overrides; the fields this chain has no part for are refused by name."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise errors.invalid_argument("invalid argument 0: blockOverrides must be an object")
    _known(value, _BLOCK_OVERRIDES, "block override")
    out = {}
    for name, raw in value.items():
        if raw is None:
            continue
        if name in ("number", "time", "gasLimit", "difficulty", "baseFeePerGas"):
            out[name] = p.quantity(raw, 0)
        elif name == "feeRecipient":
            out[name] = p.address(raw, 0)
        elif name == "prevRandao":
            out[name] = p.block_hash(raw, 0)
        elif name == "withdrawals":
            if raw != []:
                raise errors.invalid_argument("invalid argument 0: block override 'withdrawals' is not supported: "
                                              "this chain's blocks have no withdrawals")
        else:
            raise errors.invalid_argument(f"invalid argument 0: block override {name!r} is not supported: this "
                                          f"chain's blocks have no blobs and no beacon root")
    if "baseFeePerGas" in out and not validate:
        raise errors.invalid_argument("invalid argument 0: block override 'baseFeePerGas' needs validation: "
                                      "without it calls run with no base fee here")
    return out


def _call(value):
    """A call of a simulated block: geth's TransactionArgs, parsed."""
    if not isinstance(value, dict):
        raise errors.invalid_argument("invalid argument 0: each call must be an object")
    _known(value, _CALL_KEYS, "call field")
    out = {"from": p.address(value["from"], 0) if value.get("from") else bytes(20)}
    if value.get("to"):
        out["to"] = p.address(value["to"], 0)
    for name in ("gas", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas", "value", "nonce", "chainId"):
        if value.get(name) is not None:
            out[name] = p.quantity(value[name], 0)
    given = {name: p.data(value[name], 0) for name in ("input", "data") if value.get(name) is not None}
    if len(given) == 2 and given["input"] != given["data"]:
        raise errors.invalid_argument('both "data" and "input" are set and not equal. Please use "input" to pass '
                                      'transaction call data')
    out["data"] = given.get("input", given.get("data", b""))
    if "gasPrice" in out and ("maxFeePerGas" in out or "maxPriorityFeePerGas" in out):
        raise errors.failed("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified")
    if value.get("accessList") is not None:
        out["accessList"] = calls.access_list_arg(value["accessList"])
    if value.get("type") is not None and p.quantity(value["type"], 0) not in (0, 1, 2):
        raise errors.invalid_argument(f"invalid argument 0: transaction type {value['type']} is not supported here")
    return out
