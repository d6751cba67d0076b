"""The `chaind` command: the node (init, start, replay), and a client of nodes (keys, query, tx, debug, attach).

Subcommands load lazily, so a query imports only the client's few modules, never the node's.
"""

import json
import sys

import click

from chaind.cli.common import LazyGroup


def make_cli(modules=None):
    """The `chaind` command, serving `modules` (records with a name and a cli table; default the built-in ones)."""
    served = []

    def module_tables():                # made on first use: keys, version... never load autocli
        if not served:
            from chaind.cli.autocli import Modules, builtin_modules

            served.append(Modules(builtin_modules if modules is None else modules))
        return served[0]

    def query():
        from chaind.cli.query import make_query

        return make_query(module_tables())

    def tx():
        from chaind.cli.tx import make_tx

        return make_tx(module_tables())

    # -h as --help, as the SDK's (cobra) commands take it; every subcommand's context inherits it.
    group = LazyGroup("chaind", help="chaind: a proof-of-stake EVM chain node, and its command-line client.",
                      context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 120}, lazy={
        "attach": "chaind.cli.attach:attach",
        "keys": "chaind.cli.keys:keys",
        "genesis": "chaind.cli.genesis:genesis",
        "query": query,
        "q": query,
        "tx": tx,
        "debug": "chaind.cli.debug:debug",
        "config": "chaind.cli.misc:config",
        "version": "chaind.cli.misc:version",
        "completion": "chaind.cli.misc:completion",
        "testnet": "chaind.cli.testnet:testnet",
        "export": "chaind.cli.export:export",
        "rollback": "chaind.cli.rollback:rollback",
        "comet": "chaind.cli.comet:comet",
        "cometbft": "chaind.cli.comet:comet",
        "tendermint": "chaind.cli.comet:comet",
        "status": "chaind.cli.status:status",
        "prune": "chaind.cli.prune:prune",
        "snapshots": "chaind.cli.snapshots:snapshots",
    })
    for command in (init, start, replay):
        group.add_command(command)
    return group


@click.command()
@click.argument("moniker")
@click.option("--chain-id", default=None, help="Chain id <name>_<EIP-155 id>-<version> (default chain_9000-1)")
@click.option("--home", default=None, envvar="CHAIND_HOME", type=click.Path(file_okay=False),
              help="Home directory to create (default ~/.chaind, as the node's and the client's)")
@click.option("--dev", is_flag=True, help="A dev chain: funded dev accounts (public keys), dev account 0 its "
              "validator, and the txpool, debug and dev JSON-RPC namespaces on")
@click.option("--dev-chain", type=int, default=None, metavar="N",
              help="With --dev: the Nth dev chain on this machine, beside the first (IBC): chain id "
              "chain_<9000+N-1>-N, every port + 100*(N-1), and a plain secp256k1 relayer account funded from the dev "
              "mnemonic (m/44'/118'/0'/0/0)")
def init(moniker, chain_id, home, dev, dev_chain):
    """Write a home with config, validator key and genesis for a new chain: without --dev, a genesis with no
    accounts or validators, which the `genesis` commands fill."""
    from chaind.chain.genesis import GenesisError
    from chaind.home import DEFAULT_HOME, Home

    try:
        created = Home(home or DEFAULT_HOME).init(moniker, chain_id=chain_id, dev=dev, dev_chain=dev_chain)
    except (FileExistsError, GenesisError, ValueError) as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"initialized {'a dev chain in ' if dev else ''}{created.path} (genesis {created.genesis_file})")
    if dev:
        click.echo("dev accounts funded from the public mnemonic in config/dev-mnemonic.txt; dev account 0 is the "
                   "validator's operator and may also register erc20 pairs and change erc20 params (besides gov)")
    if dev_chain is not None:
        from chaind.chain.genesis import relayer_key
        from chaind.crypto import addresses, keys
        from chaind.home import DEV_CHAIN_PORT_STEP

        prefix = json.loads(created.genesis_file.read_text())["app_state"]["auth"]["bech32_prefix"]
        plain = keys.address_of(keys.SECP256K1, relayer_key(created.dev_mnemonic()).compressed_public_key)
        address = addresses.to_bech32(prefix, plain)
        click.echo(f"dev chain {dev_chain} on this machine: ports + {DEV_CHAIN_PORT_STEP * (dev_chain - 1)} "
                   f"(config/chaind.toml); relayer account {address} funded (plain secp256k1, m/44'/118'/0'/0/0 "
                   "of the dev mnemonic)")
    else:
        click.echo("no accounts and no validator yet: fund accounts with `chaind genesis add-genesis-account`, "
                   "make the validator with `chaind genesis gentx` and `chaind genesis collect-gentxs`, then start")


@click.command()
@click.option("--home", default=None, type=click.Path(file_okay=False))
@click.option("--config", default=None, type=click.Path(dir_okay=False))
@click.option("--log-format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text for people, json for machines (one JSON object per line)")
@click.option("--log-level", type=click.Choice(["debug", "info", "warn", "error"]), default=None,
              help="The least level logged (default [node] log-level: info, a line per block)")
@click.option("-q", "--quiet", is_flag=True, help="Log warnings and errors only (log level warn)")
@click.option("--json-rpc-address", help="host:port of the EVM JSON-RPC (overrides [json-rpc] address)")
@click.option("--ws-address", help="host:port of the EVM WebSocket (overrides [json-rpc] ws-address)")
@click.option("--cometbft-address", help="host:port of the CometBFT RPC (overrides [cometbft-rpc] address)")
@click.option("--grpc-address", help="host:port of the gRPC server (overrides [grpc] address)")
@click.option("--rest-address", help="host:port of the REST gateway (overrides [rest] address)")
@click.option("--explorer-address", help="host:port of the explorer page (overrides [explorer] address)")
@click.option("--metrics-address", help="host:port of /metrics (overrides [instrumentation] prometheus-listen-addr)")
@click.option("--abci-address", help="host:port of the ABCI socket, socket mode (overrides [abci] address)")
def start(home, config, log_format, log_level, quiet, **addresses):
    """Run the node in the foreground (the same as `twistd -n --pidfile= chaind`: the node's store admits one
    node per home, so no pid file is left in the working directory)."""
    from twisted.scripts.twistd import run

    sys.argv = ["twistd", "-n", "--pidfile=", "chaind"] + (["--home", home] if home else []) + \
               (["--config", config] if config else []) + ["--log-format", log_format] + \
               (["--log-level", log_level] if log_level else []) + (["--quiet"] if quiet else []) + \
               [arg for name, address in addresses.items() if address is not None
                for arg in (f"--{name.replace('_', '-')}", address)]
    run()


@click.command()
@click.option("--home", default=None, type=click.Path(file_okay=False), help="The node's home (default ~/.chaind)")
@click.option("--to-height", type=int, default=None, help="Stop after this height (default: the head)")
def replay(home, to_height):
    """Re-execute every block from genesis into a scratch store and check each block and app hash.

    Proves the state on disk is what the blocks say. Stop the node first: LevelDB admits one process.
    """
    import hashlib
    import tempfile

    import plyvel
    from cryptography.hazmat.primitives.asymmetric import ed25519

    from chaind.chain.app import App, NoValidatorsError, StaleHomeError
    from chaind.chain.genesis import Genesis
    from chaind.chain.modules.upgrade import handlers as upgrade_handlers
    from chaind.chain.options import AppOptions
    from chaind.chain.replay import replay_chain
    from chaind.home import DEFAULT_HOME, Home
    from chaind.progress import Progress
    from chaind.store.db import Database

    node_home = Home(home or DEFAULT_HOME)
    if not node_home.exists():
        raise click.ClickException(f"no chain at {node_home.path}: give the node's --home")
    try:
        db = Database(node_home.data_dir / "chain.db")
    except plyvel.IOError as e:
        raise click.ClickException(f"cannot open the chain's store ({e}); is the node still running?") from None
    try:
        try:
            # This binary's upgrade handlers, which the chain's plans ran.
            source = App(db, Genesis.load(node_home.genesis_file),
                         AppOptions(upgrade_handlers=upgrade_handlers.HANDLERS))
        except (StaleHomeError, NoValidatorsError) as e:
            raise click.ClickException(str(e)) from None
        validator = source.genesis.initial_validators[0] if source.genesis.initial_validators else None
        key = ed25519.Ed25519PrivateKey.from_private_bytes(node_home.validator_key()) if validator else None
        address = hashlib.sha256(validator.consensus_pubkey).digest()[:20] if validator else b""

        progress = Progress("replay", sys.stderr)
        with tempfile.TemporaryDirectory(prefix="chaind-replay-") as scratch:
            report = replay_chain(source, f"{scratch}/chain.db", key, address, to_height, progress.update)
        progress.end()
    finally:
        db.close()
    if not report.ok:
        raise click.ClickException(f"replay differs from the stored chain at {report.mismatch}")
    click.echo(f"blocks {report.first_height}..{report.last_height} replayed from genesis: "
               "every block hash and app hash matches")


main = make_cli()

if __name__ == "__main__":
    main()
