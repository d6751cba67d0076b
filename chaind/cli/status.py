"""`chaind status`: the node's CometBFT /status, as the Cosmos SDK's `status` prints it."""

import json

import click

from chaind.cli.common import home_option, rpc_client


@click.command("status")
@click.option("-n", "--node", default=None, envvar="CHAIND_NODE", help="Node to connect to")
@click.option("-o", "--output", type=click.Choice(["text", "json"]), default="json", show_default=True,
              help="Output format (text|json)")
@home_option
@click.pass_context
def status(ctx, node, output, home):
    """Query remote node for status."""
    result = rpc_client(ctx, node).call("status")
    if output == "json":
        click.echo(json.dumps(result, separators=(",", ":")))
    else:
        from chaind.cli import yamlout

        click.echo(yamlout.dump(result), nl=False)
