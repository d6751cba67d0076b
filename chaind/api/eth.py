"""The eth_* method table: reads at a height, calls, and sending txs into the mempool."""

from eth.vm.spoof import SpoofTransaction
from eth_utils import ValidationError, keccak
from twisted.internet import threads

from chaind.api import encoding as enc
from chaind.api import params as p
from chaind.chain import errors as chain_errors
from chaind.chain import txs as txcodec
from chaind.chain.app import PrunedError
from chaind.chain.modules import evm as evm_module
from chaind.rpc.errors import EXECUTION_REVERTED, RPCError, server_error
from chaind.store.evm_state import pending_state_db


class EthApi:
    def __init__(self, node):
        self.node = node
        self.app = node.app

    def methods(self):
        return {
            "eth_chainId": lambda params: enc.q(self.app.genesis.evm_chain_id),
            "eth_blockNumber": lambda params: enc.q(self.app.height),
            "eth_syncing": lambda params: False,
            "eth_gasPrice": self.gas_price,
            "eth_maxPriorityFeePerGas": lambda params: "0x0",
            "eth_accounts": lambda params: [enc.addr(k.address) for k in self.node.dev_keys],
            "eth_coinbase": lambda params: enc.addr(self.node.validator_operator),
            "eth_mining": lambda params: False,
            "eth_hashrate": lambda params: "0x0",
            "eth_getBalance": self.get_balance,
            "eth_getTransactionCount": self.get_transaction_count,
            "eth_getCode": self.get_code,
            "eth_getStorageAt": self.get_storage_at,
            "eth_getBlockByNumber": self.get_block_by_number,
            "eth_getBlockByHash": self.get_block_by_hash,
            "eth_getBlockTransactionCountByNumber": self.count_by_number,
            "eth_getBlockTransactionCountByHash": self.count_by_hash,
            "eth_getTransactionByHash": self.get_transaction_by_hash,
            "eth_getTransactionReceipt": self.get_transaction_receipt,
            "eth_getBlockReceipts": self.get_block_receipts,
            "eth_sendRawTransaction": self.send_raw_transaction,
            "eth_call": self.call,
            "eth_estimateGas": self.estimate_gas,
        }

    # -- state at a height ------------------------------------------------------------------------

    def _view(self, params, index):
        height = p.block_number_or_hash(p.arg(params, index, required=False, default="latest"), index, self.app)
        try:
            return self.app.view(height)
        except PrunedError as e:
            raise server_error(str(e)) from None
        except LookupError:
            raise server_error("header not found") from None

    def _account(self, params, count):
        """The address argument (0) of an account read taking at most `count` params."""
        p.at_most(params, count)
        return p.address(p.arg(params, 0), 0)

    def get_balance(self, params):
        address = self._account(params, 2)
        return enc.q(self._view(params, 1).accounts.get_balance(address))

    def get_transaction_count(self, params):
        address = self._account(params, 2)
        if p.arg(params, 1, required=False) == "pending":
            state_nonce = self.app.view().accounts.get_nonce(address)
            return enc.q(self.node.mempool.pending_nonce(address, state_nonce))
        return enc.q(self._view(params, 1).accounts.get_nonce(address))

    def get_code(self, params):
        address = self._account(params, 2)
        return enc.d(self._view(params, 1).accounts.get_code(address))

    def get_storage_at(self, params):
        address = self._account(params, 3)
        slot = p.arg(params, 1)
        key = p.quantity(slot, 1, "hash") if isinstance(slot, str) and len(slot) < 66 else \
            int.from_bytes(p.block_hash(slot, 1), "big")
        value = self._view(params, 2).accounts.get_storage(address, key)
        return enc.d(value.to_bytes(32, "big"))

    def gas_price(self, params):
        return enc.q(self.app.next_base_fee())

    # -- blocks and txs ---------------------------------------------------------------------------

    def _block_json(self, height, full):
        found = self.app.block_at(height)
        if found is None or height < self.app.genesis.initial_height:
            return None
        return enc.block(self.app, found[0], found[1], full)

    def get_block_by_number(self, params):
        p.at_most(params, 2)
        height = p.block_number(p.arg(params, 0), 0, self.app)
        return self._block_json(height, bool(p.arg(params, 1, required=False, default=False)))

    def get_block_by_hash(self, params):
        p.at_most(params, 2)
        height = self.app.height_of_hash(p.block_hash(p.arg(params, 0), 0))
        return None if height is None else self._block_json(height, bool(p.arg(params, 1, False, False)))

    def _evm_count(self, height):
        found = self.app.block_at(height)
        if found is None:
            return None
        return enc.q(sum(1 for i in range(found[1].num_txs) if self.app.result_at(height, i).receipt))

    def count_by_number(self, params):
        return self._evm_count(p.block_number(p.arg(params, 0), 0, self.app))

    def count_by_hash(self, params):
        height = self.app.height_of_hash(p.block_hash(p.arg(params, 0), 0))
        return None if height is None else self._evm_count(height)

    def _located(self, evm_hash):
        position = self.app.tx_position(evm_hash, evm=True)
        if position is None:
            return None
        height, index = position
        header, meta = self.app.block_at(height)
        tx = txcodec.decode(self.app.tx_at(height, index), self.app.genesis.evm_chain_id)
        return tx, header, meta, index, self.app.result_at(height, index)

    def get_transaction_by_hash(self, params):
        p.at_most(params, 1)
        evm_hash = p.block_hash(p.arg(params, 0), 0)
        found = self._located(evm_hash)
        if found is not None:
            return enc.transaction(*found)
        pending = self.node.mempool.get(evm_hash=evm_hash)
        return None if pending is None else enc.transaction(pending)

    def get_transaction_receipt(self, params):
        p.at_most(params, 1)
        found = self._located(p.block_hash(p.arg(params, 0), 0))
        return None if found is None else enc.receipt(*found)

    def get_block_receipts(self, params):
        p.at_most(params, 1)
        height = p.block_number_or_hash(p.arg(params, 0), 0, self.app)
        found = self.app.block_at(height)
        if found is None:
            return None
        header, meta = found
        out = []
        for index in range(meta.num_txs):
            result = self.app.result_at(height, index)
            if result.receipt is not None:
                tx = txcodec.decode(self.app.tx_at(height, index), self.app.genesis.evm_chain_id)
                out.append(enc.receipt(tx, header, meta, index, result))
        return out

    # -- sending ---------------------------------------------------------------------------------

    def send_raw_transaction(self, params):
        p.at_most(params, 1)
        raw_evm = p.data(p.arg(params, 0), 0)
        d = self.node.producer.submit_eth(raw_evm)
        d.addCallbacks(lambda checked: enc.d(checked.evm_hash), _tx_error)
        return d

    # -- calls ---------------------------------------------------------------------------------

    def call(self, params):
        p.at_most(params, 3)
        call = p.arg(params, 0)
        view = self._view(params, 1)
        return threads.deferToThreadPool(self.node.reactor, self.node.call_pool, self._execute, call, view,
                                         self.node.settings.json_rpc.gas_cap).addCallback(self._call_result)

    def _call_result(self, computation):
        if computation.is_error:
            raise _revert_error(computation)
        return enc.d(computation.output)

    def estimate_gas(self, params):
        p.at_most(params, 3)
        call = p.arg(params, 0)
        view = self._view(params, 1)
        cap = self.node.settings.json_rpc.gas_cap
        if "gas" in call and call["gas"] is not None:
            cap = min(cap, p.quantity(call["gas"], 0))
        return threads.deferToThreadPool(self.node.reactor, self.node.call_pool, self._estimate, call, view, cap)

    def _estimate(self, call, view, cap):
        computation = self._execute(call, view, cap)
        if computation.is_error:
            raise _revert_error(computation)
        low, high = 21000 - 1, cap
        used = cap - computation.get_gas_remaining()
        if used > low:
            low = used - 1
        while low + 1 < high:
            mid = (low + high) // 2
            if self._execute(call, view, mid, gas=mid).is_error:
                low = mid
            else:
                high = mid
        return enc.q(high)

    def _execute(self, call, view, cap, gas=None):
        """Run a call object on a throwaway copy of the state at `view`."""
        if not isinstance(call, dict):
            raise RPCError(-32602, "invalid argument 0: call object expected")
        sender = p.address(call["from"], 0) if call.get("from") else bytes(20)
        to = p.address(call["to"], 0) if call.get("to") else b""
        data = p.data(call.get("input") or call.get("data") or "0x", 0)
        value = p.quantity(call["value"], 0) if call.get("value") else 0
        if gas is None:
            gas = p.quantity(call["gas"], 0) if call.get("gas") else cap
        if cap and gas > cap:
            gas = cap
        header, meta = self.app.block_at(view.height)
        _, atomic = pending_state_db(self.app.db)
        from eth.vm.execution_context import ExecutionContext

        context = ExecutionContext(coinbase=evm_module.FEE_COLLECTOR, timestamp=header.time_ns // 10**9,
                                   block_number=view.height, difficulty=0, mix_hash=bytes(32),
                                   gas_limit=max(gas, meta.gas_limit), prev_hashes=(), chain_id=self.app.genesis.evm_chain_id,
                                   base_fee_per_gas=0, excess_blob_gas=0)
        state = evm_module.STATE_CLASS(atomic, context, meta.evm_state_root)
        builder = evm_module.VM.get_transaction_builder()
        unsigned = builder.create_unsigned_transaction(
            nonce=state.get_nonce(sender), gas_price=0, gas=gas, to=to, value=value, data=data)
        try:
            return state.apply_transaction(SpoofTransaction(unsigned, from_=sender))
        except ValidationError as e:
            raise server_error(str(e)) from None


def _revert_error(computation):
    output = computation.output
    if type(computation.error).__name__ == "Revert":
        reason = _revert_reason(output)
        message = "execution reverted" + (f": {reason}" if reason else "")
        return RPCError(EXECUTION_REVERTED, message, enc.d(output))
    return server_error(evm_module._vm_error(computation))


def _revert_reason(output):
    """The string of an Error(string) revert, if it is one."""
    if output[:4] != keccak(b"Error(string)")[:4] or len(output) < 68:
        return None
    try:
        length = int.from_bytes(output[36:68], "big")
        return output[68:68 + length].decode()
    except (UnicodeDecodeError, ValueError):
        return None


def _tx_error(failure):
    failure.trap(chain_errors.TxError)
    e = failure.value
    raise server_error(e.evm_message or e.log)
