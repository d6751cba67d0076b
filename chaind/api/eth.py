"""The eth_* method table: reads at a height, calls, and sending txs into the mempool."""


from chaind import errors
from chaind.api import calls, proofs
from chaind.api import encoding as enc
from chaind.api import params as p
from chaind.api.simulate import Simulator
from chaind.chain import errors as chain_errors
from chaind.chain.app import PrunedError
from chaind.chain.modules.evm.results import evm_results

ETH_PROTOCOL_VERSION = 65


class EthApi:
    def __init__(self, app, settings, coinbase, mempool, producer, reactor, call_pool):
        """settings: [json-rpc]; coinbase: the validator operator's address (eth_coinbase)."""
        self.app = app
        self.coinbase = coinbase
        self.mempool = mempool
        self.producer = producer
        self.reactor = reactor
        self.call_pool = call_pool
        self.runner = calls.CallRunner(app, settings.gas_cap, settings.evm_timeout)
        self.simulator = Simulator(app, settings, self.runner)

    def methods(self):
        return {
            "eth_chainId": lambda params: enc.q(self.app.genesis.evm_chain_id),
            "eth_blockNumber": lambda params: enc.q(self.app.height),
            "eth_syncing": lambda params: False,
            "eth_coinbase": lambda params: enc.addr(self.coinbase),
            "eth_mining": lambda params: False,
            "eth_hashrate": lambda params: "0x0",
            # cosmos/evm answers the eth/65 wire protocol's number (types.ProtocolVersion).
            "eth_protocolVersion": lambda params: enc.q(ETH_PROTOCOL_VERSION),
            "eth_getBalance": self.get_balance,
            "eth_getTransactionCount": self.get_transaction_count,
            "eth_getCode": self.get_code,
            "eth_getStorageAt": self.get_storage_at,
            "eth_getBlockByNumber": self.get_block_by_number,
            "eth_getBlockByHash": self.get_block_by_hash,
            "eth_getBlockTransactionCountByNumber": self.count_by_number,
            "eth_getBlockTransactionCountByHash": self.count_by_hash,
            "eth_getTransactionByHash": self.get_transaction_by_hash,
            "eth_getTransactionByBlockNumberAndIndex": self.tx_by_number_and_index,
            "eth_getTransactionByBlockHashAndIndex": self.tx_by_hash_and_index,
            "eth_getTransactionReceipt": self.get_transaction_receipt,
            "eth_getBlockReceipts": self.get_block_receipts,
            "eth_sendRawTransaction": self.send_raw_transaction,
            "eth_getProof": self.get_proof,
            "eth_getUncleCountByBlockNumber": lambda params: self._uncle_count(self._height_by_number(params)),
            "eth_getUncleCountByBlockHash": lambda params: self._uncle_count(self._height_by_hash(params)),
            "eth_getUncleByBlockNumberAndIndex": lambda params: None,
            "eth_getUncleByBlockHashAndIndex": lambda params: None,
            "eth_call": self.call,
            "eth_estimateGas": self.estimate_gas,
            "eth_createAccessList": self.create_access_list,
            "eth_simulateV1": self.simulate,
        }

    # -- state at a height ------------------------------------------------------------------------

    def _view(self, params, index, default="latest"):
        height = p.block_number_or_hash(p.arg(params, index, required=False, default=default), index, self.app)
        try:
            return self.app.view(height)
        except PrunedError as e:
            raise errors.pruned(str(e)) from None
        except LookupError:
            raise errors.not_found("header not found") from None

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
            return enc.q(self.mempool.pending_nonce(address, state_nonce))
        return enc.q(self._view(params, 1).accounts.get_nonce(address))

    def get_code(self, params):
        address = self._account(params, 2)
        return enc.d(self._view(params, 1).accounts.get_code(address))

    def get_storage_at(self, params):
        address = self._account(params, 3)
        slot = proofs.storage_slot(p.arg(params, 1), 1)
        value = self._view(params, 2).accounts.get_storage(address, slot)
        return enc.d(value.to_bytes(32, "big"))

    def get_proof(self, params):
        p.at_most(params, 3)
        address = p.address(p.arg(params, 0), 0)
        slots = p.arg(params, 1)
        if not isinstance(slots, list):
            raise errors.invalid_argument("invalid argument 1: storage keys must be an array")
        keys = [(k, proofs.storage_slot(k, 1)) for k in slots]
        view = self._view(params, 2)
        _, meta = self.app.block_at(view.height)
        return proofs.account_proof(self.app.db, meta.evm_state_root, address, keys)

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

    def _height_by_number(self, params):
        p.at_most(params, 1)
        return p.block_number(p.arg(params, 0), 0, self.app)

    def _height_by_hash(self, params):
        p.at_most(params, 1)
        return self.app.height_of_hash(p.block_hash(p.arg(params, 0), 0))

    def _evm_count(self, height):
        found = None if height is None else self.app.block_at(height)
        if found is None:
            return None
        return enc.q(sum(1 for _ in evm_results(self.app, height, found[1])))

    def count_by_number(self, params):
        return self._evm_count(self._height_by_number(params))

    def count_by_hash(self, params):
        return self._evm_count(self._height_by_hash(params))

    def _uncle_count(self, height):
        return None if height is None or self.app.block_at(height) is None else "0x0"

    def _tx_at_evm_index(self, height, params):
        """The EVM tx at position `params[1]` among the block's EVM txs (native txs are not shown)."""
        wanted = p.quantity(p.arg(params, 1), 1, "hex number")
        found = None if height is None else self.app.block_at(height)
        if found is None:
            return None
        header, meta = found
        for position, (index, result) in enumerate(evm_results(self.app, height, meta)):
            if position == wanted:
                tx = self.app.decode_tx(self.app.tx_at(height, index))
                return enc.transaction(tx, header, meta, result)
        return None

    def tx_by_number_and_index(self, params):
        p.at_most(params, 2)
        return self._tx_at_evm_index(p.block_number(p.arg(params, 0), 0, self.app), params)

    def tx_by_hash_and_index(self, params):
        p.at_most(params, 2)
        return self._tx_at_evm_index(self.app.height_of_hash(p.block_hash(p.arg(params, 0), 0)), params)

    def _located(self, evm_hash):
        position = self.app.tx_position(evm_hash, evm=True)
        if position is None:
            return None
        height, index = position
        header, meta = self.app.block_at(height)
        tx = self.app.decode_tx(self.app.tx_at(height, index))
        return tx, header, meta, self.app.result_at(height, index)

    def get_transaction_by_hash(self, params):
        p.at_most(params, 1)
        evm_hash = p.block_hash(p.arg(params, 0), 0)
        found = self._located(evm_hash)
        if found is not None:
            return enc.transaction(*found)
        pending = self.mempool.get(evm_hash=evm_hash)
        return None if pending is None else enc.transaction(pending)

    def get_transaction_receipt(self, params):
        p.at_most(params, 1)
        evm_hash = p.block_hash(p.arg(params, 0), 0)
        # A tx of the block being written: its receipt is a few ms away, not null (and not looked up yet).
        settled = self.producer.settled(evm_hash)
        if settled is not None:
            return settled.addCallback(lambda _: self._receipt(evm_hash))
        return self._receipt(evm_hash)

    def _receipt(self, evm_hash):
        found = self._located(evm_hash)
        return None if found is None else enc.receipt(*found)

    def get_block_receipts(self, params):
        p.at_most(params, 1)
        height = p.block_number_or_hash(p.arg(params, 0), 0, self.app)
        found = self.app.block_at(height)
        if found is None:
            return None
        header, meta = found
        return [enc.receipt(self.app.decode_tx(self.app.tx_at(height, index)), header, meta, result)
                for index, result in evm_results(self.app, height, meta)]

    # -- sending ---------------------------------------------------------------------------------

    def send_raw_transaction(self, params):
        p.at_most(params, 1)
        raw_evm = p.data(p.arg(params, 0), 0)
        d = self.producer.submit_eth(raw_evm)
        d.addCallbacks(lambda checked: enc.d(checked.evm_hash), _tx_error)
        return d

    # -- calls ---------------------------------------------------------------------------------

    def _call_args(self, params, default="latest"):
        p.at_most(params, 4)
        call = p.arg(params, 0)
        if not isinstance(call, dict):
            raise errors.invalid_argument("invalid argument 0: call object expected")
        tag = p.arg(params, 1, required=False, default=default)
        block = calls.parse_block_overrides(p.arg(params, 3, required=False), 3)
        if tag == "pending":
            # The pending block: the latest state, run as the next block would be made now (its number and
            # time), as geth's pending block; the caller's block overrides still win.
            block = {"block_number": self.app.height + 1,
                     "timestamp": self.producer.pending_time_ns() // 10**9, **block}
        return (call, self._view(params, 1, default), calls.parse_overrides(p.arg(params, 2, required=False), 2),
                block)

    def call(self, params):
        return self._in_call_pool(self.runner.call, *self._call_args(params))

    def estimate_gas(self, params):
        # At the pending block by default, as cosmos/evm's and Hardhat's nodes estimate: a contract whose gas
        # depends on the block's time (Uniswap v3's oracle writes once a second) is estimated for the block
        # the tx goes into, not for the latest one, which automined blocks may share a second with.
        return self._in_call_pool(self.runner.estimate, *self._call_args(params, default="pending"))

    def create_access_list(self, params):
        p.at_most(params, 2)
        call = p.arg(params, 0)
        if not isinstance(call, dict):
            raise errors.invalid_argument("invalid argument 0: call object expected")
        return self._in_call_pool(self.runner.create_access_list, call, self._view(params, 1))

    def simulate(self, params):
        p.at_most(params, 2)
        flags, blocks = self.simulator.parse(params)
        return self._in_call_pool(self.simulator.run, flags, blocks, self._view(params, 1))

    def _in_call_pool(self, fn, *args):
        return self.call_pool.run(fn, *args)


def _tx_error(failure):
    failure.trap(chain_errors.TxError)
    e = failure.value
    raise errors.failed(e.evm_message or e.log)
