"""eth_getLogs and the polled filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter).

A filter is an event-bus subscription whose bounded queue holds what arrived since the last poll;
a filter nobody polls for `filter_timeout` seconds is removed, as geth removes it.
"""

import collections
import secrets

import attrs
from twisted.application import service

from chaind import errors
from chaind.api import encoding as enc
from chaind.api import logs
from chaind.api import params as p
from chaind.api.caller import CALLER
from chaind.events import types as ev

LOGS, BLOCKS, PENDING = "logs", "blocks", "pending"


@attrs.define(eq=False)
class Filter:
    kind: str
    subscription: object
    expiry: object                  # IDelayedCall that removes the filter
    criteria: logs.LogCriteria = None
    dropped: str = None             # why the bus cancelled it, told at the next poll
    client: object = None           # who installed it (api/caller.py), when its transport can tell


class FilterApi(service.Service):
    def __init__(self, app, settings, bus, reactor, call_pool):
        """settings: [json-rpc] (caps, filter queue and timeout)."""
        self.app = app
        self.settings = settings
        self.bus = bus
        self.reactor = reactor
        self.call_pool = call_pool
        self.filters = {}
        self.per_client = collections.Counter()     # filters installed by each client told apart

    def methods(self):
        return {
            "eth_getLogs": self.get_logs,
            "eth_newFilter": self.new_filter,
            "eth_newBlockFilter": lambda params: self._install(params, BLOCKS),
            "eth_newPendingTransactionFilter": lambda params: self._install(params, PENDING),
            "eth_getFilterChanges": self.get_filter_changes,
            "eth_getFilterLogs": self.get_filter_logs,
            "eth_uninstallFilter": self.uninstall_filter,
        }

    def stopService(self):
        for filter_id in list(self.filters):
            self._remove(filter_id)
        return super().stopService()

    # -- eth_getLogs --------------------------------------------------------------------------

    def get_logs(self, params):
        p.at_most(params, 1)
        return self._query(logs.parse_criteria(p.arg(params, 0)))

    def _query(self, criteria):
        s = self.settings
        return self.call_pool.run(logs.query, self.app, criteria, s.logs_cap, s.block_range_cap)

    # -- installing ---------------------------------------------------------------------------

    def new_filter(self, params):
        p.at_most(params, 1)
        criteria = logs.parse_criteria(p.arg(params, 0))
        if criteria.block_hash is None:
            start, end = (_fixed_height(criteria.from_block), _fixed_height(criteria.to_block))
            if start is not None and end is not None and start > end:
                raise errors.invalid_argument("invalid block range params")
        return self._install([], LOGS, criteria)

    def _install(self, params, kind, criteria=None):
        p.at_most(params, 0)
        if len(self.filters) >= self.settings.filter_cap:
            raise errors.limit_exceeded(
                f"error creating filter: max limit reached ({self.settings.filter_cap} filters)")
        # One client cannot take every filter: each WebSocket connection, and each browser origin over HTTP, has
        # a share of its own (HTTP clients without an Origin cannot be told apart: the total bounds them).
        client, share = CALLER.get(), self.settings.filter_cap_per_client
        if client is not None and self.per_client[client] >= share:
            raise errors.limit_exceeded(
                f"error creating filter: max limit reached for this client ({share} filters)")
        filter_id = _new_id()
        matches = {LOGS: lambda e: _wants_logs(criteria, e), BLOCKS: lambda e: isinstance(e, ev.NewBlock),
                   PENDING: lambda e: isinstance(e, ev.PendingTx) and e.tx.kind == "evm"}[kind]
        subscription = self.bus.subscribe(
            matches, capacity=self.settings.filter_queue,
            on_cancel=lambda reason: self._dropped(filter_id, reason))
        expiry = self.reactor.callLater(self.settings.filter_timeout, self._remove, filter_id)
        self.filters[filter_id] = Filter(kind, subscription, expiry, criteria, client=client)
        if client is not None:
            self.per_client[client] += 1
        return filter_id

    def _dropped(self, filter_id, reason):
        found = self.filters.get(filter_id)
        if found is not None:
            found.dropped = reason

    def _remove(self, filter_id):
        found = self.filters.pop(filter_id, None)
        if found is None:
            return False
        if found.expiry.active():
            found.expiry.cancel()
        self.bus.unsubscribe(found.subscription)
        if found.client is not None:
            self.per_client[found.client] -= 1
            if not self.per_client[found.client]:
                del self.per_client[found.client]
        return True

    def uninstall_filter(self, params):
        p.at_most(params, 1)
        return self._remove(p.arg(params, 0))

    def rewound(self, height):
        """The chain went back to `height` (a dev revert): what filters hold of later blocks is gone."""
        for found in self.filters.values():
            queue = found.subscription.queue
            kept = [e for e in queue if getattr(e, "block", None) is None or e.block.height <= height]
            queue.clear()
            queue.extend(kept)

    # -- polling ------------------------------------------------------------------------------

    def _polled(self, params):
        p.at_most(params, 1)
        filter_id = p.arg(params, 0)
        found = self.filters.get(filter_id) if isinstance(filter_id, str) else None
        if found is None:
            raise errors.not_found("filter not found")
        if found.dropped is not None:
            self._remove(filter_id)
            raise errors.not_found(f"filter removed: {found.dropped}; install it again")
        found.expiry.reset(self.settings.filter_timeout)
        return found

    def get_filter_changes(self, params):
        found = self._polled(params)
        events = found.subscription.drain()
        if found.kind == BLOCKS:
            return [enc.d(e.block.meta.hash) for e in events]
        if found.kind == PENDING:
            return [enc.d(e.tx.evm_hash) for e in events]
        out = []
        for e in events:
            block = e.block
            for result in block.results:
                out += logs.tx_logs(found.criteria, result, block.header, block.meta)
        return out

    def get_filter_logs(self, params):
        found = self._polled(params)
        if found.kind != LOGS:
            raise errors.not_found("filter not found")
        return self._query(found.criteria)


def _wants_logs(criteria, event):
    if not isinstance(event, ev.NewBlock):
        return False
    block = event.block
    if criteria.block_hash is not None and block.meta.hash != criteria.block_hash:
        return False
    start, end = _fixed_height(criteria.from_block), _fixed_height(criteria.to_block)
    if (start is not None and block.height < start) or (end is not None and block.height > end):
        return False
    return bool(block.meta.log_count) and criteria.may_be_in(block.meta.bloom)


def _fixed_height(value):
    """A height given as a number; tags follow the head, so they bound nothing."""
    return value if isinstance(value, int) else None


def _new_id():
    """A filter id as geth makes them: 16 random bytes in hex, leading zeros trimmed."""
    return "0x" + (secrets.token_bytes(16).hex().lstrip("0") or "0")
