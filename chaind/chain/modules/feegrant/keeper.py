"""feegrant's keeper: each grant (granter, grantee, allowance) by grantee then granter, and the expiry queue.

Grants are kept as the SDK's Grant protobuf bytes (what the queries answer).
"""

import attrs

from chaind.chain import block_time, errors
from chaind.chain.block import event
from chaind.chain.modules.feegrant import allowances
from chaind.chain.modules.feegrant.errors import NO_ALLOWANCE, error
from chaind.pb.cosmos.feegrant.v1beta1 import feegrant_pb2
from chaind.store.keys import compose

NAME = "feegrant"
# Expired grants an end block removes at most (the SDK's EndBlocker), and a MsgPruneAllowances.
END_BLOCK_PRUNE_LIMIT = 200
MSG_PRUNE_LIMIT = 75


def _grant_key(grantee, granter=b""):
    return compose(NAME, "g", grantee, granter) if granter else compose(NAME, "g", grantee)


def _queue_key(time_ns, grantee, granter):
    return compose(NAME, "q", max(time_ns, 0).to_bytes(8, "big"), grantee, granter)


@attrs.frozen
class Used:
    """An allowance that accepted a fee: who granted it to whom, and what it is after paying."""

    granter: bytes
    grantee: bytes
    remove: bool            # used up: the grant goes
    allowance: object       # the allowance's Any after paying


class FeegrantKeeper:
    """x/feegrant's keeper, built once from auth's keeper (a grantee's account is made at its first grant) and
    bank's (its events name granter and grantee in bech32): reads take a state (a view or a block's context),
    writes a block's context."""

    def __init__(self, auth, bank):
        self.auth = auth
        self.bank = bank

    def grant(self, state, granter, grantee):
        raw = state.store.get(_grant_key(grantee, granter))
        return None if raw is None else feegrant_pb2.Grant.FromString(raw)

    def grants(self, state, grantee=None):
        """(key, Grant) of one grantee's grants, or of every grant, in store order (grantee, then granter)."""
        prefix = _grant_key(grantee) if grantee is not None else compose(NAME, "g")
        return [(key, feegrant_pb2.Grant.FromString(raw)) for key, raw in state.store.iterate(prefix)]

    def grant_allowance(self, ctx, granter, grantee, any_allowance):
        """GrantAllowance: the grantee's account made if new, the expiry queued, the period reset set from the
        block time; the set_feegrant event. The caller has checked that no grant exists."""
        self.auth.ensure_account(ctx, grantee)
        expires = allowances.expires_at(any_allowance)
        if expires is not None:
            if expires < ctx.time_ns:
                raise errors.invalid_request("expiration is before current block time")
            block_time.check_expiration(expires, errors.invalid_request)
            ctx.store.set(_queue_key(expires, grantee, granter), b"\x01")
        self._write(ctx, granter, grantee, allowances.update_period_reset(any_allowance, ctx.time_ns))
        return [self._event("set_feegrant", granter, grantee)]

    def revoke_allowance(self, ctx, granter, grantee):
        """revokeAllowance: the grant and its queue entry removed; the revoke_feegrant event."""
        found = self.grant(ctx, granter, grantee)
        if found is None:
            raise error(NO_ALLOWANCE, "allowance does not exist")
        ctx.store.delete(_grant_key(grantee, granter))
        expires = allowances.expires_at(found.allowance)
        if expires is not None:
            ctx.store.delete(_queue_key(expires, grantee, granter))
        return [self._event("revoke_feegrant", granter, grantee)]

    def accept(self, state, granter, grantee, fee, type_urls, time_ns):
        """Whether the grant from granter to grantee pays `fee` ((denom, amount) pairs) for a tx of these
        message types at time_ns: a Used, or the SDK's feegrant error. Nothing is written."""
        found = self.grant(state, granter, grantee)
        if found is None:
            raise error(NO_ALLOWANCE, "allowance does not exist")
        remove, after = allowances.accept(found.allowance, fee, type_urls, time_ns)
        return Used(granter, grantee, remove, after)

    def use(self, ctx, used):
        """UseGrantedFees' writes for an accepted fee: the allowance updated, or revoked when used up."""
        use_event = self._event("use_feegrant", used.granter, used.grantee)
        if used.remove:
            return self.revoke_allowance(ctx, used.granter, used.grantee) + [use_event]
        self._write(ctx, used.granter, used.grantee, used.allowance)
        return [use_event, self._event("update_feegrant", used.granter, used.grantee)]

    def remove_expired(self, ctx, limit):
        """RemoveExpiredAllowances: grants whose expiry is at or before the block time, oldest first, at most
        limit."""
        removed = 0
        for key, _ in ctx.store.iterate(compose(NAME, "q")):
            # compose's parts: "feegrant", "q", time, grantee, granter, each length-prefixed.
            parts, pos = [], 0
            while pos < len(key):
                parts.append(key[pos + 1:pos + 1 + key[pos]])
                pos += 1 + key[pos]
            time_ns, grantee, granter = int.from_bytes(parts[2], "big"), parts[3], parts[4]
            if time_ns > ctx.time_ns or removed == limit:
                break
            ctx.store.delete(_grant_key(grantee, granter))
            ctx.store.delete(key)
            removed += 1
        return removed

    def _write(self, ctx, granter, grantee, any_allowance):
        bech32 = self.bank.bech32
        ctx.store.set(_grant_key(grantee, granter), feegrant_pb2.Grant(
            granter=bech32(granter), grantee=bech32(grantee), allowance=any_allowance).SerializeToString())

    def _event(self, kind, granter, grantee):
        return event(kind, ("granter", self.bank.bech32(granter)), ("grantee", self.bank.bech32(grantee)))
