"""Requests, latency and errors per face and method: method tables and route tables wrapped with timers.

A recorder belongs to one thread (the reactor's, or gRPC's event loop): nothing here takes a lock.
"""

import time

import attrs
from twisted.internet import defer

from chaind.metrics.recorders import Counter, Histogram

INTERNAL = "internal"


@attrs.define
class RequestRecorders:
    # (face, method) -> seconds to the answer; its counts are also the requests answered (chaind_requests_total)
    latency: Histogram = attrs.Factory(Histogram)
    errors: Counter = attrs.Factory(Counter)            # (face, code) -> error answers

    def done(self, labels, started, code=None):
        """`labels` is (face, method)."""
        self.latency.observe(labels, time.perf_counter() - started)
        if code is not None:
            self.errors.inc((labels[0], str(code)))


def error_code(error):
    """The code a face answers an exception with: a JSON-RPC/CometBFT code, or a domain error's kind."""
    code = getattr(error, "code", None)
    if isinstance(code, int):
        return code
    kind = getattr(error, "kind", None)
    return getattr(kind, "value", INTERNAL)


def instrument_methods(methods, face, recorders, error_codes=None):
    """A JSON-RPC method table {name: callable(params)} whose calls are counted and timed;
    `error_codes(exception)` names the code a method's exception is answered with."""
    codes = error_codes or error_code
    return {name: _timed_method(face, name, method, recorders, codes) for name, method in methods.items()}


def _timed_method(face, name, method, recorders, codes):
    labels = (face, name)
    done = recorders.done

    def call(params):
        started = time.perf_counter()
        try:
            value = method(params)
        except Exception as e:
            done(labels, started, codes(e))
            raise
        if isinstance(value, defer.Deferred):
            return _when_done(value, labels, started, recorders, codes)
        done(labels, started)
        return value
    return call


def instrument_routes(table, face, recorders, error_codes=None):
    """A CometBFT route table {name: Route(func, ...)} whose funcs are counted and timed;
    `error_codes(exception)` names the code a route's exception is answered with."""
    codes = error_codes or error_code
    return {name: attrs.evolve(route, func=_timed_route(face, name, route.func, recorders, codes))
            for name, route in table.items()}


def _timed_route(face, name, func, recorders, codes):
    labels = (face, name)

    def call(**kwargs):
        started = time.perf_counter()
        try:
            value = func(**kwargs)
        except Exception as e:
            recorders.done(labels, started, codes(e))
            raise
        if isinstance(value, defer.Deferred):
            return _when_done(value, labels, started, recorders, codes)
        recorders.done(labels, started)
        return value
    return call


def _when_done(d, labels, started, recorders, codes=error_code):
    def ok(result):
        recorders.done(labels, started)
        return result

    def failed(failure):
        recorders.done(labels, started, codes(failure.value))
        return failure

    return d.addCallbacks(ok, failed)
