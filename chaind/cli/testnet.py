"""`chaind testnet`: homes for a local network of N validators run by CometBFT v0.38 over ABCI.

Each home holds chaind's settings (socket mode) and CometBFT's (config.toml, keys), and all share one genesis.
"""

import base64
import hashlib
import json
import pathlib
import secrets
import time

import click

from chaind.private_files import make_private_dirs, write_private
from chaind.resources import etc_file

P2P, RPC, ABCI, JSON_RPC, WS, GRPC, REST = range(7)     # each node's ports: its base port + these
PORTS_PER_NODE = 10


def node_ports(starting_port, index):
    base = starting_port + PORTS_PER_NODE * index
    return {name: base + offset for name, offset in
            (("p2p", P2P), ("rpc", RPC), ("abci", ABCI), ("json-rpc", JSON_RPC), ("ws", WS), ("grpc", GRPC),
             ("rest", REST))}


def _ed25519():
    """(seed, public key) of a new ed25519 key."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    private = ed25519.Ed25519PrivateKey.generate()
    seed = private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                 serialization.NoEncryption())
    return seed, private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def _b64(data):
    return base64.b64encode(data).decode()


def _private_file(path, doc):
    write_private(path, json.dumps(doc, indent=2) + "\n")


def build(output, count, chain_id, starting_port, now_ns):
    """Write `count` homes under `output` (node0 ...); returns their paths."""
    from chaind.chain import genesis as genesis_mod
    from chaind.chain.modules import staking as staking_module
    from chaind.crypto import addresses
    from chaind.keyring import Keyring

    output = pathlib.Path(output)
    homes = [output / f"node{i}" for i in range(count)]
    for home in homes:
        if home.exists():
            raise click.ClickException(f"{home} already exists; choose another --output")
    doc = genesis_mod.dev_template()
    if chain_id:
        doc["chain_id"] = chain_id
    app = doc["app_state"]
    prefix = app["auth"]["bech32_prefix"]
    bank, staking = app["bank"], app["staking"]
    for dev_only in ("dev_mnemonic", "dev_accounts"):
        bank.pop(dev_only)
    coins = bank.pop("dev_coins")
    tokens = staking.pop("self_delegation")
    nodes = []
    for i, home in enumerate(homes):
        make_private_dirs(home / "config")
        make_private_dirs(home / "data")
        seed, public = _ed25519()
        address = hashlib.sha256(public).digest()[:20]
        _private_file(home / "config" / "priv_validator_key.json", {
            "address": address.hex().upper(),
            "pub_key": {"type": "tendermint/PubKeyEd25519", "value": _b64(public)},
            "priv_key": {"type": "tendermint/PrivKeyEd25519", "value": _b64(seed + public)}})
        _private_file(home / "data" / "priv_validator_state.json", {"height": "0", "round": 0, "step": 0})
        node_seed, node_public = _ed25519()
        _private_file(home / "config" / "node_key.json",
                      {"priv_key": {"type": "tendermint/PrivKeyEd25519", "value": _b64(node_seed + node_public)}})
        # The operator's account key, in this home's test keyring as "validator" (its txs sign with it).
        operator = Keyring(home, "test").add("validator", secrets.token_bytes(32)).address
        nodes.append({"home": home, "moniker": f"node{i}", "pubkey": public, "address": address,
                      "node_id": hashlib.sha256(node_public).digest()[:20].hex(), "operator": operator,
                      "ports": node_ports(starting_port, i)})
    bank["balances"] = [{"address": addresses.to_bech32(prefix, n["operator"]), "coins": coins} for n in nodes]
    # Each validator is bonded at genesis with its self-delegation (the stake a gentx would carry).
    staking["validators"] = [{"operator": addresses.to_bech32(prefix, n["operator"]),
                              "consensus_pubkey": _b64(n["pubkey"]), "tokens": tokens, "moniker": n["moniker"]}
                             for n in nodes]
    erc20 = app.get("erc20", {})
    if "dev_authority_account" in erc20:
        erc20.pop("dev_authority_account")
        erc20["authority"] = addresses.to_bech32(prefix, nodes[0]["operator"])
    doc["genesis_time"] = genesis_mod.format_time(now_ns)
    doc["consensus_params"]["abci"] = {"vote_extensions_enable_height": "0"}
    # A network of validators is stalled by a block it cannot execute within its timeouts: a new chain's block gas
    # limit (issue 36), not the dev template's 30,000,000.
    doc["consensus_params"]["block"]["max_gas"] = str(genesis_mod.NEW_CHAIN_MAX_GAS)
    # CometBFT reads the same file: its validators (which InitChain checks against staking's) and app hash.
    power = int(tokens) // staking_module.POWER_REDUCTION
    doc["validators"] = [{"address": n["address"].hex().upper(),
                          "pub_key": {"type": "tendermint/PubKeyEd25519", "value": _b64(n["pubkey"])},
                          "power": str(power), "name": n["moniker"]} for n in nodes]
    doc["app_hash"] = ""
    genesis_mod.Genesis.from_document(doc)      # a document chaind refuses must not be written
    text = json.dumps(doc, indent=2) + "\n"
    for n in nodes:
        config = n["home"] / "config"
        (config / "genesis.json").write_text(text)
        (config / "chaind.toml").write_text(_chaind_toml(n))
        peers = ",".join(f"{p['node_id']}@127.0.0.1:{p['ports']['p2p']}" for p in nodes if p is not n)
        (config / "config.toml").write_text(_cometbft_toml(n, peers))
    (output / "README.txt").write_text(readme(homes))
    return homes


def _chaind_toml(node):
    """The documented settings (etc/chaind.toml, as `chaind init` writes them) with this node's socket mode,
    moniker and ports: a home made from a pip install reads what each key does in its own file."""
    p = node["ports"]
    return with_keys(etc_file("chaind.toml").read_text(), {
        "node": {"moniker": node["moniker"]},
        "abci": {"mode": "socket", "address": f"127.0.0.1:{p['abci']}", "cometbft-rpc": f"127.0.0.1:{p['rpc']}"},
        "json-rpc": {"address": f"127.0.0.1:{p['json-rpc']}", "ws-address": f"127.0.0.1:{p['ws']}"},
        "grpc": {"address": f"127.0.0.1:{p['grpc']}"},
        "rest": {"address": f"127.0.0.1:{p['rest']}"}})


def with_keys(text, changes):
    """TOML `text` with the `key = value` lines of `changes` ({section: {key: value}}) given new values (the
    comments stay); every key must be in its section."""
    lines, section, left = [], None, {name: dict(values) for name, values in changes.items()}
    for line in text.splitlines(keepends=True):
        if line.startswith("["):
            section = line.strip()[1:-1]
        key = line.partition(" = ")[0]
        if section in left and key in left[section] and not line.startswith("#"):
            line = f"{key} = {json.dumps(left[section].pop(key))}\n"
        lines.append(line)
    missing = [f"[{name}] {key}" for name, values in left.items() for key in values]
    if missing:
        raise ValueError(f"not in the template: {', '.join(missing)}")
    return "".join(lines)


def _cometbft_toml(node, peers):
    """CometBFT v0.38's config.toml: the keys that differ from its defaults (it fills in the rest)."""
    p = node["ports"]
    return (f"# CometBFT v0.38 settings for {node['moniker']}: `cometbft node --home {node['home']}`\n"
            f"proxy_app = \"tcp://127.0.0.1:{p['abci']}\"\nmoniker = \"{node['moniker']}\"\n"
            f"abci = \"socket\"\ndb_backend = \"goleveldb\"\n\n"
            f"[rpc]\nladdr = \"tcp://127.0.0.1:{p['rpc']}\"\n\n"
            f"[p2p]\nladdr = \"tcp://127.0.0.1:{p['p2p']}\"\npersistent_peers = \"{peers}\"\n"
            f"addr_book_strict = false\nallow_duplicate_ip = true\n\n"
            f"[consensus]\ntimeout_commit = \"1s\"\n")


def readme(homes):
    lines = [f"A local testnet of {len(homes)} validators. Each home holds chaind's config (config/chaind.toml,",
             "socket mode) and CometBFT's (config/config.toml, keys), and the one genesis. Start every node's",
             "chaind, then its CometBFT v0.38 (each from its own shell, or in the background):", ""]
    for home in homes:
        lines.append(f"  chaind start --home {home} &")
    for home in homes:
        lines.append(f"  cometbft node --home {home} &")
    lines += ["", "CometBFT's RPC of node0 is config.toml's [rpc] laddr; chaind's EVM JSON-RPC is chaind.toml's",
              "[json-rpc] address. Each operator's account key is the `validator` key of its home's test keyring.", ""]
    return "\n".join(lines)


@click.command()
@click.option("--validators", "count", type=click.IntRange(1, 100), default=4, show_default=True,
              help="Validators (homes) to create")
@click.option("--output", required=True, type=click.Path(file_okay=False), help="Directory for the homes")
@click.option("--chain-id", default=None, help="Chain id <name>_<EIP-155 id>-<version> (default chain_9000-1)")
@click.option("--starting-port", type=click.IntRange(1024, 65535 - 1000), default=26600, show_default=True,
              help=f"node N's ports are this + {PORTS_PER_NODE}*N + 0..6 (p2p, rpc, abci, json-rpc, ws, grpc, rest)")
def testnet(count, output, chain_id, starting_port):
    """Write homes for a local network of validators run by CometBFT v0.38 (one genesis, their keys and
    stakes, CometBFT's config.toml with persistent peers on loopback, chaind in ABCI socket mode)."""
    from chaind.chain.genesis import GenesisError

    if starting_port + PORTS_PER_NODE * count > 65535:
        raise click.ClickException("not enough ports above --starting-port for that many validators")
    try:
        homes = build(output, count, chain_id, starting_port, time.time_ns())
    except GenesisError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"wrote {len(homes)} homes under {output}; to run them:\n")
    click.echo(readme(homes))
