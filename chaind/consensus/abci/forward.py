"""Tx submission in socket mode: check the tx here, then hand it to CometBFT's mempool (broadcast_tx_sync).

CometBFT owns the mempool when it drives the chain; the EVM and gRPC faces send to it as Evmos' do.
"""

import base64
import io
import json
import time

from twisted.internet import defer, threads
from twisted.web.client import Agent, FileBodyProducer, readBody
from twisted.web.http_headers import Headers

from chaind import errors as domain_errors
from chaind.chain import errors


class CometForwarder:
    def __init__(self, app, checker, address, reactor):
        self.app = app
        self.checker = checker
        self.url = f"http://{address}/".encode()
        self.reactor = reactor
        self.agent = Agent(reactor)

    def submit(self, raw):
        """check_tx off the reactor, then broadcast_tx_sync; fires with the decoded tx."""
        return self._submit(self.app.check_tx, raw)

    def submit_eth(self, raw_evm):
        return self._submit(self.app.check_eth_tx, raw_evm)

    def settled(self, evm_hash):
        """No block is made here (CometBFT decides them): a receipt poll never waits for one (Producer.settled)."""
        return None

    def pending_time_ns(self):
        """CometBFT times the next block (its proposer's clock): now is the best guess, after the head's."""
        return max(time.time_ns(), self.app.head[0].time_ns + 10**6)

    @defer.inlineCallbacks
    def _submit(self, check, raw):
        tx = yield threads.deferToThreadPool(self.reactor, self.checker, check, raw)
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "broadcast_tx_sync",
                           "params": {"tx": base64.b64encode(tx.raw).decode()}}).encode()
        try:
            response = yield self.agent.request(b"POST", self.url, Headers({b"content-type": [b"application/json"]}),
                                                FileBodyProducer(io.BytesIO(body)))
            reply = json.loads((yield readBody(response)))
        except Exception as e:  # noqa: BLE001 (any failure to reach CometBFT is the client's unavailable)
            raise domain_errors.unavailable(f"CometBFT's RPC at {self.url.decode()} did not take the tx: {e}") from None
        if "error" in reply:
            message = str(reply["error"].get("data") or reply["error"].get("message"))
            if "already exists in cache" in message:
                # CometBFT's answer for a tx its mempool already holds; the SDK's code for it.
                raise errors.TxError(errors.SDK, 19, "tx already in mempool")
            raise domain_errors.failed(f"CometBFT refused the tx: {message}")
        result = reply["result"]
        if int(result["code"]):
            raise errors.TxError(result.get("codespace", ""), int(result["code"]), result.get("log", ""))
        return tx
