"""`chaind prune [pruning-method]`: a stopped node's app state pruned offline to its recent heights, as the Cosmos
SDK v0.50's `prune` (its methods: default, nothing, everything, custom with --pruning-keep-recent)."""

import click

from chaind.cli.offline import node_home, opened_app

# The SDK's pruning options by name: (keep-recent, interval); custom takes the flags.
METHODS = {"default": (362880, 10), "nothing": (0, 1), "everything": (2, 10)}
LEAST_INTERVAL, LEAST_KEEP_RECENT = 10, 2       # the SDK's "everything"


def custom_options(keep_recent, interval):
    """(keep-recent, interval) of the custom method, checked as the SDK's PruningOptions.Validate."""
    if interval == 0:
        raise click.ClickException("invalid custom pruning options: 'pruning-interval' must not be 0. If you want to "
                                   'disable pruning, select pruning = "nothing"')
    if interval < LEAST_INTERVAL:
        raise click.ClickException(f"invalid custom pruning options: 'pruning-interval' must not be less than "
                                   f'{LEAST_INTERVAL}. For the most aggressive pruning, select pruning = "everything"')
    if keep_recent < LEAST_KEEP_RECENT:
        raise click.ClickException(f"invalid custom pruning options: 'pruning-keep-recent' must not be less than "
                                   f'{LEAST_KEEP_RECENT}. For the most aggressive pruning, select pruning = '
                                   '"everything"')
    return keep_recent, interval


@click.command("prune")
@click.argument("pruning_method", metavar="[pruning-method]", required=False, default="default")
@click.option("--home", default=None, envvar="CHAIND_HOME", type=click.Path(file_okay=False),
              help="The database home directory (default ~/.chaind)")
@click.option("--pruning-keep-recent", type=click.IntRange(min=0), default=0,
              help="Number of recent heights to keep on disk (ignored if pruning is not 'custom')")
@click.option("--pruning-interval", type=click.IntRange(min=0), default=10,
              help="Height interval at which pruned heights are removed from disk (ignored if pruning is not "
                   "'custom'), this is not used by this command but kept for compatibility with the complete "
                   "pruning options")
def prune(pruning_method, home, pruning_keep_recent, pruning_interval):
    """Prune app history states by keeping the recent heights and deleting old heights.

    The pruning option is provided via the 'pruning' argument or alternatively with '--pruning-keep-recent':
    default keeps the last 362880 states, nothing keeps every state (an archive node), everything keeps the 2
    latest, custom keeps --pruning-keep-recent. Blocks stay. Stop the node first.
    """
    strategy = pruning_method.lower()
    if strategy == "custom":
        keep_recent, _ = custom_options(pruning_keep_recent, pruning_interval)
    elif strategy in METHODS:
        keep_recent, _ = METHODS[strategy]
    else:
        raise click.ClickException(f"unknown pruning strategy {strategy}")
    click.echo(f"get pruning options from command flags, strategy: {strategy}, keep-recent: {keep_recent}")
    with opened_app(node_home(home)) as app:
        latest = app.height
        if latest <= 0:
            raise click.ClickException(f"the database has no valid heights to prune, the latest height: {latest}")
        if strategy == "nothing":
            return
        pruning_height = latest - keep_recent
        click.echo(f"pruning heights up to {pruning_height}")
        app.prune_below(pruning_height + 1)
    click.echo("successfully pruned the application root multi stores")
