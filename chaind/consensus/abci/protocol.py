"""One ABCI connection (CometBFT opens four: consensus, mempool, query, snapshot): frames in, answers out.

Requests are answered one at a time in arrival order, as CometBFT's client expects; a frame that cannot
be read closes this connection alone, with the reason logged. A connection may idle between messages as long as
it likes (CometBFT's mempool and snapshot connections do, and CometBFT stops when one is closed), but not in the
middle of one; the connections and the bytes of their unfinished messages are bounded ([abci] settings).
"""

import collections

import attrs
from google.protobuf.message import DecodeError
from twisted.internet import defer, protocol
from twisted.logger import Logger
from twisted.protocols.policies import TimeoutMixin

from chaind.consensus.abci.application import AbciError
from chaind.consensus.abci.framing import FrameError, FrameReader, frame
from chaind.pb.tendermint.abci import types_pb2 as pb

log = Logger()


class AbciProtocol(protocol.Protocol, TimeoutMixin):
    def __init__(self, application, max_message_bytes, max_pending, limits=None):
        """limits: the factory's ConnectionLimits (idle timeout, unfinished bytes), shared by its connections."""
        self.application = application
        self.max_pending = max_pending
        self.limits = limits
        self._held = 0                  # bytes of an unfinished message, counted in limits.held_bytes
        self._reader = FrameReader(max_message_bytes)
        self._queue = collections.deque()
        self._busy = False
        self._pumping = False
        self._paused = False
        self._closing = False

    def dataReceived(self, data):
        if self._closing:
            return
        try:
            payloads = self._reader.feed(data)
        except FrameError as e:
            return self._close(f"bad frame: {e}")
        if self.limits is not None and self._hold(self._reader.pending()):
            return
        for payload in payloads:
            try:
                self._queue.append(pb.Request.FromString(payload))
            except DecodeError as e:
                return self._close(f"undecodable request ({len(payload)} bytes): {e}")
        if len(self._queue) > self.max_pending and not self._paused:
            # CometBFT sends faster than we answer (a CheckTx flood): stop reading until we catch up.
            self._paused = True
            self.transport.pauseProducing()
        self._next()

    def _next(self):
        # A request answered at once (Echo, Info) comes back here through its callback: the loop
        # below goes on with the next one rather than recursing once per request.
        if self._pumping:
            return
        self._pumping = True
        try:
            while not self._busy and self._queue and not self._closing:
                request = self._queue.popleft()
                kind = request.WhichOneof("value")
                if kind is None:
                    return self._fail("unknown request from client: no Request field this app knows (a newer ABCI?)")
                self._busy = True
                d = defer.maybeDeferred(self.application.handle, kind, getattr(request, kind))
                d.addCallbacks(self._answer, self._failed, callbackArgs=(kind,), errbackArgs=(kind,))
        finally:
            self._pumping = False
        if self._paused and len(self._queue) <= self.max_pending // 2 and not self._closing:
            self._paused = False
            self.transport.resumeProducing()

    def _hold(self, pending):
        """Account for the unfinished message's bytes; True when that closed the connection. While a message is
        unfinished the connection must not go silent for longer than the idle timeout."""
        limits = self.limits
        limits.held_bytes += pending - self._held
        self._held = pending
        if pending and limits.held_bytes > limits.max_held_bytes:
            self._close(f"unfinished messages would hold {limits.held_bytes} bytes across connections, more than "
                        f"{limits.max_held_bytes} ([abci] max-unfinished-bytes)")
            return True
        self.setTimeout(limits.idle_timeout if pending else None)
        return False

    def timeoutConnection(self):
        self._close(f"silent for {self.limits.idle_timeout} s in the middle of a message "
                    f"({self._reader.pending()} bytes of it received; [abci] idle-timeout)")

    def _answer(self, response, kind):
        self._busy = False
        if not self._closing:
            self.transport.write(frame(pb.Response(**{kind: response}).SerializeToString()))
            self._next()

    def _failed(self, failure, kind):
        self._busy = False
        if failure.check(AbciError):
            reason = str(failure.value)
        else:
            log.failure("ABCI {kind} failed", failure, kind=kind)
            reason = f"{kind}: internal error: {failure.getErrorMessage()}"
        self._fail(reason)

    def _fail(self, reason):
        """As CometBFT's socket server: an Exception response with the reason, then the connection closes."""
        if not self._closing:
            self.transport.write(frame(pb.Response(exception=pb.ResponseException(error=reason)).SerializeToString()))
        self._close(reason)

    def _close(self, reason):
        if self._closing:
            return
        self._closing = True
        self._release()
        peer = self.transport.getPeer()
        log.warn("ABCI connection from {peer} closed: {reason}", peer=f"{peer.host}:{peer.port}", reason=reason)
        self._queue.clear()
        self.transport.loseConnection()

    def connectionLost(self, reason=protocol.connectionDone):
        if not self._closing and self._reader.pending():
            peer = self.transport.getPeer()
            log.warn("ABCI connection from {peer} closed in the middle of a message ({n} bytes of a frame "
                     "received): truncated message dropped", peer=f"{peer.host}:{peer.port}",
                     n=self._reader.pending())
        self._closing = True
        self._queue.clear()
        self._release()
        if self.limits is not None:
            self.limits.connections -= 1

    def _release(self):
        """The unfinished message is dropped: its bytes are freed and no longer count, and no timeout is due."""
        self._reader.drop()
        if self.limits is not None:
            self.limits.held_bytes -= self._held
            self._held = 0
            self.setTimeout(None)


@attrs.define
class ConnectionLimits:
    """What the ABCI connections share: their count and the bytes of their unfinished messages, and the limits."""

    max_connections: int
    idle_timeout: float
    max_held_bytes: int
    reactor: object
    connections: int = 0
    held_bytes: int = 0


class AbciFactory(protocol.Factory):
    noisy = False

    def __init__(self, application, settings, reactor):
        """settings: the node's [abci] settings."""
        self.application = application
        self.max_message_bytes = settings.max_message_bytes
        self.max_pending = settings.max_pending_requests
        self.limits = ConnectionLimits(settings.max_connections, settings.idle_timeout,
                                       settings.max_unfinished_bytes, reactor)

    def buildProtocol(self, addr):
        if self.limits.connections >= self.limits.max_connections:
            # CometBFT opens four; the rest is room for a CometBFT restarting and for tools.
            log.warn("ABCI connection from {peer} refused: {n} connections are open ([abci] max-connections)",
                     peer=f"{addr.host}:{addr.port}", n=self.limits.connections)
            return None
        self.limits.connections += 1
        built = AbciProtocol(self.application, self.max_message_bytes, self.max_pending, self.limits)
        built.callLater = self.limits.reactor.callLater
        return built
