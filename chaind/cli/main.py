"""The `chaind` command: the node (init, start), and a client of nodes (keys, query, tx, debug, attach).

Subcommands load lazily, so a query imports only the client's few modules, never the node's.
"""

import sys

import click

from chaind.cli.common import LazyGroup


@click.group(cls=LazyGroup, lazy={
    "attach": "chaind.cli.attach:attach",
    "keys": "chaind.cli.keys:keys",
    "query": "chaind.cli.query:query",
    "q": "chaind.cli.query:query",
    "tx": "chaind.cli.tx:tx",
    "debug": "chaind.cli.debug:debug",
    "config": "chaind.cli.misc:config",
    "version": "chaind.cli.misc:version",
    "completion": "chaind.cli.misc:completion",
})
def main():
    """chaind: a proof-of-stake EVM chain node, and its command-line client."""


@main.command()
@click.argument("moniker")
@click.option("--chain-id", default=None, help="Chain id <name>_<EIP-155 id>-<version> (default chain_9000-1)")
@click.option("--home", required=True, type=click.Path(file_okay=False), help="Home directory to create")
def init(moniker, chain_id, home):
    """Write a home with config, validator key and genesis for a new chain."""
    from chaind.chain.genesis import GenesisError
    from chaind.home import Home

    try:
        created = Home(home).init(moniker, chain_id=chain_id)
    except (FileExistsError, GenesisError) as e:
        raise click.ClickException(str(e))
    click.echo(f"initialized {created.path} (genesis {created.genesis_file})")


@main.command()
@click.option("--home", default=None, type=click.Path(file_okay=False))
@click.option("--config", default=None, type=click.Path(dir_okay=False))
def start(home, config):
    """Run the node in the foreground (the same as `twistd -n chaind`)."""
    from twisted.scripts.twistd import run

    sys.argv = ["twistd", "-n", "chaind"] + (["--home", home] if home else []) + \
               (["--config", config] if config else [])
    run()


if __name__ == "__main__":
    main()
