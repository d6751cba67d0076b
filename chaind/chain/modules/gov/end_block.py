"""gov's end blocker (x/gov/abci.go): drop proposals whose deposit period ended, tally those whose voting
period ended, and run a passed proposal's messages as the gov account, all or none."""

import functools

from twisted.logger import Logger

from chaind.chain import errors
from chaind.chain.block import event
from chaind.chain.modules.gov import deposits
from chaind.chain.modules.gov.msgs import GOV, decode_messages
from chaind.chain.modules.gov.tally import tally
from chaind.pb.cosmos.gov.v1 import gov_pb2

log = Logger()


def end_block(app, ctx):
    keeper = app.keepers["gov"]
    for pid in keeper.due(ctx, "inactive", ctx.time_ns):
        p = keeper.proposal(ctx, pid)
        if p is None:
            continue
        keeper.delete_proposal(ctx, p)
        # The params are read only when a proposal is due (most blocks have none); nothing before changes them.
        if keeper.params(ctx).burn_proposal_deposit_prevote:
            ctx.events.extend(deposits.burn_and_delete(app, ctx, pid))
        else:
            ctx.events.extend(deposits.refund_and_delete(app, ctx, pid))
        ctx.events.append(event("inactive_proposal", ("proposal_id", str(pid)),
                                ("proposal_result", "proposal_dropped")))
    for pid in keeper.due(ctx, "active", ctx.time_ns):
        p = keeper.proposal(ctx, pid)
        if p is None:
            continue
        passes, burn, result = tally(app, ctx, p, functools.partial(keeper.delete_vote, ctx, pid))
        # A failed expedited proposal becomes a regular one: its deposits stay for the second tally.
        if not (p.expedited and not passes):
            if burn:
                ctx.events.extend(deposits.burn_and_delete(app, ctx, pid))
            else:
                ctx.events.extend(deposits.refund_and_delete(app, ctx, pid))
        keeper.dequeue(ctx, "active", p.voting_end_time.ToNanoseconds(), pid)
        if passes:
            tag, message = _execute(app, ctx, p)
        elif p.expedited:
            p.expedited = False
            p.voting_end_time.FromNanoseconds(p.voting_start_time.ToNanoseconds()
                                              + keeper.params(ctx).voting_period.ToNanoseconds())
            keeper.enqueue(ctx, "active", p.voting_end_time.ToNanoseconds(), pid)
            tag, message = "expedited_proposal_rejected", "expedited proposal converted to regular"
        else:
            p.status = gov_pb2.PROPOSAL_STATUS_REJECTED
            tag, message = "proposal_rejected", "rejected"
        p.final_tally_result.CopyFrom(result)
        keeper.set_proposal(ctx, p)
        log.info("proposal {id} tallied: {result}", id=pid, result=message)
        ctx.events.append(event("active_proposal", ("proposal_id", str(pid)), ("proposal_result", tag),
                                ("proposal_log", message)))


def _execute(app, ctx, p):
    """The proposal's messages on a cached state: written with their events only if every one succeeds."""
    store_snapshot = dict(ctx.store.changes)
    evm_snapshot = ctx.accounts.snapshot()
    emitted, index, type_url = [], 0, ""
    try:
        decoded = decode_messages(app, p.messages)
        for index, (handler, msg) in enumerate(decoded):  # noqa: B007 (the excepts below name the failing msg)
            type_url = handler.type_url
            handler.validate(app, msg)
            events, _ = handler.execute(app, ctx, msg, GOV)
            emitted += events
    except errors.TxError as e:
        ctx.store.changes = store_snapshot
        ctx.accounts.revert(evm_snapshot)
        p.status = gov_pb2.PROPOSAL_STATUS_FAILED
        p.failed_reason = e.log
        return "proposal_failed", f"passed, but msg {index} ({type_url}) failed on execution: {e.log}"
    except Exception as e:  # noqa: BLE001 (safeExecuteHandler: a handler's crash fails the proposal)
        # safeExecuteHandler: a handler's crash fails the proposal, not the block.
        log.failure("proposal {id}: message {index} crashed", id=p.id, index=index)
        ctx.store.changes = store_snapshot
        ctx.accounts.revert(evm_snapshot)
        p.status = gov_pb2.PROPOSAL_STATUS_FAILED
        p.failed_reason = f"handling x/gov proposal msg [{index}] PANICKED: {e}"
        return "proposal_failed", f"passed, but msg {index} ({type_url}) failed on execution: {p.failed_reason}"
    ctx.accounts.commit(evm_snapshot)
    p.status = gov_pb2.PROPOSAL_STATUS_PASSED
    ctx.events.extend(emitted)
    return "proposal_passed", "passed"
