"""/websocket on 26657: every route as JSON-RPC, plus subscribe/unsubscribe/unsubscribe_all on tm.event queries.

Events come from the event bus after commit; each subscription has a bounded buffer, and one that
overflows is canceled with CometBFT's "subscription was canceled (reason: ...)". Answers wait for a client
that does not read in a queue bounded in bytes (per connection and across them); past it, or when nothing
could be written for ws-write-timeout seconds, the connection is closed, as CometBFT's write deadline does.
"""


import orjson
from autobahn.twisted.resource import WebSocketResource
from autobahn.twisted.websocket import WebSocketServerFactory, WebSocketServerProtocol
from autobahn.websocket.types import ConnectionDeny
from twisted.internet.interfaces import IPushProducer
from twisted.logger import Logger
from zope.interface import implementer

from chaind.chain import valset
from chaind.chain.txs import native_hash
from chaind.cometbft import consensus, evidence_json
from chaind.cometbft import encode as enc
from chaind.cometbft.params import STR, Arg, ParamError, from_json
from chaind.cometbft.routes import RouteError
from chaind.cometbft.server import INVALID_REQUEST, PARSE_ERROR, Dispatcher, error_object
from chaind.events import query as q
from chaind.events import types as ev
from chaind.rpc.origins import request_origin_allowed
from chaind.rpc.ws_outbox import Outbox, SendBudget

log = Logger()


class EventRenderer:
    """Each event's payload and events map, made once however many subscribers get it."""

    def __init__(self, app):
        self.app = app
        self._key = None
        self._cache = {}

    def _cached(self, event, what, make):
        block_hash = event.block.meta.hash
        if block_hash != self._key:
            self._key, self._cache = block_hash, {}
        key = (event.name, getattr(event, "index", None), getattr(event, "precommit", None),
               getattr(event, "step", None), what)
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def events_map(self, event):
        return self._cached(event, "map", lambda: _events_map(event))

    def data(self, event):
        return self._cached(event, "data", lambda: orjson.dumps(_data(event, self.app)))


def _events_map(event):
    if isinstance(event, ev.Tx):
        block = event.block
        out = enc.flat_events(block.results[event.index].events)
        out["tx.hash"] = [enc.hexu(native_hash(block.txs[event.index]))]
        out["tx.height"] = [str(block.height)]
    elif isinstance(event, (ev.NewBlock, ev.NewBlockEvents)):
        # FinalizeBlock's events, so `tm.event='NewBlock' AND block_gas.height > 5` can match.
        out = enc.flat_events(event.block.events)
    else:
        out = {}
    out["tm.event"] = [event.name]
    return out


def _data(event, app):
    if isinstance(event, ev.CONSENSUS_STEPS):
        return consensus.data(event, app)
    block = event.block
    if isinstance(event, ev.NewBlock):
        finalize = {}
        if block.events:
            finalize["events"] = enc.events(block.events)
        finalize["validator_updates"] = enc.validator_updates(block.validator_updates)
        if block.results:
            finalize["tx_results"] = [enc.exec_tx_result(r) for r in block.results]
        finalize["app_hash"] = enc.b64(block.meta.app_hash)
        value = {"block": enc.block(block.header, block.txs, app.commit_sigs(block.header),
                                    [evidence_json.evidence(e) for e in block.evidence]),
                 "block_id": enc.block_id(enc.block_id_of(block.meta)), "result_finalize_block": finalize}
    elif isinstance(event, ev.NewBlockHeader):
        value = {"header": enc.header(block.header)}
    elif isinstance(event, ev.NewBlockEvents):
        value = {"height": str(block.height), "events": enc.events(block.events) or None,
                 "num_txs": str(len(block.txs))}
    elif isinstance(event, ev.NewEvidence):
        value = {"evidence": evidence_json.evidence(block.evidence[event.index]), "height": str(block.height)}
    elif isinstance(event, ev.ValidatorSetUpdates):
        # types.Validator per update, as CometBFT makes them (priority 0; power 0 for one removed).
        value = {"validator_updates": [enc.validator(valset.address_of(pubkey), pubkey, power)
                                       for pubkey, power in block.validator_updates]}
    else:
        tx_result = {"height": str(block.height)}
        if event.index:
            tx_result["index"] = event.index
        tx_result["tx"] = enc.b64(block.txs[event.index])
        tx_result["result"] = enc.exec_tx_result_plain(block.results[event.index])
        value = {"TxResult": tx_result}
    return {"type": f"tendermint/event/{event.name}", "value": value}


_SUBSCRIBABLE = (ev.NewBlock, ev.NewBlockHeader, ev.NewBlockEvents, ev.NewEvidence, ev.Tx,
                 ev.ValidatorSetUpdates) + ev.CONSENSUS_STEPS
_KINDS = {kind.name: kind for kind in _SUBSCRIBABLE}


def _kind_of(parsed):
    """The one event class a query's `tm.event = '...'` allows, so the bus offers it nothing else."""
    for cond in parsed.conditions:
        if cond.tag == "tm.event" and cond.op == q.EQ and cond.kind == q.STRING:
            return _KINDS.get(cond.value)
    return None


class CometWebSocketFactory(WebSocketServerFactory):
    def __init__(self, app, bus, table, settings, reactor=None):
        """settings: [cometbft-rpc]; table: the routes its JSON-RPC requests are answered from."""
        super().__init__()
        if reactor is None:
            from twisted.internet import reactor
        self.reactor = reactor
        self.send_budget = SendBudget(settings.ws_send_queue_total_bytes, reactor)
        self.outbox_limits = (None, settings.ws_send_queue_bytes, settings.ws_write_timeout)
        self.bus = bus
        self.settings = settings
        self.dispatcher = Dispatcher(table, settings)
        self.renderer = EventRenderer(app)
        self.subscribers = set()      # connections holding at least one subscription
        # Browser origins allowed to connect ([cometbft-rpc] cors-allowed-origins, an OriginPolicy; None: none).
        self.origins = None
        self.protocol = CometSocket
        self.setProtocolOptions(maxMessagePayloadSize=settings.max_body_bytes,
                                maxFramePayloadSize=settings.max_body_bytes,
                                autoPingInterval=settings.ws_ping_interval,
                                autoPingTimeout=settings.ws_ping_timeout, failByDrop=False)

    def as_resource(self):
        return WebSocketResource(self)


@implementer(IPushProducer)
class CometSocket(WebSocketServerProtocol):
    """One connection. While its socket cannot take more, events wait in the subscriptions' buffers,
    whose overflow cancels them: a slow client costs bounded memory and never slows the chain."""

    paused = False
    outbox = None

    def onOpen(self):
        # Upgraded from a twisted.web request, whose HTTP channel is still the transport's producer.
        self.transport.unregisterProducer()
        self.transport.registerProducer(self, True)

    def pauseProducing(self):
        self.paused = True
        self.outbox.pause()

    def resumeProducing(self):
        self.paused = False
        self.outbox.resume()
        for sub in list(self.subscriptions.values()):
            sub.on_event()

    def stopProducing(self):
        self.paused = True
        self.outbox.clear()

    def _too_slow(self, reason):
        # CometBFT drops a client its write deadline expires on: no close frame would get through.
        log.info("CometBFT websocket client dropped: {reason}", reason=reason)
        self.outbox.clear()
        self._drop_all()
        self.dropConnection(abort=True)

    def onConnect(self, request):
        origin = request.headers.get("origin")
        if not request_origin_allowed(self.factory.origins, origin):
            # CometBFT upgrades any page's handshake; a page on another site could then use every route.
            raise ConnectionDeny(403, f"origin {origin} not allowed; list it in [cometbft-rpc] cors-allowed-origins")
        factory = self.factory
        self.outbox = Outbox(factory.send_budget, factory.outbox_limits, self.sendMessage, self._too_slow,
                             factory.reactor)
        self.subscriptions = {}       # normalized query -> bus subscription
        self.extra = {"subscribe": self.subscribe, "unsubscribe": self.unsubscribe,
                      "unsubscribe_all": self.unsubscribe_all}

    def onMessage(self, payload, is_binary):
        try:
            message = orjson.loads(payload)
        except orjson.JSONDecodeError as e:
            self._send(error_object(None, PARSE_ERROR, f"error unmarshaling request: {e}", with_id=False))
            return
        if isinstance(message, list):
            self._send(error_object(None, INVALID_REQUEST, "batch requests are not supported over WebSocket",
                                    with_id=False))
            return
        d = self.factory.dispatcher.call(message, ws=True, extra=self.extra)
        d.addCallback(lambda response: response is not None and self._send(response))
        d.addErrback(lambda failure: log.failure("websocket request failed", failure))

    def _send(self, obj):
        self.send_bytes(orjson.dumps(obj))

    def send_bytes(self, data):
        if self.state == self.STATE_OPEN:
            self.outbox.send(data)

    def onClose(self, was_clean, code, reason):
        if self.outbox is not None:
            self.outbox.clear()
        self._drop_all()

    # -- subscriptions --------------------------------------------------------------------------

    def subscribe(self, params, request_id):
        text = _query_param(params)
        s = self.factory.settings
        factory = self.factory
        if not self.subscriptions and len(factory.subscribers) >= s.max_subscription_clients:
            raise RouteError(f"max_subscription_clients {s.max_subscription_clients} reached")
        if len(self.subscriptions) >= s.max_subscriptions_per_client:
            raise RouteError(f"max_subscriptions_per_client {s.max_subscriptions_per_client} reached")
        if len(text.encode()) > s.max_query_length:
            raise RouteError("maximum query length exceeded")
        try:
            parsed = q.parse(text)
        except q.QueryError as e:
            raise RouteError(f"failed to parse query: {e}") from None
        key = str(parsed)
        if key in self.subscriptions:
            raise RouteError("already subscribed")
        renderer = factory.renderer

        def matches(event):
            return isinstance(event, _SUBSCRIBABLE) and parsed.matches(renderer.events_map(event))

        prefix = b'{"jsonrpc":"2.0","id":' + orjson.dumps(request_id) + b',"result":{"query":' + \
            orjson.dumps(text) + b',"data":'
        bus = factory.bus
        sub = bus.subscribe(matches, capacity=s.subscription_buffer_size, kind=_kind_of(parsed),
                            on_cancel=lambda reason: self._canceled(key, request_id, reason))

        def deliver():
            if self.paused:
                return
            for event in sub.drain():
                self.send_bytes(prefix + renderer.data(event) + b',"events":' +
                                orjson.dumps(renderer.events_map(event)) + b"}}")

        sub.on_event = deliver
        self.subscriptions[key] = sub
        factory.subscribers.add(self)
        return {}

    def _canceled(self, key, request_id, reason):
        self.subscriptions.pop(key, None)
        if not self.subscriptions:
            self.factory.subscribers.discard(self)
        self._send(error_object(request_id, -32000, f"subscription was canceled (reason: {reason})"))

    def unsubscribe(self, params, request_id):
        text = _query_param(params)
        try:
            key = str(q.parse(text))
        except q.QueryError as e:
            raise RouteError(f"failed to parse query: {e}") from None
        sub = self.subscriptions.pop(key, None)
        if sub is None:
            raise RouteError("subscription not found")
        self.factory.bus.unsubscribe(sub)
        if not self.subscriptions:
            self.factory.subscribers.discard(self)
        return {}

    def unsubscribe_all(self, params, request_id):
        if not self.subscriptions:
            raise RouteError("subscription not found")
        self._drop_all()
        return {}

    def _drop_all(self):
        for sub in list(getattr(self, "subscriptions", {}).values()):
            self.factory.bus.unsubscribe(sub)
        self.subscriptions = {}
        self.factory.subscribers.discard(self)


_QUERY_ARGS = (Arg("query", STR),)


def _query_param(params):
    """The query of subscribe/unsubscribe, decoded as the routes' arguments are (absent: empty)."""
    try:
        return from_json(_QUERY_ARGS, params)["query"] or ""
    except ParamError as e:
        raise RouteError(f"error converting json params to arguments: {e}") from None
