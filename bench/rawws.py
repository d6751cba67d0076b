"""A minimal WebSocket client for fan-out benches: one socket, frames parsed only as far as needed.

Thousands of these fit on one epoll in the client process, at a few microseconds per message.
"""

import base64
import json
import os
import socket
import struct
import urllib.parse


class RawWebSocket:
    def __init__(self, url, rcvbuf=None):
        """rcvbuf: a small kernel receive buffer (set before connecting), for a client that stops reading."""
        parts = urllib.parse.urlsplit(url)
        if rcvbuf is None:
            self.sock = socket.create_connection((parts.hostname, parts.port))
        else:
            self.sock = socket.socket()
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            self.sock.connect((parts.hostname, parts.port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                          .encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.recv()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise SystemExit(f"handshake refused: {head.decode(errors='replace')}")

    def call(self, message):
        """Send a JSON-RPC message and wait (blocking) for the next message back, decoded."""
        self.send_text(json.dumps(message))
        while (reply := self.next_message()) is None:
            self.buffer += self.recv()
        return json.loads(reply)

    def recv(self):
        data = self.sock.recv(1 << 20)
        if not data:
            raise SystemExit("the node closed a subscriber's connection")
        return data

    def send_text(self, text):
        self.send_frame(0x1, text.encode())

    def send_frame(self, opcode, payload):
        """One masked client frame (0x1 text, 0xA pong)."""
        mask = os.urandom(4)
        header = bytes([0x80 | opcode, 0x80 | len(payload)]) if len(payload) < 126 else \
            bytes([0x80 | opcode, 0x80 | 126]) + struct.pack("!H", len(payload))
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def next_message(self):
        """One complete unmasked server frame's payload off the buffer, or None (self.opcode: its opcode)."""
        if len(self.buffer) < 2:
            return None
        self.opcode = self.buffer[0] & 0x0F
        length, offset = self.buffer[1] & 0x7F, 2
        if len(self.buffer) < {126: 4, 127: 10}.get(length, 2):
            return None
        if length == 126:
            length, offset = struct.unpack_from("!H", self.buffer, 2)[0], 4
        elif length == 127:
            length, offset = struct.unpack_from("!Q", self.buffer, 2)[0], 10
        if len(self.buffer) < offset + length:
            return None
        message = self.buffer[offset:offset + length]
        self.buffer = self.buffer[offset + length:]
        return message
