"""At most N connections served at once on a port, as CometBFT's LimitListener holds its metrics port
([instrumentation] max_open_connections): beyond it, new clients wait to be served, they are not refused.

At the limit the port stops accepting, so clients wait in the kernel's backlog; the few a burst has
already accepted wait here, unread, and are served in turn as connections close.
"""

import collections

from twisted.protocols import policies


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

    def connectionLost(self, reason):
        if self.serving:
            policies.ProtocolWrapper.connectionLost(self, reason)
        else:
            self.connected = 0
        self.factory.left(self)


class ConnectionLimit(policies.WrappingFactory):
    """Wraps a factory so at most `limit` of its connections are served at once (0: no limit)."""

    protocol = _Limited

    def __init__(self, factory, limit):
        super().__init__(factory)
        self.limit = limit
        self.active = 0
        self.waiting = collections.deque()
        self.paused_port = None

    def arrived(self, connection):
        if not self.limit or self.active < self.limit:
            self.active += 1
            connection.serve()
        else:
            connection.transport.pauseProducing()
            self.waiting.append(connection)
        if self.limit and self.active >= self.limit and self.paused_port is None:
            self.paused_port = connection.transport.server     # the listening port (tcp.Server.server)
            self.paused_port.stopReading()

    def left(self, connection):
        if not connection.serving:
            self.waiting.remove(connection)
            return
        self.active -= 1
        while self.waiting and self.active < self.limit:
            following = self.waiting.popleft()
            self.active += 1
            following.transport.resumeProducing()
            following.serve()
        if self.paused_port is not None and self.active < self.limit:
            port, self.paused_port = self.paused_port, None
            if not port.disconnecting:
                port.startReading()
