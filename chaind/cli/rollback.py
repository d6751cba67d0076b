"""`chaind rollback [--hard]`: the app state one height back, as the Cosmos SDK's `rollback` (node stopped)."""

import click

from chaind.cli.offline import node_home, opened_app


@click.command("rollback")
@click.option("--home", default=None, envvar="CHAIND_HOME", type=click.Path(file_okay=False),
              help="The application home directory (default ~/.chaind)")
@click.option("--hard", is_flag=True, help="remove last block as well as state")
def rollback(home, hard):
    """rollback Cosmos SDK and CometBFT state by one height.

    A state rollback is performed to recover from an incorrect application state transition: it overwrites the
    state at height n with the state at height n - 1. The block at height n is kept, and executed again when the
    node starts (the builtin producer; in socket mode CometBFT replays it after its own `cometbft rollback`),
    unless --hard removes it as well. A height whose state is pruned cannot be rolled back to.
    """
    from chaind.chain.rollback import RollbackError
    from chaind.chain.rollback import rollback as roll_back

    with opened_app(node_home(home)) as app:
        try:
            done = roll_back(app, hard)
        except RollbackError as e:
            raise click.ClickException(str(e)) from None
    click.echo(f"Rolled back state to height {done.height} and hash {done.app_hash.hex().upper()}")
