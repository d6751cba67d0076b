"""At most N connections served at once on a port (a face's max-open-connections, as CometBFT's LimitListener),
so a flood cannot take the node's file descriptors; and newcomers are not locked out by the connections held.

At the limit, a newcomer takes the place of the served connection that has waited longest while holding no
request being answered: one idle between keep-alive requests, or still sending its request (a slow client).
Only when every connection is busy answering does the port stop accepting: clients then wait in the kernel's
backlog (and the few a burst already accepted, here), and are served in turn. nginx drops idle keep-alive
connections the same way when its worker_connections run out; a request being answered is never cut.
"""

import collections
import itertools

from twisted.protocols import policies

# Served connections looked at for one to give way, at most, per newcomer: the busy ones seen go to the back.
_SCAN = 64
# Seconds between looks for a connection to give way while the port is paused (every one was busy).
_RECHECK = 1.0


class _Limited(policies.ProtocolWrapper):
    serving = False

    def makeConnection(self, transport):
        self.transport = transport      # the wrapped protocol gets it when its turn comes
        self.connected = 1
        self.factory.arrived(self)

    def serve(self):
        self.serving = True
        self.factory.registerProtocol(self)
        self.wrappedProtocol.makeConnection(self)

    def may_give_way(self):
        """True when no request of this connection is being answered (the protocol says; one that cannot, as a
        WebSocket after its upgrade, never gives way)."""
        idle = getattr(self.wrappedProtocol, "holds_no_request", None)
        return idle is not None and idle()

    def connectionLost(self, reason):
        if self.serving:
            policies.ProtocolWrapper.connectionLost(self, reason)
        else:
            self.connected = 0
        self.factory.left(self)


class ConnectionLimit(policies.WrappingFactory):
    """Wraps a factory so at most `limit` of its connections are served at once (0: no limit)."""

    protocol = _Limited

    def __init__(self, factory, limit, reactor):
        super().__init__(factory)
        self.limit = limit
        self.reactor = reactor
        self.served = {}                # the connections served, the longest waiting first (an ordered set)
        self.waiting = collections.deque()
        self.paused_port = None
        self._recheck = None

    @property
    def active(self):
        return len(self.served)

    def arrived(self, connection):
        if not self.limit or len(self.served) < self.limit or self._make_room():
            self._serve(connection)
            return
        connection.transport.pauseProducing()
        self.waiting.append(connection)
        if self.paused_port is None:
            self.paused_port = connection.transport.server     # the listening port (tcp.Server.server)
            self.paused_port.stopReading()
            self._recheck = self.reactor.callLater(_RECHECK, self._look_again)

    def _serve(self, connection):
        self.served[connection] = None
        connection.serve()

    def _make_room(self):
        """Close the served connection holding no request that has waited longest; False if all are busy."""
        for connection in list(itertools.islice(self.served, _SCAN)):
            del self.served[connection]
            if connection.may_give_way():
                connection.transport.loseConnection()
                return True
            self.served[connection] = None      # busy: to the back
        return False

    def _look_again(self):
        self._recheck = None
        while self.waiting and (len(self.served) < self.limit or self._make_room()):
            following = self.waiting.popleft()
            following.transport.resumeProducing()
            self._serve(following)
        if self.waiting:
            self._recheck = self.reactor.callLater(_RECHECK, self._look_again)
        else:
            self._resume_port()

    def left(self, connection):
        if not connection.serving:
            self.waiting.remove(connection)
            return
        if self.served.pop(connection, False) is False:
            return                              # it gave way: its place is taken already
        while self.waiting and len(self.served) < self.limit:
            following = self.waiting.popleft()
            following.transport.resumeProducing()
            self._serve(following)
        if not self.waiting:
            self._resume_port()

    def _resume_port(self):
        if self.paused_port is not None:
            port, self.paused_port = self.paused_port, None
            if self._recheck is not None and self._recheck.active():
                self._recheck.cancel()
            self._recheck = None
            if not port.disconnecting:
                port.startReading()
