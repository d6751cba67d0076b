"""Raw HTTP/1.1 to the HTTP faces from a test: request bytes written by hand and a connection that reads one
response at a time (pipelining, partial reads, early hang-ups)."""

import json
import socket


def call(method, *params, id=1):
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": list(params)}).encode()


def post(body, extra=b""):
    return b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s" % (
        len(body), extra, body)


class Client:
    """A raw HTTP connection that reads responses one at a time."""

    def __init__(self, node):
        self.sock = socket.create_connection(("127.0.0.1", node.port_of("json-rpc")), timeout=10)
        self.file = self.sock.makefile("rb")

    def send(self, data):
        self.sock.sendall(data)

    def response(self, head=False):
        """(status, headers, body), or None when the server closed the connection."""
        status_line = self.file.readline()
        if not status_line:
            return None
        status = int(status_line.split()[1])
        headers = {}
        while (line := self.file.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            headers[name.strip().lower()] = value.strip()
        length = 0 if head or status == 100 else int(headers.get("content-length", 0))
        return status, headers, self.file.read(length)

    def closed(self, wait=0.5):
        """Whether the server closed the connection (within `wait` seconds, with nothing more sent)."""
        self.sock.settimeout(wait)
        try:
            return self.file.read(1) == b""
        except TimeoutError:
            return False

    def close(self):
        self.file.close()
        self.sock.close()


def face_post(node, face, body, content_type=b"application/json", origin=None, path=b"/"):
    """(status, headers, body) of one POST over a raw socket."""
    client = Client(node)
    if face != "json-rpc":
        client.sock.close()
        client.sock = socket.create_connection(("127.0.0.1", node.port_of(face)), timeout=10)
        client.file = client.sock.makefile("rb")
    headers = b"Host: localhost\r\n"
    if content_type is not None:
        headers += b"Content-Type: %s\r\n" % content_type
    if origin is not None:
        headers += b"Origin: %s\r\n" % origin
    try:
        client.send(b"POST %s HTTP/1.1\r\n%sContent-Length: %d\r\n\r\n%s" % (path, headers, len(body), body))
        return client.response()
    finally:
        client.close()
