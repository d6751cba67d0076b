"""The ceiling of the JSON-RPC read bar: a Twisted protocol that answers every POST with one constant body.

It frames requests as little as keep-alive and pipelining need (the end of the headers, Content-Length)
and writes the headers chaind's JSON-RPC face writes (Content-Type, Content-Length, Date), on the same
reactor (epoll), TCP_NODELAY and one process, so the gap to it is what the node does per request.
Prints "ceiling: HOST:PORT" once it listens; SIGTERM stops it. --direct writes each answer straight into the
socket when nothing is queued, as chaind's face does (rpc/http.py _write_now): the stricter ceiling.

    python bench/rpc_ceiling.py --body '{"jsonrpc":"2.0","id":1,"result":"0x1"}'
"""

import argparse
import time
from email.utils import formatdate

from twisted.internet import epollreactor

epollreactor.install()

from twisted.internet import protocol, reactor  # noqa: E402


class Constant(protocol.Protocol):
    def __init__(self, factory):
        self.factory = factory
        self.buffer = b""

    def connectionMade(self):
        self.transport.setTcpNoDelay(True)

    def dataReceived(self, data):
        buf = self.buffer + data if self.buffer else data
        pos, answers = 0, 0
        while True:
            end = buf.find(b"\r\n\r\n", pos)
            if end < 0:
                break
            at = buf.find(b"Content-Length:", pos, end)
            length = int(buf[at + 15:buf.find(b"\r\n", at)]) if at >= 0 else 0
            if len(buf) < end + 4 + length:
                break
            pos = end + 4 + length
            answers += 1
        self.buffer = buf[pos:]
        if answers:
            data = self.factory.response() * answers
            if self.factory.direct and not self.transport.dataBuffer and not self.transport._tempDataBuffer:
                sent = self.transport.socket.send(data)
                data = data[sent:]
            if data:
                self.transport.write(data)


class ConstantFactory(protocol.Factory):
    def __init__(self, body, direct):
        self.body = body
        self.direct = direct
        self.second = None
        self.cached = b""

    def buildProtocol(self, addr):
        return Constant(self)

    def response(self):
        now = int(time.time())
        if now != self.second:
            self.second = now
            self.cached = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                           b"Date: %s\r\n\r\n%s" % (len(self.body), formatdate(now, usegmt=True).encode(), self.body))
        return self.cached


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--body", required=True, help="the constant JSON body (a newline is added, as ours)")
    parser.add_argument("--direct", action="store_true", help="answers written straight into the socket")
    args = parser.parse_args()
    port = reactor.listenTCP(0, ConstantFactory(args.body.encode() + b"\n", args.direct), interface="127.0.0.1")
    print(f"ceiling: 127.0.0.1:{port.getHost().port}", flush=True)
    reactor.run()


if __name__ == "__main__":
    main()
