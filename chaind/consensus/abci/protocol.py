"""One ABCI connection (CometBFT opens four: consensus, mempool, query, snapshot): frames in, answers out.

Requests are answered one at a time in arrival order, as CometBFT's client expects; a frame that cannot
be read closes this connection alone, with the reason logged.
"""

import collections

from google.protobuf.message import DecodeError
from twisted.internet import defer, protocol
from twisted.logger import Logger

from chaind.consensus.abci.application import AbciError
from chaind.consensus.abci.framing import FrameError, FrameReader, frame
from chaind.pb.tendermint.abci import types_pb2 as pb

log = Logger()


class AbciProtocol(protocol.Protocol):
    def __init__(self, application, max_message_bytes, max_pending):
        self.application = application
        self.max_pending = max_pending
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


class AbciFactory(protocol.Factory):
    noisy = False

    def __init__(self, application, max_message_bytes, max_pending):
        self.application = application
        self.max_message_bytes = max_message_bytes
        self.max_pending = max_pending

    def buildProtocol(self, addr):
        return AbciProtocol(self.application, self.max_message_bytes, self.max_pending)
