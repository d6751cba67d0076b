"""crisis's keeper: the constant fee MsgVerifyInvariant pays, and every module's invariants."""

from chaind.chain.halt import ChainHalt
from chaind.store.keys import compose

NAME = "crisis"
FEE = compose("crisis", "constant_fee")


class CrisisKeeper:
    """x/crisis' keeper, built once from the app's modules: routes, (module name, route, check) of every
    invariant they register, in the registry's order."""

    def __init__(self, modules):
        self.routes = tuple((m.name, route, check) for m in modules for route, check in m.invariants)

    def constant_fee(self, state):
        """(denom, amount) of the constant fee."""
        denom, _, amount = state.store.get(FEE).decode().partition(" ")
        return denom, int(amount)

    def set_constant_fee(self, ctx, denom, amount):
        ctx.store.set(FEE, f"{denom} {amount}".encode())

    def assert_invariants(self, app, state):
        """AssertInvariants: stop the chain at the first broken invariant, with the SDK's panic text."""
        for module, route, check in self.routes:
            report = run(check, module, route, app, state)
            if report is not None:
                raise ChainHalt(f"invariant broken: {report}\n\tCRITICAL please submit the following transaction:\n"
                                f"\t\t chaind tx crisis invariant-broken {module} {route}")


def run(check, module, route, app, state):
    """The invariant's report (sdk.FormatInvariant) when it is broken, else None."""
    detail = check(app, state)
    if detail is None:
        return None
    return f"{module}: {route.replace('-', ' ')} invariant\n{detail}\n"

