"""Fixtures for tracer tests: a small state (a test double of py-evm's) behind a StateReader."""

import pytest
from js_driver import CONTRACT, FakeState

from chaind.tracing.tracer import StateReader


@pytest.fixture
def state():
    return FakeState(balances={CONTRACT: 10**21}, nonces={CONTRACT: 4}, codes={CONTRACT: b"\x60\x00"},
                     storage={(CONTRACT, 1): 0xBEEF})


@pytest.fixture
def db(state):
    return StateReader(state)
