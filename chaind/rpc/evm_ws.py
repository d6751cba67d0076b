"""EVM JSON-RPC over WebSocket (port 8546): every method of the HTTP table, plus eth_subscribe.

Notifications come from the event bus, so a newHeads never precedes a block readable over HTTP.
A client that cannot keep up is closed once its send queue is full (in messages or bytes, or the face's slow
clients together hold too many bytes) or nothing could be written to it for [json-rpc] ws-write-timeout (geth's
10 s write deadline); the chain never waits for it (rpc/ws_outbox.py).
"""

import itertools
import secrets
import struct

import orjson
from autobahn.twisted.websocket import WebSocketServerFactory, WebSocketServerProtocol
from autobahn.websocket.types import ConnectionDeny
from twisted.internet.interfaces import IPushProducer
from twisted.logger import Logger
from zope.interface import implementer

from chaind.api import encoding as enc
from chaind.api import logs
from chaind.api import params as p
from chaind.api.caller import CALLER
from chaind.chain.modules.evm.results import evm_hash_of
from chaind.events import types as ev
from chaind.rpc.errors import RPCError, invalid_params, server_error
from chaind.rpc.jsonrpc import Dispatcher
from chaind.rpc.origins import websocket_origin_allowed, websocket_origins
from chaind.rpc.ws_outbox import SUBSCRIPTION_BYTES, Outbox, SendBudget

log = Logger()

# Applications may only send 1000 or 3000-4999; 4013 mirrors RFC 6455's 1013 "try again later".
CLOSE_TOO_SLOW = 4013
_CLIENTS = itertools.count()     # a key per connection for per-client limits (api/caller.py)


class EvmWebSocketFactory(WebSocketServerFactory):
    def __init__(self, bus, methods, settings, reactor=None):
        """settings: [json-rpc]; methods: the table its requests are answered from."""
        super().__init__()
        if reactor is None:
            from twisted.internet import reactor
        self.reactor = reactor
        self.bus = bus
        self.methods = methods
        self.settings = settings
        self.send_budget = SendBudget(settings.ws_send_queue_total_bytes, reactor)
        self.outbox_limits = (settings.ws_send_queue, settings.ws_send_queue_bytes, settings.ws_write_timeout)
        self.protocol = EvmSocket
        self.connections = set()
        self.origins = websocket_origins(settings.ws_origins)
        self.setProtocolOptions(maxMessagePayloadSize=settings.ws_max_message_bytes,
                                maxFramePayloadSize=settings.ws_max_message_bytes,
                                failByDrop=False)  # a client is told why (1009 for a big message)
        self._head_cache = (None, None)
        self._logs_cache = (None, None)

    def encoded_head(self, block):
        """The newHeads payload of a block, encoded once for every subscriber."""
        key, payload = self._head_cache
        if key != block.meta.hash:
            payload = orjson.dumps(enc.head(block.header, block.meta))
            self._head_cache = (block.meta.hash, payload)
        return payload

    def block_logs(self, block):
        """Every log of a block as [log, tx hash, tx index, log index, encoded or None], built once for
        every subscriber; `encoded_log` fills in the encoding when a subscriber first wants it."""
        key, entries = self._logs_cache
        if key != block.meta.hash:
            entries = []
            for result in block.results:
                receipt = result.receipt
                if receipt is not None and receipt.logs:
                    evm_hash = evm_hash_of(result)
                    entries += [[entry, evm_hash, receipt.tx_index, receipt.log_index_start + i, None]
                                for i, entry in enumerate(receipt.logs)]
            self._logs_cache = (block.meta.hash, entries)
        return entries

    @staticmethod
    def encoded_log(block, entry):
        if entry[4] is None:
            entry[4] = orjson.dumps(enc.log(entry[0], entry[1], block.header, block.meta, entry[2], entry[3]))
        return entry[4]


def log_keys(event):
    """The index keys of a NewBlock for logs subscriptions: its log addresses and (position, topic) pairs."""
    keys = set()
    for result in event.block.results:
        if result.receipt is not None:
            for entry in result.receipt.logs:
                keys.add(entry.address)
                keys.update(enumerate(entry.topics))
    return keys


def criteria_keys(criteria):
    """The keys a logs subscription is indexed by: any of them must be in a block for a log of it to
    match. Its addresses, else the topics of its first position that has some; None: all blocks."""
    if criteria.addresses:
        return criteria.addresses
    for position, wanted in enumerate(criteria.topics):
        if wanted is not None:
            return {(position, topic) for topic in wanted}
    return None


@implementer(IPushProducer)
class EvmSocket(WebSocketServerProtocol):
    """One client connection: its requests, its subscriptions and its bounded send queue."""

    def onConnect(self, request):
        origin = request.headers.get("origin")
        if not websocket_origin_allowed(self.factory.origins, origin):
            # geth's answer to a page on another site: the handshake is refused, nothing is served.
            raise ConnectionDeny(403, f"origin {origin} not allowed; list it in [json-rpc] ws-origins")
        limit = self.factory.settings.ws_max_connections
        if limit and len(self.factory.connections) >= limit:
            raise ConnectionDeny(503, f"too many connections: this node serves at most {limit}")
        self.factory.connections.add(self)
        self.client = ("websocket", next(_CLIENTS))
        self.subscriptions = {}
        factory = self.factory
        self.outbox = Outbox(factory.send_budget, factory.outbox_limits, self._write,
                             lambda reason: self._drop(CLOSE_TOO_SLOW, reason), factory.reactor)
        methods = {**self.factory.methods, "eth_subscribe": self.subscribe, "eth_unsubscribe": self.unsubscribe}
        self.dispatcher = Dispatcher(methods, self.factory.settings.max_batch_size, request_key=self)

    def onOpen(self):
        self.transport.registerProducer(self, True)

    def onMessage(self, payload, is_binary):
        token = CALLER.set(self.client)      # per-client limits (api/caller.py) count this connection's own
        try:
            d = self.dispatcher.handle(payload)
        finally:
            CALLER.reset(token)
        d.addCallback(self._reply)
        d.addErrback(lambda failure: log.failure("websocket request failed", failure))

    def _reply(self, response):
        if response is not None:
            self.send(response)

    def onClose(self, was_clean, code, reason):
        self.factory.connections.discard(self)
        self._unsubscribe_all()
        if hasattr(self, "outbox"):
            self.outbox.clear()

    def _unsubscribe_all(self):
        subscriptions = getattr(self, "subscriptions", {})
        for sub in list(subscriptions.values()):
            self.factory.bus.unsubscribe(sub)
        if subscriptions:
            self.factory.send_budget.released(len(subscriptions) * SUBSCRIPTION_BYTES)
        self.subscriptions = {}

    # -- back-pressure ------------------------------------------------------------------------

    def send(self, message):
        if self.state == self.STATE_OPEN:
            self.outbox.send(message)

    def pauseProducing(self):
        self.outbox.pause()

    def resumeProducing(self):
        if self.state == self.STATE_OPEN:
            self.outbox.resume()

    def _write(self, message):
        """One text message out. The frame is built here, not by sendMessage, whose debug logging formats
        its arguments on every call (most of the cost of a notification to 1,000 subscribers); autobahn
        still sends what only it handles: compression, fragmenting, its own queue. ws-max-message-bytes bounds
        what a client sends, as geth's read limit does; autobahn's sendMessage would refuse an answer above it."""
        size = len(message)
        if self._perMessageCompress is not None or self.autoFragmentSize or self.send_queue:
            self.sendMessage(message)
            return
        if size < 126:
            header = bytes((0x81, size))
        elif size < 65536:
            header = struct.pack("!BBH", 0x81, 126, size)
        else:
            header = struct.pack("!BBQ", 0x81, 127, size)
        self.transport.writeSequence((header, message))

    def stopProducing(self):
        self.outbox.clear()

    def _drop(self, code, reason):
        self.outbox.clear()
        if self.state != self.STATE_OPEN:
            return
        self._unsubscribe_all()
        self.sendClose(code, reason)

    # -- eth_subscribe ------------------------------------------------------------------------

    def subscribe(self, params):
        kind = p.arg(params, 0)
        if not isinstance(kind, str):
            raise invalid_params("invalid argument 0: subscription kind must be a string")
        limit = self.factory.settings.ws_max_subscriptions
        if len(self.subscriptions) >= limit:
            raise server_error(f"too many subscriptions on this connection (at most {limit})")
        maker = {"newHeads": self._new_heads, "logs": self._logs,
                 "newPendingTransactions": self._pending, "syncing": self._syncing}.get(kind)
        if maker is None:
            raise RPCError(-32601, f'no "{kind}" subscription in eth namespace')
        sub_id = "0x" + (secrets.token_bytes(16).hex().lstrip("0") or "0")
        matches, render, event_kind, index = maker(params)
        prefix = b'{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"' + sub_id.encode() + \
            b'","result":'
        bus = self.factory.bus
        sub = bus.subscribe(matches, capacity=self.factory.settings.ws_send_queue,
                            on_cancel=lambda reason: self._drop(CLOSE_TOO_SLOW, reason[:120]),
                            kind=event_kind, index=index)
        sub.on_event = lambda: self._notify(sub, prefix, render)
        self.subscriptions[sub_id] = sub
        return sub_id

    def _notify(self, sub, prefix, render):
        for event in sub.drain():
            for payload in render(event):
                self.send(prefix + payload + b"}}")

    def unsubscribe(self, params):
        p.at_most(params, 1)
        sub = self.subscriptions.pop(p.arg(params, 0), None) if isinstance(p.arg(params, 0), str) else None
        if sub is None:
            return False
        self.factory.bus.unsubscribe(sub)
        return True

    def _new_heads(self, params):
        p.at_most(params, 1)
        return (lambda e: True), (lambda e: [self.factory.encoded_head(e.block)]), ev.NewBlock, None

    def _logs(self, params):
        p.at_most(params, 2)
        criteria = logs.parse_criteria(p.arg(params, 1, required=False, default={}), 1)

        def matches(event):
            meta = event.block.meta
            return meta.log_count and criteria.may_be_in(meta.bloom)

        def render(event):
            block = event.block
            return [self.factory.encoded_log(block, entry) for entry in self.factory.block_logs(block)
                    if criteria.matches(entry[0])]

        keys = criteria_keys(criteria)
        return matches, render, ev.NewBlock, None if keys is None else (log_keys, keys)

    def _pending(self, params):
        p.at_most(params, 2)
        full = bool(p.arg(params, 1, required=False, default=False))

        def render(event):
            return [orjson.dumps(enc.transaction(event.tx) if full else enc.d(event.tx.evm_hash))]

        return (lambda e: e.tx.kind == "evm"), render, ev.PendingTx, None

    def _syncing(self, params):
        # A solo node is never syncing, so the status never changes and nothing is sent.
        p.at_most(params, 1)
        return (lambda e: False), (lambda e: []), ev.NewBlock, None
