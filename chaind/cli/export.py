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
def export(home, height, modules_to_export, output_document):
    """Export state to JSON.

    Every module's genesis at the height, the EVM's accounts, code and storage among them, its validator set, and
    the next height as the initial one, in the SDK's AppGenesis shape. Stop the node first: LevelDB admits one
    process.
    """
    import chaind
    from chaind.chain.genesis import app_genesis, export_document, exportable_names

    if height < -1:
        raise click.ClickException(f"error exporting state: height {height} is negative (-1 means latest height)")
    wanted = tuple(name.strip() for name in modules_to_export.split(",") if name.strip())
    with opened_app(node_home(home)) as app:
        known = exportable_names(app.modules)
        for name in wanted:
            if name not in known:
                raise click.ClickException(f"error exporting state: module {name} does not exist")
        try:
            doc = export_document(app, None if height == -1 else height, wanted or None)
        except LookupError as e:        # PrunedError among them
            raise click.ClickException(f"error exporting state: {e}") from None
    exported = app_genesis(doc, "chaind", chaind.__version__)
    if not output_document:
        # As the SDK's: the whole document on stdout, compact.
        click.echo(json.dumps(exported, separators=(",", ":")), nl=False)
        return
    with open(output_document, "w") as f:
        json.dump(exported, f, indent=2)
