"""Drivers for tracer tests: synthetic steps and a small in-memory state in place of py-evm's."""

from chaind.tracing.tracer import Step, TxEnv

SENDER = bytes.fromhex("11" * 20)
CONTRACT = bytes.fromhex("22" * 20)
OTHER = bytes.fromhex("33" * 20)


class FakeState:
    """The five reads StateReader makes of py-evm's state, over dicts."""

    def __init__(self, balances=None, nonces=None, codes=None, storage=None):
        self.balances = balances or {}
        self.nonces = nonces or {}
        self.codes = codes or {}
        self.storage = storage or {}

    def get_balance(self, address):
        return self.balances.get(address, 0)

    def get_nonce(self, address):
        return self.nonces.get(address, 0)

    def get_code(self, address):
        return self.codes.get(address, b"")

    def get_storage(self, address, slot):
        return self.storage.get((address, slot), 0)

    def account_exists(self, address):
        return address in self.balances or address in self.nonces or address in self.codes


def make_step(op, pc=0, stack=(), gas=100_000, cost=3, depth=1, refund=0, error=None, memory=b"",
              caller=SENDER, address=CONTRACT, value=0, input=b"", code=b""):
    step = Step()
    step.pc, step.op, step.gas, step.cost, step.depth, step.refund, step.error = pc, op, gas, cost, depth, refund, error
    step.stack, step.memory, step.return_data = list(stack), memory, b""
    step.caller, step.address, step.value, step.input, step.code = caller, address, value, input, code
    return step


def make_env(**changes):
    fields = dict(kind="CALL", sender=SENDER, to=CONTRACT, input=b"\xde\xad", gas=100_000, gas_price=7,
                  value=5, intrinsic_gas=21_064, block_number=12, block_hash=b"\xbb" * 32, block_time=1_700_000_000,
                  coinbase=b"\xcc" * 20, tx_index=3, tx_hash=b"\xaa" * 32)
    fields.update(changes)
    return TxEnv(**fields)
