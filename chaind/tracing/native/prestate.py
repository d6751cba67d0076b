"""prestateTracer (geth HEAD): accounts and slots the tx touched, as before it; diffMode gives pre and post."""

from eth_utils import keccak

from chaind.tracing import config as cfg
from chaind.tracing import opcodes as ops
from chaind.tracing.tracer import Tracer

_FIELDS = {
    "diffMode": ("diff_mode", "bool", False),
    "disableCode": ("disable_code", "bool", False),
    "disableStorage": ("disable_storage", "bool", False),
    "includeEmpty": ("include_empty", "bool", False),
}
_ACCOUNT_OPS = frozenset((ops.BALANCE, ops.EXTCODESIZE, ops.EXTCODECOPY, ops.EXTCODEHASH))


class _Account:
    __slots__ = ("balance", "nonce", "code", "storage", "empty")

    def __init__(self, balance, nonce, code):
        self.balance, self.nonce, self.code = balance, nonce, code
        self.storage = {}
        # Empty when first looked up (slots read later do not change that): such accounts leave the result.
        self.empty = not self.exists()

    def exists(self):
        return bool(self.nonce or self.code or self.storage or self.balance)

    def to_json(self, with_code=True):
        out = {}
        if self.balance is not None:
            out["balance"] = hex(self.balance)
        if self.code and with_code:
            out["code"] = "0x" + self.code.hex()
            out["codeHash"] = "0x" + keccak(self.code).hex()
        if self.nonce:
            out["nonce"] = self.nonce
        if self.storage:
            out["storage"] = {"0x%064x" % k: "0x%064x" % v for k, v in sorted(self.storage.items())}
        return out


def _address(item):
    value = item if isinstance(item, int) else int.from_bytes(item, "big")
    return (value & ((1 << 160) - 1)).to_bytes(20, "big")


def _int(item):
    return item if isinstance(item, int) else int.from_bytes(item, "big")


class PrestateTracer(Tracer):
    wants_stack = True

    def __init__(self, tracer_config=None):
        config = cfg.decode(tracer_config, "prestateTracerConfig", _FIELDS)
        if config["diff_mode"] and config["include_empty"]:
            raise cfg.ConfigError("cannot use diffMode with includeEmpty")
        self.diff_mode = config["diff_mode"]
        self.disable_code = config["disable_code"]
        self.disable_storage = config["disable_storage"]
        self.include_empty = config["include_empty"]
        self.pre = {}
        self.post = {}
        self.created = set()
        self.deleted = set()
        self._db = None

    def _account(self, address):
        account = self.pre.get(address)
        if account is None:
            db = self._db
            account = self.pre[address] = _Account(db.balance(address), db.nonce(address), db.code(address))
        return account

    def _slot(self, address, slot):
        account = self._account(address)
        if slot not in account.storage:
            account.storage[slot] = self._db.storage(address, slot)

    def on_tx_start(self, env, db):
        self._db = db
        self._account(env.sender)
        self._account(env.to)
        self._account(env.coinbase)
        if env.kind == "CREATE":
            self.created.add(env.to)

    def on_enter(self, depth, kind, sender, to, input, gas, value, db):
        # Before the frame changes anything: the callee (or the address being created) as it was.
        if kind == "SELFDESTRUCT":
            return
        self._account(to)
        if kind in ("CREATE", "CREATE2"):
            self.created.add(to)

    def on_opcode(self, step, db):
        if step.error is not None:
            # An op refused before it runs (out of gas on its charge, a bad stack) read nothing, as in geth.
            return
        op = step.op
        stack = step.stack
        if op == ops.SLOAD or op == ops.SSTORE:
            if stack and not self.disable_storage:
                self._slot(step.address, _int(stack[-1]))
        elif op in _ACCOUNT_OPS:
            if stack:
                self._account(_address(stack[-1]))
        elif op == ops.SELFDESTRUCT and stack:
            self._account(_address(stack[-1]))
            # Since Cancun (EIP-6780) SELFDESTRUCT deletes only a contract created in the same tx.
            if step.address in self.created:
                self.deleted.add(step.address)

    def on_tx_end(self, gas_used, output, error, reverted):
        if self.diff_mode:
            self._diff()
        if self.include_empty:
            return
        # Accounts that were empty before the tx (a contract it creates, a first-time recipient) are not its
        # prestate, in both modes, as geth's OnTxEnd drops them.
        for address in [address for address, account in self.pre.items() if account.empty]:
            del self.pre[address]

    def _diff(self):
        db = self._db
        for address in list(self.pre):
            if address in self.deleted:
                continue
            pre = self.pre[address]
            post = _Account(None, 0, b"")
            modified = False
            balance, nonce, code = db.balance(address), db.nonce(address), db.code(address)
            if balance != pre.balance:
                modified, post.balance = True, balance
            if nonce != pre.nonce:
                modified, post.nonce = True, nonce
            if code != pre.code:
                modified, post.code = True, code
            for slot, value in list(pre.storage.items()):
                if value == 0:
                    del pre.storage[slot]
                now = db.storage(address, slot)
                if now == value:
                    pre.storage.pop(slot, None)
                else:
                    modified = True
                    if now:
                        post.storage[slot] = now
            if modified:
                self.post[address] = post
            else:
                del self.pre[address]

    def _state_json(self, accounts):
        return {"0x" + address.hex(): accounts[address].to_json(with_code=not self.disable_code)
                for address in sorted(accounts)}

    def result(self):
        if self.diff_mode:
            return {"post": self._state_json(self.post), "pre": self._state_json(self.pre)}
        return self._state_json(self.pre)
