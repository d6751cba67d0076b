"""gov's genesis: app_state.gov {starting_proposal_id, deposits, votes, proposals, params, constitution} (the
SDK's v1 GenesisState JSON): params, proposals back in their queues, deposits, votes, and the gov account."""

import attrs
from google.protobuf import json_format

from chaind.chain.module_genesis import GenesisError, ModuleGenesis, to_json
from chaind.chain.modules.gov.keeper import GOV
from chaind.chain.modules.gov.params import default_params, parse_params
from chaind.crypto.addresses import AddressError, parse
from chaind.pb.cosmos.gov.v1 import gov_pb2

# The v1beta1-era params objects the SDK's GenesisState still carries (deprecated: params replaces them); an
# export writes them null.
_DEPRECATED = ("deposit_params", "voting_params", "tally_params")


@attrs.frozen
class GovGenesis:
    starting_proposal_id: int
    params: object             # gov_pb2.Params
    constitution: str
    proposals: tuple           # gov_pb2.Proposal
    deposits: tuple            # (depositor bytes, gov_pb2.Deposit)
    votes: tuple               # (voter bytes, gov_pb2.Vote)


def validate(section, context):
    """x/gov's ValidateGenesis: params, a starting proposal id; each proposal, deposit and vote readable, none
    twice, and every deposit and vote of a proposal the genesis has."""
    section = section or {}
    unknown = set(section) - {"starting_proposal_id", "params", "constitution", "deposits", "votes", "proposals",
                              *_DEPRECATED}
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)}")
    for name in _DEPRECATED:
        if section.get(name):
            raise ValueError(f"{name}: deprecated, give params instead")
    try:
        p = parse_params(section.get("params"), context.bond_denom, context.bech32_prefix)
    except ValueError as e:
        raise ValueError(f"params: {e}") from None
    start = int(section.get("starting_proposal_id", "1"))
    if start < 1:
        raise ValueError(f"starting_proposal_id: must be positive, got {start}")
    proposals = tuple(_parse_all(section, "proposals", gov_pb2.Proposal))
    ids = set()
    for i, found in enumerate(proposals):
        if found.id in ids:
            raise ValueError(f"proposals[{i}]: duplicate proposal id: {found.id}")
        ids.add(found.id)
    deposits = _owned(section, "deposits", gov_pb2.Deposit, "depositor", ids, context.bech32_prefix)
    votes = _owned(section, "votes", gov_pb2.Vote, "voter", ids, context.bech32_prefix)
    return GovGenesis(start, p, section.get("constitution", ""), proposals, deposits, votes)


def _parse_all(section, name, cls):
    for i, entry in enumerate(section.get(name) or ()):
        try:
            yield json_format.ParseDict(entry, cls())
        except json_format.ParseError as e:
            raise ValueError(f"{name}[{i}]: {e}") from None


def _owned(section, name, cls, owner_field, ids, prefix):
    out, seen = [], set()
    for i, found in enumerate(_parse_all(section, name, cls)):
        try:
            owner = parse(getattr(found, owner_field), prefix)
        except AddressError as e:
            raise ValueError(f"{name}[{i}].{owner_field}: {e}") from None
        if found.proposal_id not in ids:
            raise ValueError(f"{name}[{i}]: proposal {found.proposal_id} is not in the genesis' proposals")
        if (found.proposal_id, owner) in seen:
            raise ValueError(f"{name}[{i}]: duplicate {owner_field} {getattr(found, owner_field)} of proposal "
                             f"{found.proposal_id}")
        seen.add((found.proposal_id, owner))
        out.append((owner, found))
    return tuple(out)


def init_genesis(app, ctx, genesis):
    """x/gov's InitGenesis: deposits, votes, proposals back in the deposit or voting queue; the gov account holds
    exactly the deposits (bank's genesis gave it its balance)."""
    keeper = app.keepers["gov"]
    keeper.set_params(ctx, genesis.params)
    keeper.set_next_proposal_id(ctx, genesis.starting_proposal_id)
    keeper.set_constitution(ctx, genesis.constitution)
    app.ensure_account(ctx, GOV)
    total = {}
    for depositor, found in genesis.deposits:
        keeper.set_deposit(ctx, found.proposal_id, depositor, found)
        for coin in found.amount:
            total[coin.denom] = total.get(coin.denom, 0) + int(coin.amount)
    for voter, found in genesis.votes:
        keeper.set_vote(ctx, found.proposal_id, voter, found)
    for found in genesis.proposals:
        if found.status == gov_pb2.PROPOSAL_STATUS_DEPOSIT_PERIOD:
            keeper.enqueue(ctx, "inactive", found.deposit_end_time.ToNanoseconds(), found.id)
        elif found.status == gov_pb2.PROPOSAL_STATUS_VOTING_PERIOD:
            keeper.enqueue(ctx, "active", found.voting_end_time.ToNanoseconds(), found.id)
        keeper.set_proposal(ctx, found)
    held = {d: a for d, a in app.keepers["bank"].all_balances(ctx, GOV)}
    if held != {d: a for d, a in total.items() if a}:
        raise GenesisError(f"invalid genesis: app_state.gov: expected module account was {_text(total)} but "
                           f"we got {_text(held)}")


def _text(amounts):
    return ",".join(f"{a}{d}" for d, a in sorted(amounts.items()) if a)


def default(context):
    return {"starting_proposal_id": "1", "deposits": [], "votes": [], "proposals": [],
            "params": to_json(default_params(context.bond_denom)), "constitution": ""}


def export_genesis(app, view):
    """x/gov's ExportGenesis: every proposal with its deposits and votes, params, the constitution."""
    keeper = app.keepers["gov"]
    found = keeper.proposals(view)
    deposits = [to_json(d) for p in found for _, d in keeper.deposits(view, p.id)]
    votes = [to_json(v) for p in found for _, v in keeper.votes(view, p.id)]
    return {"starting_proposal_id": str(keeper.next_proposal_id(view)), "deposits": deposits, "votes": votes,
            "proposals": [to_json(p) for p in found], **dict.fromkeys(_DEPRECATED),
            "params": to_json(keeper.params(view)), "constitution": keeper.constitution(view)}


GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis)
