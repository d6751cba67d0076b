"""`chaind comet` (aliases `cometbft`, `tendermint`): the Cosmos SDK's CometBFT subcommands on a node's home:
its node id, its validator's key and consensus address, the CometBFT versions, reset-state and unsafe-reset-all."""

import base64
import hashlib
import json
import shutil

import click

from chaind.cli.common import HelpGroup

RESET_VALIDATOR_STATE = {"height": "0", "round": 0, "step": 0}


def _home_option(f):
    return click.option("--home", default=None, envvar="CHAIND_HOME", type=click.Path(file_okay=False),
                        help="The application home directory (default ~/.chaind)")(f)


def _home(home):
    from chaind.home import DEFAULT_HOME, Home

    found = Home(home or DEFAULT_HOME)
    if not (found.config_dir / "priv_validator_key.json").is_file():
        raise click.ClickException(f"no validator key at {found.config_dir / 'priv_validator_key.json'}: give the "
                                   "node's --home (`chaind init` writes one)")
    return found


def _key_of(path):
    """The ed25519 public key of a CometBFT key file (priv_validator_key.json's pub_key, node_key.json's
    priv_key's last 32 bytes)."""
    try:
        doc = json.loads(path.read_text())
        if "pub_key" in doc:
            key = base64.b64decode(doc["pub_key"]["value"])
        else:
            key = base64.b64decode(doc["priv_key"]["value"])[32:]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise click.ClickException(f"{path}: not a CometBFT key file ({e})") from None
    if len(key) != 32:
        raise click.ClickException(f"{path}: not an ed25519 key")
    return key


@click.group(cls=HelpGroup)
def comet():
    """CometBFT subcommands."""


@comet.command("show-node-id")
@_home_option
def show_node_id(home):
    """Show this node's ID.

    The ID of config/node_key.json (the first 20 bytes of the SHA-256 of its public key, in hex), as a CometBFT
    node has; a home without one (a chaind node has no p2p layer) has its validator's, as its /status says.
    """
    found = _home(home)
    node_key = found.config_dir / "node_key.json"
    key = _key_of(node_key if node_key.is_file() else found.config_dir / "priv_validator_key.json")
    click.echo(hashlib.sha256(key).digest()[:20].hex())


@comet.command("show-validator")
@_home_option
def show_validator(home):
    """Show this node's CometBFT validator info (the pubkey JSON `tx staking create-validator` takes)."""
    key = _key_of(_home(home).config_dir / "priv_validator_key.json")
    click.echo(json.dumps({"@type": "/cosmos.crypto.ed25519.PubKey", "key": base64.b64encode(key).decode()},
                          separators=(",", ":")))


@comet.command("show-address")
@_home_option
def show_address(home):
    """Shows this node's CometBFT validator consensus address."""
    from chaind.crypto import addresses

    found = _home(home)
    key = _key_of(found.config_dir / "priv_validator_key.json")
    click.echo(addresses.to_bech32(_prefix(found) + "valcons", hashlib.sha256(key).digest()[:20]))


def _prefix(home):
    """The chain's bech32 prefix, as its genesis names it (app_state.auth.bech32_prefix)."""
    from chaind.cli.common import DEFAULT_BECH32_PREFIX

    try:
        doc = json.loads(home.genesis_file.read_text())
        return doc["app_state"]["auth"]["bech32_prefix"]
    except FileNotFoundError:
        return DEFAULT_BECH32_PREFIX
    except (ValueError, KeyError, TypeError) as e:
        raise click.ClickException(f"{home.genesis_file}: no app_state.auth.bech32_prefix ({e})") from None


@comet.command("version")
def version():
    """Print CometBFT libraries' version."""
    from chaind.chain.block import BLOCK_PROTOCOL, COMETBFT_VERSION, P2P_PROTOCOL

    # The SDK prints a YAML of these four, its keys in sorted order.
    click.echo(f"ABCI: {ABCI_VERSION}\nBlockProtocol: {BLOCK_PROTOCOL}\nCometBFT: {COMETBFT_VERSION}\n"
               f"P2PProtocol: {P2P_PROTOCOL}")


ABCI_VERSION = "2.0.0"      # CometBFT 0.38's ABCI (FinalizeBlock)


def _refuse_if_running(found):
    """Refuse to reset the home of a running node: LevelDB admits one process, and a running node holds it."""
    import plyvel

    from chaind.store.db import Database

    store = found.data_dir / "chain.db"
    if store.exists():
        try:
            Database(store).close()
        except plyvel.IOError as e:
            raise click.ClickException(f"cannot open the chain's store ({e}); is the node still running?") from None
    return store


@comet.command("unsafe-reset-all")
@_home_option
@click.option("--keep-addr-book", is_flag=True, help="keep the address book intact")
def unsafe_reset_all(home, keep_addr_book):
    """(unsafe) Remove all the data and WAL, reset this node's validator to genesis state.

    Deletes the home's data/ (blocks and state): the node starts the chain again from its genesis. Refused while
    the node runs.
    """
    found = _home(home)
    _refuse_if_running(found)
    book = found.config_dir / "addrbook.json"
    if not keep_addr_book and book.exists():
        book.unlink()
        click.echo(f"Removed existing address book file={book}")
    state_file = found.data_dir / "priv_validator_state.json"
    had_state = state_file.exists()
    if found.data_dir.exists():
        shutil.rmtree(found.data_dir)
    click.echo(f"Removed all blockchain history dir={found.data_dir}")
    from chaind.private_files import make_private_dirs, write_private

    make_private_dirs(found.data_dir)
    if had_state:
        write_private(state_file, json.dumps(RESET_VALIDATOR_STATE, indent=2))
        click.echo(f"Reset private validator file to genesis state "
                   f"keyFile={found.config_dir / 'priv_validator_key.json'} stateFile={state_file}")


@comet.command("reset-state")
@_home_option
def reset_state(home):
    """Remove all the data and WAL.

    CometBFT's reset-state removes its block store, state, WAL, evidence and tx index and keeps the rest of
    data/. Here those are one store with the app's state (data/chain.db, written in one batch a block, so neither
    can go alone): it goes; the validator's last signed height (priv_validator_state.json, unlike
    unsafe-reset-all), the snapshots, upgrade-info.json and the address book stay. Refused while the node runs.
    """
    from chaind.private_files import make_private_dirs

    found = _home(home)
    store = _refuse_if_running(found)
    if store.exists():
        shutil.rmtree(store)
        click.echo(f"Removed all chain.db dir={store}")
    make_private_dirs(found.data_dir)


@comet.command("bootstrap-state")
@_home_option
@click.option("--height", type=int, default=0, help="Block height to bootstrap state at, if not provided it uses "
              "the latest block height in app state")
def bootstrap_state(home, height):
    """Bootstrap CometBFT state at an arbitrary block height using a light client.

    Refused: it writes the CometBFT state.db and blockstore.db a node beside application.db starts from, and
    chaind has no such separate stores (its blocks and state are one). A node joins at a recent height by state
    sync instead: `chaind snapshots load` and `chaind snapshots restore`, or [state-sync] in socket mode.
    """
    _home(home)
    raise click.ClickException("bootstrap-state is not served: chaind keeps no CometBFT state.db or blockstore.db "
                               "beside its app state to bootstrap (its blocks and state are one store); join at "
                               "a recent height by state sync (`chaind snapshots load` and `chaind snapshots "
                               "restore`)")
