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

# draft-proposal's choices and files, as the SDK v0.50's (x/gov/client/cli/prompt.go).
DRAFT_PROPOSAL_FILE = "draft_proposal.json"
DRAFT_METADATA_FILE = "draft_metadata.json"
PROPOSAL_TYPES = (("text", ""), ("community-pool-spend", "/cosmos.distribution.v1beta1.MsgCommunityPoolSpend"),
                  ("software-upgrade", "/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade"),
                  ("cancel-software-upgrade", "/cosmos.upgrade.v1beta1.MsgCancelUpgrade"), ("other", ""))
# gov's ProposalMetadata fields and their prompts.
METADATA_PROMPTS = (("title", "title"), ("authors", "authors"), ("summary", "summary"), ("details", "details"),
                    ("proposal_forum_url", "proposal forum url"), ("vote_option_context", "vote option context"))
# A message field whose name says it holds an account address is checked as one (the SDK matches these words).
_ADDRESS_WORDS = ("addr", "sender", "voter", "depositor", "granter", "grantee", "recipient", "authority")


def _prompt(label, check):
    """Ask until `check(answer)` takes it (it raises click.UsageError saying why not); end of input aborts."""
    return click.prompt(label, value_proc=check)


def _not_empty(text):
    if not text.strip():
        raise click.UsageError("input cannot be empty")
    return text


def _one_of(text, names):
    if text.strip().lower() not in names:
        raise click.UsageError(f"want one of {', '.join(names)}")
    return text.strip().lower()


def _coins(kit, text):
    try:
        kit.parse_coins(text, what="coins")
    except click.ClickException as e:
        raise click.UsageError(e.message) from None
    return text


def _message_type(kit, text):
    from chaind.chain.txjson import message_class

    if message_class(text.strip()) is None:
        raise click.UsageError(f"unknown message type {text.strip()!r}")
    return text.strip()


def _prompt_message(kit, ctx, type_url):
    """The message of `type_url` as JSON with its "@type": each text or number field asked for ("Enter msg
    <field>"), message-typed fields left for the user to fill in the file."""
    from google.protobuf.descriptor import FieldDescriptor as F

    from chaind.chain.txjson import message_class
    from chaind.crypto.addresses import module_address

    msg = message_class(type_url)()
    gov = kit.to_bech32(kit.prefix(ctx), module_address("gov"))
    for field in msg.DESCRIPTOR.fields:
        if field.type == F.TYPE_MESSAGE or field.type not in (F.TYPE_STRING, F.TYPE_INT64, F.TYPE_UINT64,
                                                              F.TYPE_INT32, F.TYPE_UINT32):
            continue
        label = f"Enter msg {field.name.replace('_', ' ')}"
        is_address = field.type == F.TYPE_STRING and any(w in field.name for w in _ADDRESS_WORDS)

        def check(text, is_address=is_address, number=field.type != F.TYPE_STRING):
            _not_empty(text)
            if number:
                try:
                    return int(text)
                except ValueError:
                    raise click.UsageError(f"invalid value for int: {text!r}") from None
            if is_address:
                try:
                    return kit.bech32_address(ctx, text)
                except Exception as e:  # noqa: BLE001 (the address parser's error, said at the prompt)
                    raise click.UsageError(f"invalid address: {e}") from None
            return text

        value = click.prompt(label, default=gov if field.name == "authority" else None, value_proc=check)
        if field.is_repeated:
            getattr(msg, field.name).append(value)
        else:
            setattr(msg, field.name, value)
    return kit.json_of(kit.any(type_url, msg))


def _write(path, doc):
    import json
    import os

    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, indent=1)
    except OSError as e:
        raise click.ClickException(f"cannot write {path}: {e}") from None


def _draft(kit, ctx, skip_metadata, title, summary, deposit, expedited, output):
    """draft-proposal's prompts, then its files."""
    import os

    chosen = _prompt("Select proposal type (" + ", ".join(name for name, _ in PROPOSAL_TYPES) + ")",
                     lambda text: _one_of(text, [name for name, _ in PROPOSAL_TYPES]))
    type_url = dict(PROPOSAL_TYPES)[chosen]
    if chosen == "other":
        type_url = _prompt("Select proposal message type (its type URL, e.g. /cosmos.bank.v1beta1.MsgSend)",
                           lambda text: _message_type(kit, text))
    metadata = {}
    for field, label in METADATA_PROMPTS:
        if skip_metadata and field not in ("title", "summary"):
            continue
        given = {"title": title, "summary": summary}.get(field)
        metadata[field] = given or _prompt(f"Enter proposal {label}", _not_empty)
    if "authors" in metadata:
        metadata["authors"] = [metadata["authors"]]
    deposit = deposit or _prompt("Enter proposal deposit", lambda text: _coins(kit, text))
    doc = {"messages": [], "metadata": "ipfs://CID", "deposit": deposit, "title": metadata["title"],
           "summary": metadata["summary"], "expedited": expedited}
    if type_url:
        doc["messages"] = [_prompt_message(kit, ctx, type_url)]
    else:
        del doc["messages"]     # a text proposal has none (the SDK's omitempty)
    _write(output, doc)
    if not skip_metadata:
        _write(os.path.join(os.path.dirname(output), DRAFT_METADATA_FILE), metadata)
    click.echo("The draft proposal has successfully been generated.\nProposals should contain off-chain "
               "metadata, please upload the metadata JSON to IPFS.\nThen, replace the generated metadata field "
               "with the IPFS CID.")


def _legacy_proposal(title, description, type_, deposit, path):
    """submit-legacy-proposal's {title, description, type, deposit}, from the flags or the --proposal file, as the
    SDK's parseSubmitLegacyProposal reads them."""
    import json

    if not path:
        doc = {"title": title, "description": description, "type": type_, "deposit": deposit}
    else:
        for flag, value in (("title", title), ("description", description), ("type", type_), ("deposit", deposit)):
            if value:
                raise click.ClickException(f"failed to parse proposal: --{flag} flag provided alongside --proposal, "
                                           "which is a noop")
        try:
            with open(path) as f:
                read = json.load(f)
        except (OSError, ValueError) as e:
            raise click.ClickException(f"failed to parse proposal: {e}") from None
        if not isinstance(read, dict):
            raise click.ClickException("failed to parse proposal: want a JSON object")
        doc = {key: str(read.get(key) or "") for key in ("title", "description", "type", "deposit")}
    if doc["type"].lower() == "text":
        doc["type"] = "Text"
    for key in ("type", "title", "description"):
        if not doc[key]:
            raise click.ClickException(f"failed to parse proposal: proposal {key} is required")
    return doc


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
    @click.option("--skip-metadata", is_flag=True, help="Skip the metadata prompts (title and summary only)")
    @click.option("--title", default="", help="The proposal's title (not asked for when given)")
    @click.option("--summary", default="", help="The proposal's summary (not asked for when given)")
    @click.option("--deposit", default="", help="Initial deposit, e.g. 10achain (not asked for when given)")
    @click.option("--expedited", is_flag=True, help="An expedited proposal")
    @click.option("--output", "output", default=DRAFT_PROPOSAL_FILE, type=click.Path(dir_okay=False),
                  help="Where to write the draft (the metadata goes to draft_metadata.json beside it)")
    def draft_proposal(skip_metadata, title, summary, deposit, expedited, output):
        """Generate a draft proposal json file. The generated proposal json contains only one message (skeleton).

        Asks, as the SDK's: the proposal type (text, community-pool-spend, software-upgrade,
        cancel-software-upgrade, or other and its message's type URL), the metadata (title, authors, summary,
        details, forum URL, vote option context; title and summary alone with --skip-metadata), the deposit,
        then each text or number field of the message (its authority: the gov module account by default)."""
        _draft(kit, click.get_current_context(), skip_metadata, title, summary, deposit, expedited, output)

    @click.command("submit-legacy-proposal")
    @click.option("--title", default="", help="The proposal title")
    @click.option("--description", default="", help="The proposal description")
    @click.option("--type", "type_", default="", help="The proposal Type")
    @click.option("--deposit", default="", help="The proposal deposit")
    @click.option("--proposal", default="",
                  help="Proposal file path (if this path is given, other proposal flags are ignored)")
    @click.option("--from", "from_", required=True, help="Proposer key (name or address)")
    @kit.tx_options
    def submit_legacy_proposal(title, description, type_, deposit, proposal, from_, **_):
        """Submit a legacy proposal along with an initial deposit.

        Title, description, type and deposit are given directly or through a JSON file (--proposal) holding
        {"title", "description", "type", "deposit"}. Only the Text type has content here, as in the SDK v0.50.
        """
        ctx = click.get_current_context()
        legacy = _legacy_proposal(title, description, type_, deposit, proposal)
        from chaind.pb.cosmos.gov.v1beta1 import gov_pb2, tx_pb2

        if legacy["type"] != "Text":
            raise click.ClickException(f"failed to create proposal content: unknown proposal type {legacy['type']}")
        content = gov_pb2.TextProposal(title=legacy["title"], description=legacy["description"])
        deposit = legacy["deposit"]
        msg = tx_pb2.MsgSubmitProposal(
            content=kit.any("/cosmos.gov.v1beta1.TextProposal", content),
            initial_deposit=kit.coin_protos(kit.parse_coins(deposit, what="deposit")) if deposit else [],
            proposer=kit.to_bech32(kit.prefix(ctx), kit.sender_address(ctx, from_)))
        kit.generate_or_broadcast(ctx, from_, [("/cosmos.gov.v1beta1.MsgSubmitProposal", msg)])

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

    return [submit_proposal, draft_proposal, submit_legacy_proposal, weighted_vote]


TX = Txs("chaind.pb.cosmos.gov.v1.tx_pb2", "Submit, fund, vote on and cancel governance proposals.", (
    Msg("deposit", "MsgDeposit", "Deposit AMOUNT on a proposal, as 10achain.", "depositor",
        args=(_ID, Arg("amount", "coins"))),
    Msg("vote", "MsgVote", "Vote yes, abstain, no or no_with_veto on a proposal.", "voter",
        args=(_ID, Arg("option", name="option", parse=vote_option))),
    Msg("cancel-proposal", "MsgCancelProposal", "Cancel a proposal you submitted (part of its deposits is "
        "burned).", "proposer", args=(_ID,)),
), custom=hand_written, signers={"MsgSubmitProposal": "proposer", "MsgVoteWeighted": "voter"})
