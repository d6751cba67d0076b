"""eth_accounts and eth_sendTransaction: the dev accounts' keys sign for the caller, as a dev node does.

Only the dev chain's published keys are held; no other account can send this way.
"""

from eth_account import Account
from twisted.internet import defer, threads

from chaind import errors
from chaind.api import encoding as enc
from chaind.api import params as p
from chaind.chain import errors as chain_errors


class DevWallet:
    def __init__(self, app, dev_keys, runner, fees, mempool, producer, reactor, call_pool):
        self.app = app
        self.dev_keys = dev_keys
        self.runner = runner
        self.fees = fees
        self.mempool = mempool
        self.producer = producer
        self.reactor = reactor
        self.call_pool = call_pool
        self.keys = {key.address: key for key in dev_keys}
        # One sender's txs are filled and admitted one at a time, so each gets the next nonce.
        self._locks = {}

    def methods(self):
        return {
            "eth_accounts": lambda params: [enc.addr(k.address) for k in self.dev_keys],
            "eth_sendTransaction": self.send_transaction,
        }

    def send_transaction(self, params):
        p.at_most(params, 1)
        args = p.arg(params, 0)
        if not isinstance(args, dict):
            raise errors.invalid_argument("invalid argument 0: transaction object expected")
        sender = p.address(args["from"], 0) if args.get("from") else None
        if sender not in self.keys:
            raise errors.unauthorized("unknown account")
        lock = self._locks.setdefault(sender, defer.DeferredLock())
        return lock.run(self._send, sender, args)

    @defer.inlineCallbacks
    def _send(self, sender, args):
        tx = self._fill(sender, args)
        if "gas" not in tx:
            call = {k: v for k, v in args.items() if k in ("from", "to", "value", "data", "input")}
            view = self.app.view()
            gas = yield threads.deferToThreadPool(self.reactor, self.call_pool,
                                                  self.runner.estimate, call, view, {})
            tx["gas"] = int(gas, 16)
        signed = Account.sign_transaction(tx, self.keys[sender].private_key)
        try:
            checked = yield self.producer.submit_eth(bytes(signed.raw_transaction))
        except chain_errors.TxError as e:
            raise errors.failed(e.evm_message or e.log) from None
        return enc.d(checked.evm_hash)

    def _fill(self, sender, args):
        """geth's defaults for a transaction object: nonce, fees, chain id, data."""
        chain_id = self.app.genesis.evm_chain_id
        if args.get("chainId") is not None and p.quantity(args["chainId"], 0) != chain_id:
            raise errors.failed(f"chainId does not match node's (have={p.quantity(args['chainId'], 0)}, "
                               f"want={chain_id})")
        data, given_input = args.get("data"), args.get("input")
        if data is not None and given_input is not None and data != given_input:
            raise errors.failed('both "data" and "input" are set and not equal. Please use "input" to pass '
                               "transaction call data")
        payload = p.data(given_input if given_input is not None else data or "0x", 0)
        if not args.get("to") and not payload:
            raise errors.failed("contract creation without any data provided")
        has_price = args.get("gasPrice") is not None
        if has_price and (args.get("maxFeePerGas") is not None or args.get("maxPriorityFeePerGas") is not None):
            raise errors.failed("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified")
        tx = {"chainId": chain_id, "data": payload,
              "value": p.quantity(args["value"], 0) if args.get("value") else 0,
              "nonce": p.quantity(args["nonce"], 0) if args.get("nonce") else self._next_nonce(sender)}
        if args.get("to"):
            tx["to"] = enc.addr(p.address(args["to"], 0))
        if args.get("gas") is not None:
            tx["gas"] = p.quantity(args["gas"], 0)
        if has_price:
            tx["gasPrice"] = p.quantity(args["gasPrice"], 0)
        else:
            tip = (p.quantity(args["maxPriorityFeePerGas"], 0) if args.get("maxPriorityFeePerGas") is not None
                   else self.fees.suggested_tip())
            tx["maxPriorityFeePerGas"] = tip
            tx["maxFeePerGas"] = (p.quantity(args["maxFeePerGas"], 0) if args.get("maxFeePerGas") is not None
                                  else 2 * self.app.next_base_fee() + tip)
            if tx["maxFeePerGas"] < tip:
                raise errors.failed(f"maxFeePerGas ({tx['maxFeePerGas']}) < maxPriorityFeePerGas ({tip})")
        return tx

    def _next_nonce(self, sender):
        return self.mempool.pending_nonce(sender, self.app.view().accounts.get_nonce(sender))
