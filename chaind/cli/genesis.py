"""`chaind genesis`: a chain of one's own, as the SDK's genesis commands make one: add-genesis-account, gentx
(a signed MsgCreateValidator with this home's consensus key), collect-gentxs and validate (validate-genesis).
"""

import hashlib
import json
import socket

import click

from chaind.cli.common import AddressError, address_bytes, home_path, to_bech32
from chaind.cli.keys import KeyringErrors, find_record, keyring_options, open_keyring

CREATE_VALIDATOR = "/cosmos.staking.v1beta1.MsgCreateValidator"
P2P_PORT = 26656        # the port gentx's memo names, as the SDK's (this node has no p2p layer to listen on it)


class GenesisGroup(KeyringErrors):
    """`genesis`'s commands; validate is also validate-genesis, as in the SDK."""

    aliases = {"validate-genesis": "validate"}

    def get_command(self, ctx, name):
        return super().get_command(ctx, self.aliases.get(name, name))


@click.group(cls=GenesisGroup)
def genesis():
    """Make a chain's genesis: accounts, validators' gen txs, then collect and validate them."""


def _home(home):
    from chaind.home import Home

    node_home = Home(home_path(home))
    if not node_home.exists():
        raise click.ClickException(f"no genesis at {node_home.genesis_file}: run `chaind init MONIKER --home "
                                   f"{node_home.path}` first")
    return node_home


def _read(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise click.ClickException(f"failed to read genesis doc from file {path}: {e}") from None


def _checked(doc, what):
    """The Genesis of `doc`, or a one-line error saying it is not a valid genesis."""
    from chaind.chain.genesis import Genesis, GenesisError

    try:
        return Genesis.from_document(doc)
    except GenesisError as e:
        raise click.ClickException(f"{what}: {e}") from None


def _write(path, doc):
    path.write_text(json.dumps(doc, indent=2) + "\n")


def _coins(text, what="coins"):
    from chaind.cli.coins import parse_coins

    try:
        return parse_coins(text, what=what)
    except click.ClickException as e:
        raise click.ClickException(f"failed to parse coins: {e.message}") from None


def _account(ctx, text):
    """The address of ADDRESS_OR_KEY_NAME: an address, else a key of the keyring."""
    try:
        return address_bytes(text)
    except AddressError:
        pass
    ring = open_keyring(ctx)
    if text not in ring.names():
        raise click.ClickException(f"failed to get address from Keyring: {ring.not_found(text)}")
    return ring.get(text).address


def _balances(doc):
    return doc["app_state"]["bank"]["balances"]


def _balance_of(doc, prefix, address):
    for entry in _balances(doc):
        if address_bytes(entry["address"], prefix) == address:
            return entry
    return None


@genesis.command("add-genesis-account")
@click.argument("address_or_key_name")
@click.argument("coins")
@click.option("--append", is_flag=True, help="Append the coins to an account already in the genesis.json file")
@click.option("--vesting-amount", default="", help="Amount of coins for vesting accounts")
@click.option("--vesting-start-time", type=int, default=0, help="Schedule start time (unix epoch) for vesting accounts")
@click.option("--vesting-end-time", type=int, default=0, help="Schedule end time (unix epoch) for vesting accounts")
@keyring_options
def add_genesis_account(address_or_key_name, coins, append, vesting_amount, vesting_start_time, vesting_end_time,
                        **_):
    """Add a genesis account to genesis.json: an address, or a key of the keyring, and its coins (e.g.
    1000000000000000000000achain,10stake). With --vesting-amount and --vesting-end-time it is a vesting account:
    continuous from --vesting-start-time, or delayed without one (app_state.auth.accounts, as the SDK writes it)."""
    ctx = click.get_current_context()
    node_home = _home(ctx.params["home"])
    doc = _read(node_home.genesis_file)
    prefix = doc["app_state"]["auth"]["bech32_prefix"]
    address = _account(ctx, address_or_key_name)
    wanted = dict(_coins(coins))
    bech32 = to_bech32(prefix, address)
    declared = _vesting_account(bech32, wanted, vesting_amount, vesting_start_time, vesting_end_time)
    accounts = doc["app_state"]["auth"].setdefault("accounts", [])
    known = any(_declared_address(a) == bech32 for a in accounts)
    entry = _balance_of(doc, prefix, address)
    if (entry is not None or known) and not append:
        raise click.ClickException(f"cannot add account at existing address {bech32}")
    if entry is None:
        entry = {"address": bech32, "coins": []}
        _balances(doc).append(entry)
    held = {c["denom"]: int(c["amount"]) for c in entry["coins"]}
    for denom, amount in wanted.items():
        held[denom] = held.get(denom, 0) + amount
    entry["coins"] = [{"denom": d, "amount": str(a)} for d, a in sorted(held.items())]
    if not known:
        # As the SDK's AddGenesisAccount: the account itself goes into auth's genesis, its coins into bank's.
        accounts.append(declared or {"@type": "/cosmos.auth.v1beta1.BaseAccount", **_base_account(bech32)})
    _checked(doc, "failed to validate new genesis account")
    _write(node_home.genesis_file, doc)


def _declared_address(account):
    """The address of an app_state.auth.accounts entry (a vesting one keeps it in its base account)."""
    base = account.get("base_vesting_account", {}).get("base_account") or account
    return base.get("address")


def _base_account(bech32):
    return {"address": bech32, "pub_key": None, "account_number": "0", "sequence": "0"}


def _vesting_account(bech32, coins, vesting_amount, start, end):
    """The auth.accounts entry of a vesting genesis account (None without --vesting-amount), as the SDK's
    AddGenesisAccount makes it: continuous with a start and an end time, delayed with an end time alone."""
    vesting = dict(_coins(vesting_amount, what="vesting amount")) if vesting_amount else {}
    if not vesting:
        return None
    if any(amount > coins.get(denom, 0) for denom, amount in vesting.items()):
        raise click.ClickException("vesting amount cannot be greater than total amount")
    base = {"base_account": _base_account(bech32),
            "original_vesting": [{"denom": d, "amount": str(a)} for d, a in sorted(vesting.items())],
            "delegated_free": [], "delegated_vesting": [], "end_time": str(end)}
    if start != 0 and end != 0:
        return {"@type": "/cosmos.vesting.v1beta1.ContinuousVestingAccount", "base_vesting_account": base,
                "start_time": str(start)}
    if end != 0:
        return {"@type": "/cosmos.vesting.v1beta1.DelayedVestingAccount", "base_vesting_account": base}
    raise click.ClickException("invalid vesting parameters; must supply start and end time or end time")


def _external_ip():
    """This host's address for gentx's memo (the SDK takes the first non-loopback IPv4); 127.0.0.1 without one."""
    try:
        found = socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"
    return found


def _dec(text, what):
    from chaind.chain import legacy_dec

    try:
        return legacy_dec.wire_of_text(text)
    except ValueError as e:
        raise click.ClickException(f"invalid {what}: {e}") from None


@genesis.command()
@click.argument("key_name")
@click.argument("amount")
@click.option("--chain-id", default=None, help="The genesis' chain id (default: genesis.json's; another is an error)")
@click.option("--moniker", default=None, help="The validator's name (default [node] moniker, which init writes)")
@click.option("--commission-rate", default="0.1", show_default=True, help="Initial commission rate")
@click.option("--commission-max-rate", default="0.2", show_default=True, help="Maximum commission rate")
@click.option("--commission-max-change-rate", default="0.01", show_default=True,
              help="Maximum daily change of the commission rate")
@click.option("--min-self-delegation", default="1", show_default=True, help="Minimum self-delegation")
@click.option("--identity", default="", help="Identity signature (e.g. Keybase)")
@click.option("--website", default="", help="Website")
@click.option("--security-contact", default="", help="Security contact email")
@click.option("--details", default="", help="Details")
@click.option("--node-id", default=None, help="The node id in the memo (default: this home's)")
@click.option("--pubkey", default=None, help="Consensus key as JSON (default: this home's priv_validator_key.json)")
@click.option("--ip", default=None, help="The node's IP in the memo (default: this host's)")
@click.option("--fees", default=None, help="Fees the gen tx pays (none needed at genesis)")
@click.option("--gas", type=click.IntRange(min=1), default=200000, show_default=True, help="Gas limit")
@click.option("--output-document", default=None, type=click.Path(dir_okay=False),
              help="Write the gen tx here instead of config/gentx/gentx-<node id>.json")
@keyring_options
def gentx(key_name, amount, chain_id, moniker, commission_rate, commission_max_rate, commission_max_change_rate,
          min_self_delegation, identity, website, security_contact, details, node_id, pubkey, ip, fees, gas,
          output_document, **_):
    """Generate a genesis tx carrying a self-delegation: a MsgCreateValidator of KEY_NAME's account with this
    home's consensus key, signed offline, written to config/gentx/gentx-<node id>.json."""
    import base64
    import pathlib
    import types

    from chaind import config as config_mod
    from chaind.cli import protojson
    from chaind.cli.coins import coin_protos
    from chaind.cli.tx_factory import sign, to_any, unsigned_tx
    from chaind.crypto.keys import AccountKey
    from chaind.pb.cosmos.crypto.ed25519 import keys_pb2
    from chaind.pb.cosmos.staking.v1beta1 import staking_pb2, tx_pb2

    ctx = click.get_current_context()
    node_home = _home(ctx.params["home"])
    doc = _read(node_home.genesis_file)
    checked = _checked(doc, "failed to validate genesis state")
    if chain_id is not None and chain_id != checked.chain_id:
        raise click.ClickException(f"--chain-id {chain_id} is not the genesis' chain id {checked.chain_id}")
    ring = open_keyring(ctx)
    record = find_record(ring, ctx, key_name)
    if moniker is None:
        moniker = config_mod.load(node_home.config_file).node.moniker if node_home.config_file.is_file() else ""
    if not moniker:
        raise click.ClickException("the validator needs a name: give --moniker ([node] moniker is empty)")
    coins = _coins(amount, "amount")
    if len(coins) != 1:
        raise click.ClickException(f"invalid amount {amount!r}: want one coin, e.g. 1000000000000000000achain")
    (denom, value), = coins
    bond_denom = checked.staking_params.bond_denom
    entry = _balance_of(doc, checked.bech32_prefix, record.address)
    account = to_bech32(checked.bech32_prefix, record.address)
    if entry is None:
        raise click.ClickException(f"failed to validate account in genesis: account {account} does not have a "
                                   f"balance in the genesis state (add it: chaind genesis add-genesis-account)")
    held = sum(int(c["amount"]) for c in entry["coins"] if c["denom"] == bond_denom)
    wanted = value if denom == bond_denom else 0
    if wanted > held:
        raise click.ClickException(f"failed to validate account in genesis: account {account} has a balance in "
                                   f"genesis, but it only has {held}{bond_denom} available to stake, not "
                                   f"{wanted}{bond_denom}")
    if pubkey is None:
        consensus_key = node_home.validator_public_key()
    else:
        try:
            given = json.loads(pubkey)
            consensus_key = base64.b64decode(given["key"], validate=True)
        except (ValueError, KeyError, TypeError):
            consensus_key = b""
        if len(consensus_key) != 32:
            raise click.ClickException('invalid --pubkey: want {"@type":"/cosmos.crypto.ed25519.PubKey",'
                                       '"key":"<32 bytes in base64>"}')
    node_id = node_id or hashlib.sha256(consensus_key).digest()[:20].hex()
    msg = tx_pb2.MsgCreateValidator(
        description=staking_pb2.Description(moniker=moniker, identity=identity, website=website,
                                            security_contact=security_contact, details=details),
        commission=staking_pb2.CommissionRates(
            rate=_dec(commission_rate, "commission rate"), max_rate=_dec(commission_max_rate, "commission max rate"),
            max_change_rate=_dec(commission_max_change_rate, "commission max change rate")),
        min_self_delegation=min_self_delegation,
        validator_address=to_bech32(checked.bech32_prefix + "valoper", record.address),
        pubkey=to_any("/cosmos.crypto.ed25519.PubKey", keys_pb2.PubKey(key=consensus_key)),
        value=coin_protos(coins)[0])
    if not min_self_delegation.isdigit() or int(min_self_delegation) == 0:
        raise click.ClickException(f"invalid min-self-delegation {min_self_delegation!r}: want a positive integer")
    memo = f"{node_id}@{ip or _external_ip()}:{P2P_PORT}"
    tx = unsigned_tx([(CREATE_VALIDATOR, msg)], {"note": memo}, gas, _coins(fees, "fees") if fees else [])
    # Signed offline with account number 0 and sequence 0, as the chain checks a gen tx.
    signer = types.SimpleNamespace(ctx=ctx, chain_id=checked.chain_id,
                                   key=lambda: AccountKey(ring.private_key(record.name)))
    sign(tx, signer, 0, 0)
    path = pathlib.Path(output_document) if output_document else node_home.config_dir / "gentx" / \
        f"gentx-{node_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "x") as f:
            f.write(json.dumps(protojson.to_dict(tx), separators=(",", ":")) + "\n")
    except FileExistsError:
        raise click.ClickException(f"failed to write signed gen tx: open {path}: file exists") from None
    click.echo(f'Genesis transaction written to "{path}"', err=True)


@genesis.command("collect-gentxs")
@click.option("--gentx-dir", default=None, type=click.Path(file_okay=False),
              help="Directory of the gen txs to collect (default: [--home]/config/gentx/)")
@click.option("--home", default=None, envvar="CHAIND_HOME", help="The node's home (default ~/.chaind)")
def collect_gentxs(gentx_dir, home):
    """Collect the gen txs (gentx-*.json) into genesis.json's app_state.genutil.gen_txs, checking each
    validator's account and funds in genesis."""
    import pathlib

    from chaind import config as config_mod
    from chaind.chain import txjson
    from chaind.pb.cosmos.staking.v1beta1 import tx_pb2

    node_home = _home(home)
    doc = _read(node_home.genesis_file)
    checked = _checked(doc, "failed to validate genesis state")
    prefix = checked.bech32_prefix
    directory = pathlib.Path(gentx_dir) if gentx_dir else node_home.config_dir / "gentx"
    collected = []
    files = sorted(p for p in directory.iterdir() if p.suffix == ".json") if directory.is_dir() else []
    for path in files:
        def fail(text, path=path):
            raise click.ClickException(f"failed to get genesis app state from config: {path.name}: {text}")

        try:
            value = json.loads(path.read_text())
            tx = txjson.tx_from_json(value)
        except (OSError, ValueError, TypeError) as e:
            fail(f"not a JSON tx: {e}")
        if "@" not in tx.body.memo:
            fail(f"couldn't find node's address and IP in {path.name}")
        if len(tx.body.messages) != 1:
            fail("each genesis transaction must provide a single genesis message")
        if tx.body.messages[0].type_url != CREATE_VALIDATOR:
            fail(f"genesis transaction {path.name} does not contain a MsgCreateValidator")
        msg = tx_pb2.MsgCreateValidator.FromString(tx.body.messages[0].value)
        try:
            operator = address_bytes(msg.validator_address, prefix + "valoper")
        except AddressError as e:
            fail(e.message)
        account = to_bech32(prefix, operator)
        entry = _balance_of(doc, prefix, operator)
        if entry is None:
            fail(f"account {account} balance not in genesis state")
        held = sum(int(c["amount"]) for c in entry["coins"] if c["denom"] == msg.value.denom)
        if held < int(msg.value.amount or "0"):
            fail(f"insufficient fund for delegation {account}: {held} < {msg.value.amount}")
        collected.append(value)
    if not collected:
        raise click.ClickException("failed to get genesis app state from config: there must be at least one "
                                   f"genesis tx (none in {directory}: write one with `chaind genesis gentx`)")
    doc["app_state"].setdefault("genutil", {})["gen_txs"] = collected
    _checked(doc, "failed to get genesis app state from config")
    _write(node_home.genesis_file, doc)
    settings = config_mod.load(node_home.config_file) if node_home.config_file.is_file() else config_mod.Settings()
    node_id = hashlib.sha256(node_home.validator_public_key()).digest()[:20].hex()
    info = {"app_message": doc["app_state"], "chain_id": checked.chain_id, "gentxs_dir": str(directory),
            "moniker": settings.node.moniker, "node_id": node_id}
    # As the SDK's displayInfo: the summary as sorted JSON on stderr.
    click.echo(json.dumps(info, sort_keys=True, separators=(",", ":")), err=True)


@genesis.command()
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--home", default=None, envvar="CHAIND_HOME", help="The node's home (default ~/.chaind)")
def validate(file, home):
    """Validate the genesis file at the home's location, or FILE."""
    from chaind.home import Home

    path = file or Home(home_path(home)).genesis_file
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise click.ClickException(f"cannot read {path}: {e.strerror}") from None
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise click.ClickException(f"error unmarshalling genesis doc {path}: {e}") from None
    _checked(doc, f"error validating genesis file {path}")
    click.echo(f"File at {path} is a valid genesis file")
