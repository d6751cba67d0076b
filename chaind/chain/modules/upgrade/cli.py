"""upgrade's CLI table: plan, applied, module_versions, authority; software-upgrade and cancel-software-upgrade,
which submit a gov proposal carrying the message (authority: the gov module account), as the SDK's CLI does."""

import click

from chaind.chain.cli_table import Arg, Queries, Query, Txs

QUERY = Queries("chaind.pb.cosmos.upgrade.v1beta1.query_pb2", "Upgrade plans, applied upgrades, module versions.", (
    Query("plan", "CurrentPlan", "The upgrade plan scheduled, if any.", shows="plan", absent="no upgrade scheduled"),
    Query("applied", "AppliedPlan", "The height the named upgrade was applied at (0: never).", args=(Arg("name"),)),
    Query("module_versions", "ModuleVersions", "The consensus version of each module, or of MODULE_NAME.",
          args=(Arg("module_name", required=False),)),
    Query("authority", "Authority", "The account that may schedule and cancel upgrades (the gov module)."),
))


def _proposal_options(f):
    for option in reversed([
        click.option("--from", "from_", required=True, help="Proposer key (name or address)"),
        click.option("--title", default="", help="The proposal's title"),
        click.option("--summary", default="", help="The proposal's summary"),
        click.option("--metadata", default="", help="The proposal's metadata"),
        click.option("--deposit", default="", help="Initial deposit, e.g. 10achain"),
        click.option("--expedited", is_flag=True, help="An expedited proposal"),
        click.option("--authority", default="", help="The message's authority (default: the gov module account)"),
    ]):
        f = option(f)
    return f


def hand_written(kit):
    def submit(ctx, from_, type_url, msg, title, summary, metadata, deposit, expedited):
        from chaind.pb.cosmos.gov.v1 import tx_pb2

        proposal = tx_pb2.MsgSubmitProposal(
            messages=[kit.any(type_url, msg)],
            initial_deposit=kit.coin_protos(kit.parse_coins(deposit, what="deposit")) if deposit else [],
            proposer=kit.to_bech32(kit.prefix(ctx), kit.sender_address(ctx, from_)), metadata=metadata,
            title=title, summary=summary, expedited=expedited)
        kit.generate_or_broadcast(ctx, from_, [("/cosmos.gov.v1.MsgSubmitProposal", proposal)])

    def gov_account(ctx, given):
        from chaind.crypto.addresses import module_address

        return given or kit.to_bech32(kit.prefix(ctx), module_address("gov"))

    @click.command("software-upgrade")
    @click.argument("name")
    @click.option("--upgrade-height", type=click.IntRange(min=1), required=True, help="The height to upgrade at")
    @click.option("--upgrade-info", default="", help="Info for the upgrade plan (a URL, binaries' checksums...)")
    @_proposal_options
    @kit.tx_options
    def software_upgrade(name, upgrade_height, upgrade_info, from_, title, summary, metadata, deposit, expedited,
                         authority, **_):
        """Submit a proposal to upgrade the chain's software to NAME at --upgrade-height."""
        ctx = click.get_current_context()
        from chaind.pb.cosmos.upgrade.v1beta1 import tx_pb2, upgrade_pb2

        msg = tx_pb2.MsgSoftwareUpgrade(authority=gov_account(ctx, authority), plan=upgrade_pb2.Plan(
            name=name, height=upgrade_height, info=upgrade_info))
        submit(ctx, from_, "/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade", msg, title, summary, metadata, deposit,
               expedited)

    @click.command("cancel-software-upgrade")
    @_proposal_options
    @kit.tx_options
    def cancel_software_upgrade(from_, title, summary, metadata, deposit, expedited, authority, **_):
        """Submit a proposal to cancel the scheduled software upgrade."""
        ctx = click.get_current_context()
        from chaind.pb.cosmos.upgrade.v1beta1 import tx_pb2

        msg = tx_pb2.MsgCancelUpgrade(authority=gov_account(ctx, authority))
        submit(ctx, from_, "/cosmos.upgrade.v1beta1.MsgCancelUpgrade", msg, title, summary, metadata, deposit,
               expedited)

    return [software_upgrade, cancel_software_upgrade]


TX = Txs("chaind.pb.cosmos.upgrade.v1beta1.tx_pb2", "Propose and cancel software upgrades (through gov).",
         custom=hand_written)
