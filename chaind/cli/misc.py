"""`chaind version`, `chaind config` (client.toml) and `chaind completion` (shell completion scripts)."""

import platform

import click

from chaind.cli.common import CLIENT_DEFAULTS, HelpGroup, client_config, client_toml, home_option


@click.command()
@click.option("--long", "long_", is_flag=True, help="Also the Python version and platform")
def version(long_):
    """Print the version."""
    import chaind

    if long_:
        click.echo(f"name: chaind\nversion: {chaind.__version__}\npython: {platform.python_version()}\n"
                   f"platform: {platform.platform()}")
    else:
        click.echo(chaind.__version__)


@click.group(cls=HelpGroup, invoke_without_command=True)
@home_option
@click.pass_context
def config(ctx, home):
    """Print client.toml's settings, or get or set one (node, chain-id, keyring-backend, output and others)."""
    if ctx.invoked_subcommand is None:
        for key, value in client_config(home).items():
            click.echo(f'{key} = "{value}"')


def _known(key):
    if key not in CLIENT_DEFAULTS:
        raise click.ClickException(f"unknown setting {key!r}: want one of {', '.join(CLIENT_DEFAULTS)}")


def _home(ctx, home):
    return home if home is not None else ctx.parent.params["home"]


@config.command()
@click.argument("key")
@home_option
@click.pass_context
def get(ctx, key, home):
    """Print one setting."""
    _known(key)
    click.echo(client_config(_home(ctx, home))[key])


@config.command("set")
@click.argument("key")
@click.argument("value")
@home_option
@click.pass_context
def set_(ctx, key, value, home):
    """Change one setting in client.toml."""
    import json

    _known(key)
    checks = {"keyring-backend": ("test", "file"), "output": ("text", "json"), "broadcast-mode": ("sync", "async")}
    if key in checks and value not in checks[key]:
        raise click.ClickException(f"invalid {key} {value!r}: want one of {', '.join(checks[key])}")
    home = _home(ctx, home)
    settings = client_config(home)
    settings[key] = value
    path = client_toml(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    # TOML basic strings take JSON's escapes for the characters these values can hold.
    path.write_text("# chaind client settings (chaind config set KEY VALUE)\n"
                    + "".join(f"{k} = {json.dumps(v)}\n" for k, v in settings.items()))


@click.command()
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell):
    """Print the completion script of a shell: e.g. `source <(chaind completion bash)`."""
    from click.shell_completion import get_completion_class

    from chaind.cli.main import main

    cls = get_completion_class(shell)
    click.echo(cls(main, {}, "chaind", "_CHAIND_COMPLETE").source())
