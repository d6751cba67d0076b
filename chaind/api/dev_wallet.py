"""eth_accounts, eth_sendTransaction and the signing methods: the dev accounts' keys sign for the caller,
as a dev node does; with the dev namespace on, eth_sendTransaction also sends for impersonated accounts.

Only the dev chain's published keys are held; no other account can send this way.
"""

import json

from eth_account import Account
from eth_account.messages import encode_defunct, encode_typed_data
from twisted.internet import defer

from chaind import errors
from chaind.api import encoding as enc
from chaind.api import params as p
from chaind.chain import errors as chain_errors
from chaind.chain import txs as txcodec


class DevWallet:
    def __init__(self, app, dev_keys, runner, fees, mempool, producer, reactor, call_pool, impersonation=None):
        self.app = app
        self.impersonation = impersonation   # api.dev.Impersonation when the dev namespace is on
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
            "eth_sign": lambda params: self._sign_message(params, address_at=0),
            "personal_sign": lambda params: self._sign_message(params, address_at=1),
            "eth_signTypedData_v4": self.sign_typed_data,
            "eth_signTransaction": self.sign_transaction,
        }

    def _key(self, value, index):
        key = self.keys.get(p.address(value, index))
        if key is None:
            raise errors.unauthorized("unknown account")
        return key

    def _sign_message(self, params, address_at):
        """EIP-191's personal message signature (geth's eth_sign takes address then data;
        personal_sign data then address, and an ignored password)."""
        p.at_most(params, 3 if address_at else 2)
        key = self._key(p.arg(params, address_at), address_at)
        message = p.data(p.arg(params, 1 - address_at), 1 - address_at)
        signed = Account.sign_message(encode_defunct(primitive=message), key.private_key)
        return enc.d(bytes(signed.signature))

    def sign_typed_data(self, params):
        p.at_most(params, 2)
        key = self._key(p.arg(params, 0), 0)
        data = p.arg(params, 1)
        try:
            if isinstance(data, str):
                data = json.loads(data)
            signable = encode_typed_data(full_message=data)
        except Exception as e:  # noqa: BLE001 (eth_account raises several kinds for a malformed document)
            raise errors.invalid_argument(f"invalid argument 1: not EIP-712 typed data: {e}") from None
        return enc.d(bytes(Account.sign_message(signable, key.private_key).signature))

    @defer.inlineCallbacks
    def sign_transaction(self, params):
        """The signed tx, filled as eth_sendTransaction fills it, RLP-encoded and not sent (Anvil's answer)."""
        p.at_most(params, 1)
        args = p.arg(params, 0)
        if not isinstance(args, dict):
            raise errors.invalid_argument("invalid argument 0: transaction object expected")
        key = self._key(args.get("from") or "0x", 0)
        tx = yield self._filled(key.address, args)
        return enc.d(bytes(Account.sign_transaction(tx, key.private_key).raw_transaction))

    def send_transaction(self, params):
        p.at_most(params, 1)
        args = p.arg(params, 0)
        if not isinstance(args, dict):
            raise errors.invalid_argument("invalid argument 0: transaction object expected")
        sender = p.address(args["from"], 0) if args.get("from") else None
        if sender not in self.keys and not (self.impersonation and self.impersonation.covers(sender)):
            raise errors.unauthorized("unknown account")
        lock = self._locks.setdefault(sender, defer.DeferredLock())
        return lock.run(self._send, sender, args)

    @defer.inlineCallbacks
    def _filled(self, sender, args):
        tx = self._fill(sender, args)
        if "gas" not in tx:
            call = {k: v for k, v in args.items() if k in ("from", "to", "value", "data", "input")}
            view = self.app.view()
            gas = yield self.call_pool.run(self.runner.estimate, call, view, {})
            tx["gas"] = int(gas, 16)
        return tx

    @defer.inlineCallbacks
    def _send(self, sender, args):
        tx = yield self._filled(sender, args)
        try:
            if sender in self.keys:
                signed = Account.sign_transaction(tx, self.keys[sender].private_key)
                checked = yield self.producer.submit_eth(bytes(signed.raw_transaction))
            else:
                g = self.app.genesis
                unsigned = txcodec.wrap_impersonated(tx, sender, g.evm_chain_id, g.base_denom)
                checked = yield self.producer.submit_impersonated(unsigned)
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
