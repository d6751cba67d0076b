"""Shared helpers for the tracing tests: a tx traced on a fresh in-memory py-evm state, and a
small state double behind a StateReader for driving JS tracers with synthetic steps."""

import orjson
import pytest

from chaind.tracing.struct_logger import LoggerConfig, StructLogger
from chaind.tracing.traced_interpreter import trace_transaction, tx_env
from chaind.tracing.tracer import StateReader
from js_driver import CONTRACT, FakeState
from tests.tracing.evm import make_state, tx


class Run:
    def __init__(self, accounts=None, balances=None):
        self.accounts = accounts or {}
        self.balances = balances or {}

    def state(self):
        state = make_state(accounts=self.accounts)
        for address, balance in self.balances.items():
            state.set_balance(address, balance)
        state.persist()
        return state

    def trace(self, tracer, to=b"", data=b"", value=0, gas=1_000_000, **kwargs):
        state = self.state()
        transaction = tx(state, to=to, data=data, value=value, gas=gas)
        computation = trace_transaction(state, transaction, tracer, tx_env(state, transaction), **kwargs)
        return computation

    def struct_logs(self, config=None, **kwargs):
        logger = StructLogger(LoggerConfig.from_trace_config(config or {}))
        computation = self.trace(logger, **kwargs)
        return orjson.loads(logger.result()), computation


@pytest.fixture
def run():
    return Run


@pytest.fixture
def state():
    return FakeState(balances={CONTRACT: 10**21}, nonces={CONTRACT: 4}, codes={CONTRACT: b"\x60\x00"},
                     storage={(CONTRACT, 1): 0xBEEF})


@pytest.fixture
def db(state):
    return StateReader(state)
