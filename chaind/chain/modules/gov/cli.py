"""gov's CLI table: proposals, votes, deposits, tallies, params, the constitution; deposit, vote, cancel-proposal,
and the hand-written submit-proposal (a JSON file, as the SDK's), draft-proposal and weighted-vote."""

import json

import click

from chaind.chain.cli_table import Arg, Flag, Msg, Queries, Query, Txs

_ID = Arg("proposal_id", "uint")
_OPTIONS = {"yes": 1, "abstain": 2, "no": 3, "no_with_veto": 4, "nowithveto": 4}


def vote_option(text):
    """yes, abstain, no, no_with_veto (or the VOTE_OPTION_ names), as the SDK's VoteOptionFromString."""
    key = text.lower().removeprefix("vote_option_")
    if key not in _OPTIONS:
        raise ValueError(f"'{text}' is not a valid vote option: want yes, abstain, no or no_with_veto")
    return _OPTIONS[key]


QUERY = Queries("chaind.pb.cosmos.gov.v1.query_pb2", "Proposals, votes, deposits, tallies and parameters.", (
    Query("constitution", "Constitution", "The chain's constitution."),
    Query("proposal", "Proposal", "One proposal.", args=(_ID,)),
    Query("proposals", "Proposals", "Proposals, optionally only those of a status, voter or depositor.", flags=(
        Flag("status", "PROPOSAL_STATUS_DEPOSIT_PERIOD, _VOTING_PERIOD, _PASSED, _REJECTED or _FAILED",
             default="PROPOSAL_STATUS_UNSPECIFIED", field="proposal_status"),
        Flag("voter", "Only proposals this address voted on (bech32)"),
        Flag("depositor", "Only proposals this address deposited on (bech32)"))),
    Query("vote", "Vote", "A voter's vote on a proposal.", args=(_ID, Arg("voter", "acc"))),
    Query("votes", "Votes", "The votes on a proposal.", args=(_ID,)),
    Query("deposit", "Deposit", "A depositor's deposit on a proposal.", args=(_ID, Arg("depositor", "acc"))),
    Query("deposits", "Deposits", "The deposits on a proposal.", args=(_ID,)),
    Query("tally", "TallyResult", "A proposal's tally: running while it is voted, final once it ended.",
          args=(_ID,)),
    Query("params", "Params", "The gov module's parameters (--type voting, tallying or deposit adds the legacy "
          "group).", flags=(Flag("type", "voting, tallying or deposit", field="params_type"),)),
))

_DRAFT = {"messages": [], "metadata": "", "deposit": "", "title": "", "summary": "", "expedited": False}


def hand_written(kit):
    @click.command("submit-proposal")
    @click.argument("proposal_file", type=click.Path(dir_okay=False))
    @click.option("--from", "from_", required=True, help="Proposer key (name or address)")
    @kit.tx_options
    def submit_proposal(proposal_file, from_, **_):
        """Submit a proposal from PROPOSAL_FILE (JSON, as v0.50 takes: messages with their "@type", metadata,
        deposit, title, summary, expedited)."""
        ctx = click.get_current_context()
        try:
            with open(proposal_file) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            raise click.ClickException(f"cannot read {proposal_file}: {e}") from None
        if not isinstance(doc, dict):
            raise click.ClickException(f"{proposal_file}: want a JSON object")
        unknown = set(doc) - set(_DRAFT)
        if unknown:
            raise click.ClickException(f"{proposal_file}: unknown field(s) {', '.join(sorted(unknown))}")
        if not isinstance(doc.get("messages", []), list):
            raise click.ClickException(f"{proposal_file}: messages must be a list")
        from chaind.pb.cosmos.gov.v1 import tx_pb2

        deposit = str(doc.get("deposit") or "")
        msg = tx_pb2.MsgSubmitProposal(
            messages=[kit.any_from_json(m) for m in doc.get("messages", [])],
            initial_deposit=kit.coin_protos(kit.parse_coins(deposit, what="deposit")) if deposit else [],
            proposer=kit.to_bech32(kit.prefix(ctx), kit.sender_address(ctx, from_)),
            metadata=str(doc.get("metadata") or ""), title=str(doc.get("title") or ""),
            summary=str(doc.get("summary") or ""), expedited=bool(doc.get("expedited", False)))
        kit.generate_or_broadcast(ctx, from_, [("/cosmos.gov.v1.MsgSubmitProposal", msg)])

    @click.command("draft-proposal")
    @click.option("--title", default="", help="The proposal's title")
    @click.option("--summary", default="", help="The proposal's summary")
    @click.option("--deposit", default="", help="Initial deposit, e.g. 10achain")
    @click.option("--expedited", is_flag=True, help="An expedited proposal")
    @click.option("--output", "output", default="draft_proposal.json", type=click.Path(dir_okay=False),
                  help="Where to write the draft")
    def draft_proposal(title, summary, deposit, expedited, output):
        """Write a proposal file to fill in (messages as JSON with their "@type") for submit-proposal."""
        doc = {**_DRAFT, "title": title, "summary": summary, "deposit": deposit, "expedited": expedited}
        try:
            with open(output, "w") as f:
                json.dump(doc, f, indent=2)
                f.write("\n")
        except OSError as e:
            raise click.ClickException(f"cannot write {output}: {e}") from None
        click.echo(f"The draft proposal has been written to {output}")

    @click.command("weighted-vote")
    @click.argument("proposal_id", type=click.IntRange(min=1))
    @click.argument("weighted_options")
    @click.option("--from", "from_", required=True, help="Voter key (name or address)")
    @click.option("--metadata", default="", help="Metadata of the vote")
    @kit.tx_options
    def weighted_vote(proposal_id, weighted_options, from_, metadata, **_):
        """Vote on PROPOSAL_ID split between options: e.g. yes=0.6,no=0.3,abstain=0.1."""
        ctx = click.get_current_context()
        from chaind.chain import legacy_dec
        from chaind.pb.cosmos.gov.v1 import gov_pb2, tx_pb2

        options = []
        for part in weighted_options.split(","):
            name, _, weight = part.partition("=")
            try:
                options.append(gov_pb2.WeightedVoteOption(option=vote_option(name.strip()),
                                                          weight=legacy_dec.format(legacy_dec.parse(weight.strip()))))
            except ValueError as e:
                raise click.ClickException(f"invalid weighted option {part!r}: {e}") from None
        msg = tx_pb2.MsgVoteWeighted(proposal_id=proposal_id, options=options, metadata=metadata,
                                     voter=kit.to_bech32(kit.prefix(ctx), kit.sender_address(ctx, from_)))
        kit.generate_or_broadcast(ctx, from_, [("/cosmos.gov.v1.MsgVoteWeighted", msg)])

    return [submit_proposal, draft_proposal, weighted_vote]


TX = Txs("chaind.pb.cosmos.gov.v1.tx_pb2", "Submit, fund, vote on and cancel governance proposals.", (
    Msg("deposit", "MsgDeposit", "Deposit AMOUNT on a proposal, as 10achain.", "depositor",
        args=(_ID, Arg("amount", "coins"))),
    Msg("vote", "MsgVote", "Vote yes, abstain, no or no_with_veto on a proposal.", "voter",
        args=(_ID, Arg("option", name="option", parse=vote_option))),
    Msg("cancel-proposal", "MsgCancelProposal", "Cancel a proposal you submitted (part of its deposits is "
        "burned).", "proposer", args=(_ID,)),
), custom=hand_written, signers={"MsgSubmitProposal": "proposer", "MsgVoteWeighted": "voter"})
