"""A stopped node's chain opened for the offline operator commands (export, rollback): its home, its LevelDB
store (LevelDB admits one process, so a running node is named as the reason) and the App over them."""

import contextlib

import click


def node_home(home):
    """The Home at `home` (default ~/.chaind); a ClickException when no chain was initialized there."""
    from chaind.home import DEFAULT_HOME, Home

    found = Home(home or DEFAULT_HOME)
    if not found.exists():
        raise click.ClickException(f"no chain at {found.path}: give the node's --home")
    return found


@contextlib.contextmanager
def opened_app(home):
    """The App of the stopped node at `home` (a Home), built as the node builds it (this binary's upgrade
    handlers, which the chain's plans ran); its store closed on leaving."""
    import plyvel

    from chaind.chain.app import App, NoValidatorsError, StaleHomeError
    from chaind.chain.genesis import Genesis, GenesisError
    from chaind.chain.modules.upgrade import handlers as upgrade_handlers
    from chaind.chain.options import AppOptions
    from chaind.store.db import Database

    try:
        genesis = Genesis.load(home.genesis_file)
    except GenesisError as e:
        raise click.ClickException(f"{home.genesis_file}: {e}") from None
    try:
        db = Database(home.data_dir / "chain.db")
    except plyvel.IOError as e:
        raise click.ClickException(f"cannot open the chain's store ({e}); is the node still running?") from None
    try:
        try:
            app = App(db, genesis, AppOptions(upgrade_handlers=upgrade_handlers.HANDLERS))
        except (StaleHomeError, NoValidatorsError, GenesisError) as e:
            raise click.ClickException(str(e)) from None
        yield app
    finally:
        db.close()
