"""`chaind export`: the chain's state at a height as a genesis document (the Cosmos SDK v0.50's `export`), from
which `chaind init` and that genesis start a chain with the same module state."""

import json

import click

from chaind.cli.offline import node_home, opened_app


@click.command("export")
@click.option("--home", default=None, envvar="CHAIND_HOME", type=click.Path(file_okay=False),
              help="The application home directory (default ~/.chaind)")
@click.option("--height", type=int, default=-1, show_default=True,
              help="Export state from a particular height (-1 means latest height)")
@click.option("--modules-to-export", default="",
              help="Comma-separated list of modules to export. If empty, will export all modules")
@click.option("--output-document", default="", type=click.Path(dir_okay=False),
              help="Exported state is written to the given file instead of STDOUT")
@click.option("--for-zero-height", is_flag=True, default=False,
              help="Export state to start at height zero (perform preproccessing)")
@click.option("--jail-allowed-addrs", default="",
              help="Comma-separated list of operator addresses of jailed validators to unjail")
def export(home, height, modules_to_export, output_document, for_zero_height, jail_allowed_addrs):
    """Export state to JSON.

    Every module's genesis at the height, the EVM's accounts, code and storage among them, its validator set, and
    the next height as the initial one, in the SDK's AppGenesis shape. Stop the node first: LevelDB admits one
    process. With --for-zero-height the state is first made ready for a chain starting at height 1, as the SDK's
    simapp does (rewards and commissions withdrawn, distribution begun anew, staking's and slashing's heights
    reset; with --jail-allowed-addrs every other validator jailed), and the initial height is 0.
    """
    import chaind
    from chaind.chain.genesis import app_genesis, export_document, exportable_names
    from chaind.chain.halt import ChainHalt
    from chaind.crypto.addresses import AddressError, from_bech32

    if height < -1:
        raise click.ClickException(f"error exporting state: height {height} is negative (-1 means latest height)")
    wanted = tuple(name.strip() for name in modules_to_export.split(",") if name.strip())
    allowed_texts = [a.strip() for a in jail_allowed_addrs.split(",") if a.strip()]
    if allowed_texts and not for_zero_height:
        # The SDK passes the list to the zero-height preparation alone; without it the list would do nothing.
        raise click.ClickException("error exporting state: --jail-allowed-addrs applies to --for-zero-height "
                                   "exports only")
    with opened_app(node_home(home)) as app:
        known = exportable_names(app.modules)
        for name in wanted:
            if name not in known:
                raise click.ClickException(f"error exporting state: module {name} does not exist")
        valoper = app.genesis.bech32_prefix + "valoper"
        try:
            allowed = {from_bech32(text, valoper) for text in allowed_texts}
        except AddressError as e:
            raise click.ClickException(f"error exporting state: --jail-allowed-addrs: {e}") from None
        try:
            doc = export_document(app, None if height == -1 else height, wanted or None, for_zero_height,
                                  allowed or None)
        except LookupError as e:        # PrunedError among them
            raise click.ClickException(f"error exporting state: {e}") from None
        except ChainHalt as e:          # a broken invariant, which the zero-height preparation asserts first
            raise click.ClickException(f"error exporting state: {e}") from None
    exported = app_genesis(doc, "chaind", chaind.__version__)
    if not output_document:
        # As the SDK's: the whole document on stdout, compact.
        click.echo(json.dumps(exported, separators=(",", ":")), nl=False)
        return
    with open(output_document, "w") as f:
        json.dump(exported, f, indent=2)
