"""The ABCI socket's limits against a real node: connections at once, silence in the middle of a message, and
the bytes unfinished messages may hold (half frames must not pin memory)."""

import socket
import time

import pytest
import pytest_twisted

from abci_driver import AbciClient
from chaind import config
from chaind.consensus.abci.framing import encode_uvarint
from chaind.pb.tendermint.abci import types_pb2 as pb
from helpers import in_thread


def _limited(node_factory, **limits):
    return node_factory(abci={"mode": "socket", "address": "127.0.0.1:0", "max_message_bytes": 65536,
                              "max_unfinished_bytes": 100_000, **limits})


def _closed(client, within):
    """Whether the app closes `client`'s connection within `within` seconds."""
    client.sock.settimeout(within)
    try:
        return client.sock.recv(1) == b""
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True


def _echo(client, message="still here"):
    return client.call("echo", pb.RequestEcho(message=message)).message


def _connections_beyond_the_cap(port):
    clients = [AbciClient(port) for _ in range(4)]
    extra = AbciClient(port)
    refused = _closed(extra, 5)
    answers = [_echo(c) for c in clients]
    clients.pop().close()
    time.sleep(0.2)
    again = AbciClient(port)
    answers.append(_echo(again))
    for c in (*clients, again, extra):
        c.close()
    return refused, answers


@pytest_twisted.inlineCallbacks
def test_connections_beyond_the_cap_are_closed(node_factory):
    node = _limited(node_factory, max_connections=4)
    refused, answers = yield in_thread(_connections_beyond_the_cap, node.port_of("abci"))
    assert refused
    assert answers == ["still here"] * 5


def _silent_mid_message(port):
    idle, half = AbciClient(port), AbciClient(port)
    half.sock.sendall(encode_uvarint(60_000) + b"\x00" * 30_000)
    began = time.monotonic()
    dropped = _closed(half, 10)
    waited = time.monotonic() - began
    # Silence between messages is fine: CometBFT's idle connections stay.
    answer = _echo(idle)
    idle.close()
    half.close()
    return dropped, waited, answer


@pytest_twisted.inlineCallbacks
def test_silence_in_the_middle_of_a_message_closes_the_connection(node_factory):
    node = _limited(node_factory, idle_timeout=0.5)
    dropped, waited, answer = yield in_thread(_silent_mid_message, node.port_of("abci"))
    assert dropped and 0.4 < waited < 5, waited
    assert answer == "still here"


def _half_frames(port):
    first, second, other = AbciClient(port), AbciClient(port), AbciClient(port)
    first.sock.sendall(encode_uvarint(65_000) + b"\x00" * 60_000)
    time.sleep(0.2)
    # 120,000 bytes unfinished would pass the 100,000 all connections may hold: this one is closed.
    second.sock.sendall(encode_uvarint(65_000) + b"\x00" * 60_000)
    second_dropped = _closed(second, 5)
    first_kept = not _closed(first, 0.3)
    answer = _echo(other)
    for c in (first, second, other):
        c.close()
    return second_dropped, first_kept, answer


@pytest_twisted.inlineCallbacks
def test_unfinished_messages_cannot_hold_more_than_the_limit(node_factory):
    node = _limited(node_factory)
    second_dropped, first_kept, answer = yield in_thread(_half_frames, node.port_of("abci"))
    assert second_dropped and first_kept
    assert answer == "still here"


def test_the_unfinished_bytes_hold_a_whole_message():
    with pytest.raises(config.ConfigError, match="must be at least max-message-bytes"):
        config.load(text="[abci]\nmax-message-bytes = 2000000\nmax-unfinished-bytes = 1000000\n")
