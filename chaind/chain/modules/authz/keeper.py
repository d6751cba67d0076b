"""authz's keeper and state: grants by (granter, grantee, message type URL), and the queue of their expirations.

Grants are cosmos.authz.v1beta1.Grant bytes; the queue holds, per (expiration, granter, grantee), the
GrantQueueItem of the message types that expire then, as x/authz's keeper keeps them.
"""

import struct

from chaind.chain.block import typed_event
from chaind.pb.cosmos.authz.v1beta1 import authz_pb2
from chaind.store.keys import compose, decompose

NAME = "authz"
_GRANTS = compose("authz", "g")
_QUEUE = compose("authz", "q")
# A lower bound of the queue's earliest expiration: the begin blocker reads this one key, and scans the queue
# only once a grant may have expired.
_NEXT = compose("authz", "next")
_TIME = struct.Struct(">Q")

# DequeueAndDeleteExpiredGrants' limit per block in SDK v0.50's begin blocker.
PRUNE_PER_BLOCK = 200


def grant_key(granter, grantee, msg_type_url=None):
    parts = ("authz", "g", granter, grantee) + (() if msg_type_url is None else (msg_type_url,))
    return compose(*parts)


def _queue_key(expiration_ns, granter, grantee):
    return compose("authz", "q", _TIME.pack(expiration_ns), granter, grantee)


def expiration_ns(g):
    return g.expiration.ToNanoseconds() if g.HasField("expiration") else None


class AuthzKeeper:
    """x/authz's keeper, built once from bank (its events name granter and grantee in bech32): reads take a
    state (a view or a block's context), writes a block's context."""

    def __init__(self, bank):
        self.bank = bank

    def grant(self, state, granter, grantee, msg_type_url):
        raw = state.store.get(grant_key(granter, grantee, msg_type_url))
        return None if raw is None else authz_pb2.Grant.FromString(raw)

    def save_grant(self, ctx, granter, grantee, authorization_any, msg_type_url, expiration):
        """SaveGrant: store (replacing the grant of the same triple, and moving its queue entry); EventGrant."""
        old = self.grant(ctx, granter, grantee, msg_type_url)
        old_exp = None if old is None else expiration_ns(old)
        if old_exp is not None and old_exp != expiration:
            self._remove_from_queue(ctx, old_exp, granter, grantee, msg_type_url)
        if expiration is not None and old_exp != expiration:
            self._add_to_queue(ctx, expiration, granter, grantee, msg_type_url)
        g = authz_pb2.Grant(authorization=authorization_any)
        if expiration is not None:
            g.expiration.FromNanoseconds(expiration)
        ctx.store.set(grant_key(granter, grantee, msg_type_url), g.SerializeToString())
        return [typed_event("cosmos.authz.v1beta1.EventGrant", granter=self.bank.bech32(granter),
                            grantee=self.bank.bech32(grantee), msg_type_url=msg_type_url)]

    def update_authorization(self, ctx, granter, grantee, msg_type_url, g, authorization_any):
        """The keeper's update of grant `g` (as read): it keeps its expiration, its authorization is replaced."""
        g.authorization.CopyFrom(authorization_any)
        ctx.store.set(grant_key(granter, grantee, msg_type_url), g.SerializeToString())

    def delete_grant(self, ctx, granter, grantee, msg_type_url):
        """DeleteGrant of a grant known to exist: its queue entry too; EventRevoke."""
        g = self.grant(ctx, granter, grantee, msg_type_url)
        exp = expiration_ns(g)
        if exp is not None:
            self._remove_from_queue(ctx, exp, granter, grantee, msg_type_url)
        ctx.store.delete(grant_key(granter, grantee, msg_type_url))
        return [typed_event("cosmos.authz.v1beta1.EventRevoke", granter=self.bank.bech32(granter),
                            grantee=self.bank.bech32(grantee), msg_type_url=msg_type_url)]

    def _queue_item(self, state, key):
        raw = state.store.get(key)
        return authz_pb2.GrantQueueItem() if raw is None else authz_pb2.GrantQueueItem.FromString(raw)

    def _add_to_queue(self, ctx, expiration, granter, grantee, msg_type_url):
        key = _queue_key(expiration, granter, grantee)
        item = self._queue_item(ctx, key)
        item.msg_type_urls.append(msg_type_url)
        ctx.store.set(key, item.SerializeToString())
        earliest = ctx.store.get(_NEXT)
        if earliest is None or expiration < int(earliest):
            ctx.store.set(_NEXT, str(expiration).encode())

    def _remove_from_queue(self, ctx, expiration, granter, grantee, msg_type_url):
        key = _queue_key(expiration, granter, grantee)
        item = self._queue_item(ctx, key)
        kept = [url for url in item.msg_type_urls if url != msg_type_url]
        if kept:
            ctx.store.set(key, authz_pb2.GrantQueueItem(msg_type_urls=kept).SerializeToString())
        else:
            ctx.store.delete(key)

    def prune_expired(self, ctx, now_ns, limit=PRUNE_PER_BLOCK):
        """DequeueAndDeleteExpiredGrants: the grants whose expiration is at or before `now_ns`, at most `limit`
        queue entries; no events, as the SDK's."""
        earliest = ctx.store.get(_NEXT)
        if earliest is None or int(earliest) > now_ns:
            return
        due, following = [], None
        for key, raw in ctx.store.iterate(_QUEUE):
            when, granter, grantee = decompose(key)[2:]
            when = _TIME.unpack(when)[0]
            if when > now_ns or len(due) == limit:
                following = when
                break
            due.append((key, granter, grantee, authz_pb2.GrantQueueItem.FromString(raw)))
        if following is None:
            ctx.store.delete(_NEXT)
        else:
            ctx.store.set(_NEXT, str(following).encode())
        for key, granter, grantee, item in due:
            ctx.store.delete(key)
            for url in item.msg_type_urls:
                ctx.store.delete(grant_key(granter, grantee, url))

    def grants_between(self, state, granter, grantee):
        """[(msg type URL bytes, Grant)] of a granter to a grantee, in key order."""
        prefix = grant_key(granter, grantee)
        return [(decompose(key[len(prefix):])[0], authz_pb2.Grant.FromString(raw))
                for key, raw in state.store.iterate(prefix)]

    def grants_of_granter(self, state, granter):
        """[(key after the granter, grantee, Grant)] of every grant a granter gave, in key order."""
        prefix = compose("authz", "g", granter)
        out = []
        for key, raw in state.store.iterate(prefix):
            rest = key[len(prefix):]
            grantee, _ = decompose(rest)
            out.append((rest, grantee, authz_pb2.Grant.FromString(raw)))
        return out

    def all_grants(self, state):
        """[(key after the grants prefix, granter, grantee, Grant)] of every grant, in key order."""
        out = []
        for key, raw in state.store.iterate(_GRANTS):
            rest = key[len(_GRANTS):]
            granter, grantee, _ = decompose(rest)
            out.append((rest, granter, grantee, authz_pb2.Grant.FromString(raw)))
        return out
