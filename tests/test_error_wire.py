"""Domain errors on the JSON-RPC wire: each kind's code, message and data, as rpc/errors.py maps them once."""

import orjson
import pytest
from twisted.internet import defer

from chaind import errors
from chaind.errors import Kind
from chaind.rpc.errors import from_domain
from chaind.rpc.jsonrpc import Dispatcher

CODES = {Kind.INVALID_ARGUMENT: -32602, Kind.REVERTED: 3, Kind.UNIMPLEMENTED: -32601, Kind.NOT_FOUND: -32000,
         Kind.TIMEOUT: -32000, Kind.PRUNED: -32000, Kind.UNAUTHORIZED: -32000, Kind.UNAVAILABLE: -32000,
         Kind.LIMIT_EXCEEDED: -32000, Kind.FAILED: -32000, Kind.INTERNAL: -32603}


def test_every_kind_has_its_code():
    assert set(CODES) == set(Kind)
    for kind, code in CODES.items():
        error = from_domain(errors.ChainError(kind, "what went wrong"))
        assert error.to_json() == {"code": code, "message": "what went wrong"}


def _raises(params):
    raise errors.reverted("execution reverted: no", "0x08c379a0")


def _fails_later(params):
    return defer.fail(errors.reverted("execution reverted: no", "0x08c379a0"))


@pytest.mark.parametrize("method", [_raises, _fails_later])
def test_a_revert_keeps_its_data_on_the_wire(method):
    dispatcher = Dispatcher({"eth_call": method}, 10)
    answers = []
    dispatcher.handle(orjson.dumps({"jsonrpc": "2.0", "id": 7, "method": "eth_call", "params": []}))\
        .addCallback(answers.append)
    assert orjson.loads(answers[0]) == {"jsonrpc": "2.0", "id": 7, "error": {
        "code": 3, "message": "execution reverted: no", "data": "0x08c379a0"}}
