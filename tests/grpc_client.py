"""Test clients of a node's gRPC and REST faces: generated stubs over a plain channel, urllib for REST."""

import json
import urllib.error
import urllib.request

import grpc

from chaind.crypto.addresses import to_bech32
from conftest import in_thread


def _call(node, stub_class, method, request, height, credentials=None):
    target = f"127.0.0.1:{node.port_of('grpc')}"
    channel = grpc.secure_channel(target, credentials) if credentials else grpc.insecure_channel(target)
    with channel:
        metadata = (("x-cosmos-block-height", str(height)),) if height is not None else None
        try:
            response, call = getattr(stub_class(channel), method).with_call(request, metadata=metadata, timeout=10)
        except grpc.RpcError as e:
            return None, (e.code(), e.details())
        return response, dict(call.initial_metadata())


def call(node, stub_class, method, request, height=None):
    """Fires with (response, response header metadata) or (None, (status code, message))."""
    return in_thread(_call, node, stub_class, method, request, height)


def _rest(node, path, body=None, height=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{node.port_of('rest')}{path}", data=data,
                                     headers={"content-type": "application/json"})
    if height is not None:
        request.add_header("x-cosmos-block-height", str(height))
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), json.loads(e.read())


def rest(node, path, body=None, height=None):
    """Fires with (HTTP status, headers, JSON body) of a GET (or a POST when `body` is given)."""
    return in_thread(_rest, node, path, body, height)


def b32(node, hex_address):
    return to_bech32(node.genesis.bech32_prefix, bytes.fromhex(hex_address[2:]))
