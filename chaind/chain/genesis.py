"""The genesis document: the chain's identity, its first validators, and each module's section.

Stored as the Cosmos SDK lays it out (JSON, 64-bit numbers as strings). The document-level parts (chain id, time,
initial height, validators, gen txs) are read here; each module's section is read by the module itself (its
ModuleGenesis, chain/module_genesis.py). The dev template in etc/genesis-dev.json is expanded here into a full
document for a one-validator dev chain, over the modules' default sections.
"""

import base64
import copy
import datetime
import json
import re

import attrs
from google.protobuf import json_format

from chaind.chain import registry, txjson, zero_height
from chaind.chain.module import precompiles_of
from chaind.chain.module_genesis import GenesisContext, GenesisError
from chaind.chain.modules.staking.genesis import GenesisValidator
from chaind.chain.modules.staking.records import POWER_REDUCTION
from chaind.crypto import addresses, keys
from chaind.gocompat import format_time
from chaind.resources import etc_file

_CHAIN_ID = re.compile(r"^[a-z]{1,}_([1-9][0-9]*)-([1-9][0-9]*)$")


__all__ = ("CREATE_VALIDATOR", "Genesis", "GenesisError", "app_genesis", "comet_document", "dev_template", "expand_dev",
           "expand_new", "export_document", "NEW_CHAIN_MAX_GAS")


CREATE_VALIDATOR = "/cosmos.staking.v1beta1.MsgCreateValidator"
# A new chain's block gas limit (consensus_params.block.max_gas): a full block of the slowest gas this node executes
# (a loop of CALLs, 11-15 Mgas/s of one core: `python bench/evm_speed.py --block-gas 3000000`) takes about 0.2 s
# of the default 1 s block interval, room for a validator that also serves clients on a busier host (issue 36;
# README's operators' notes). The dev chain keeps its template's 30,000,000, which Hardhat's and Foundry's suites
# need.
NEW_CHAIN_MAX_GAS = 3_000_000


def _gen_txs(docs, prefix):
    """(TxRaw bytes, GenesisValidator) of each of app_state.genutil.gen_txs, as the SDK's genutil validates them:
    signed txs (JSON) of MsgCreateValidator messages, delivered at genesis."""
    from chaind.pb.cosmos.crypto.ed25519 import keys_pb2
    from chaind.pb.cosmos.staking.v1beta1 import tx_pb2

    raws, validators = [], []
    for index, doc in enumerate(docs):
        try:
            tx = txjson.tx_from_json(doc)
        except (ValueError, TypeError) as e:
            raise GenesisError(f"invalid genesis: app_state.genutil.gen_txs[{index}] is not a JSON tx: {e}") from None
        if not tx.body.messages:
            raise GenesisError(f"invalid genesis: app_state.genutil.gen_txs[{index}]: must provide genesis "
                               "transaction with at least one message")
        for any_msg in tx.body.messages:
            if any_msg.type_url != CREATE_VALIDATOR:
                raise GenesisError(f"invalid genesis: genesis transaction {index} does not contain a "
                                   "MsgCreateValidator")
            msg = tx_pb2.MsgCreateValidator.FromString(any_msg.value)
            pubkey = keys_pb2.PubKey.FromString(msg.pubkey.value).key
            tokens = int(msg.value.amount or "0")
            validators.append(GenesisValidator(
                addresses.parse(msg.validator_address, prefix + "valoper"), pubkey,
                tokens // POWER_REDUCTION, tokens, msg.description.moniker,
                int(msg.commission.rate or "0"), int(msg.commission.max_rate or "0"),
                int(msg.commission.max_change_rate or "0"), int(msg.min_self_delegation or "1")))
        raws.append(txjson.raw_of(tx))
    return tuple(raws), tuple(validators)


@attrs.frozen
class Genesis:
    """A checked genesis document: its document-level facts, and `sections`, {module name: what the module's
    ModuleGenesis.validate made of its section}, which the module's init takes."""

    document: dict
    chain_id: str
    evm_chain_id: int
    genesis_time_ns: int
    initial_height: int
    max_gas: int
    max_bytes: int
    bech32_prefix: str
    base_denom: str
    sections: dict
    gen_txs: tuple = ()        # TxRaw bytes of app_state.genutil.gen_txs, delivered at genesis
    gen_tx_validators: tuple = ()  # the validators those txs create

    @property
    def initial_validators(self):
        """The validators of the first block: staking's genesis validators, or those the gen txs create."""
        return self.validators + self.gen_tx_validators

    # What the app and the services read of the modules' sections most (each module's own parse of it).
    @property
    def balances(self):
        """((address, ((denom, amount), ...)), ...) of app_state.bank.balances."""
        return self.sections["bank"].balances

    @property
    def denom_metadata(self):
        return self.sections["bank"].denom_metadata

    @property
    def auth_params(self):
        """cosmos.auth.v1beta1.Params: fixed at genesis (auth has no MsgUpdateParams here)."""
        return self.sections["auth"].params

    @property
    def validators(self):
        """The GenesisValidators staking's genesis starts the chain with: app_state.staking.validators (a new
        chain's), or an export's last validator set."""
        return self.sections["staking"].first_set if "staking" in self.sections else ()

    @property
    def staking_params(self):
        return self.sections["staking"].params

    @property
    def erc20(self):
        """evmos.erc20.v1.GenesisState of app_state.erc20."""
        return self.sections["erc20"].state

    @property
    def erc20_authority(self):
        """Who may register pairs and change erc20 params besides gov (a dev genesis' dev account)."""
        return self.sections["erc20"].authority

    @property
    def base_fee(self):
        return int(self.sections["feemarket"].base_fee)

    @property
    def no_base_fee(self):
        return self.sections["feemarket"].no_base_fee

    def section_of(self, module, modules):
        """What `module`'s validate makes of its section: read with the document, or now for a module the
        document was not read with (`modules`: those the chain runs)."""
        if module.name in self.sections:
            return self.sections[module.name]
        return _section(module, self.document, _context(self.document["app_state"], modules))

    @classmethod
    def from_document(cls, doc, modules=None):
        """The Genesis of `doc`, every section checked by its module (`modules`: the registry's by default);
        GenesisError names the field that is wrong."""
        modules = registry.MODULES if modules is None else modules
        try:
            doc = comet_document(doc)
            chain_id = doc["chain_id"]
            match = _CHAIN_ID.match(chain_id)
            if not match:
                raise GenesisError(f"chain_id {chain_id!r} must look like <name>_<EIP-155 id>-<version>")
            app = doc["app_state"]
            context = _context(app, modules)
            prefix, base_denom = context.bech32_prefix, context.base_denom
            block = doc["consensus_params"]["block"]
            sections = {module.name: _section(module, doc, context) for module in modules
                        if module.genesis is not None}
            validators = sections["staking"].validators if "staking" in sections else ()
            try:
                gen_txs, gen_tx_validators = _gen_txs(app.get("genutil", {}).get("gen_txs") or [], prefix)
            except addresses.AddressError as e:
                raise GenesisError(f"invalid genesis: app_state.genutil.gen_txs: {e}") from None
            if validators and gen_txs:
                # The SDK's module manager refuses a second module's validator set at InitChain.
                raise GenesisError("invalid genesis: both app_state.staking.validators and "
                                   "app_state.genutil.gen_txs make genesis validators: give one of them")
            return cls(
                document=doc, chain_id=chain_id, evm_chain_id=int(match.group(1)),
                genesis_time_ns=_parse_time(doc["genesis_time"]),
                initial_height=int(doc.get("initial_height", "1")),
                max_gas=int(block["max_gas"]), max_bytes=int(block["max_bytes"]),
                bech32_prefix=prefix, base_denom=base_denom, sections=sections,
                gen_txs=gen_txs, gen_tx_validators=gen_tx_validators)
        except GenesisError:
            raise
        except (KeyError, TypeError, ValueError) as e:
            raise GenesisError(f"invalid genesis: {type(e).__name__}: {e}") from None

    @classmethod
    def load(cls, path, modules=None):
        with open(path) as f:
            return cls.from_document(json.load(f), modules)

    def dump(self, path):
        with open(path, "w") as f:
            json.dump(self.document, f, indent=2)


def app_genesis(doc, app_name, app_version):
    """The Cosmos SDK v0.50's AppGenesis of CometBFT-shaped genesis document `doc`, in its member order (what its
    `export` writes): the initial height a JSON number, the app hash null, the validators and consensus params
    under `consensus`."""
    consensus = {"validators": doc["validators"]} if doc.get("validators") else {}
    return {"app_name": app_name, "app_version": app_version, "genesis_time": doc["genesis_time"],
            "chain_id": doc["chain_id"], "initial_height": int(doc.get("initial_height", "1")),
            "app_hash": base64.b64encode(bytes.fromhex(doc["app_hash"])).decode() if doc.get("app_hash") else None,
            "app_state": doc["app_state"], "consensus": {**consensus, "params": doc["consensus_params"]}}


def comet_document(doc):
    """`doc` in CometBFT's GenesisDoc shape, which the chain reads: an SDK v0.50 AppGenesis (`consensus` holding
    the validators and params, as its `init` and `export` write it) turned into it as the SDK's ToGenesisDoc
    does; a CometBFT-shaped document as it is."""
    if "consensus" not in doc or "consensus_params" in doc:
        return doc
    consensus = doc["consensus"] or {}
    if not isinstance(consensus, dict) or "params" not in consensus:
        raise GenesisError("invalid genesis: consensus.params: missing (an AppGenesis names its consensus params)")
    app_hash = doc.get("app_hash")
    try:
        app_hash_hex = base64.b64decode(app_hash, validate=True).hex().upper() if app_hash else ""
    except (ValueError, TypeError):
        raise GenesisError(f"invalid genesis: app_hash {app_hash!r} is not base64") from None
    out = {"genesis_time": doc["genesis_time"], "chain_id": doc["chain_id"],
           # CometBFT takes an initial height of 0 (a --for-zero-height export's) as 1.
           "initial_height": str(int(doc.get("initial_height") or 1)), "consensus_params": consensus["params"],
           "validators": consensus.get("validators") or [], "app_hash": app_hash_hex}
    if "app_state" in doc:
        out["app_state"] = doc["app_state"]
    return out


def _context(app_state, modules=None):
    """The chain's identity, as its app_state gives it: auth's prefix, the EVM denom, staking's bond denom; and
    what `modules` (the registry's by default) serve: their precompiles."""
    base_denom = app_state["evm"]["params"]["evm_denom"]
    bond_denom = (app_state.get("staking", {}).get("params") or {}).get("bond_denom", base_denom)
    precompiles = frozenset(precompiles_of(registry.MODULES if modules is None else modules))
    return GenesisContext(app_state["auth"]["bech32_prefix"], base_denom, bond_denom, precompiles)


def _section(module, doc, context):
    """What `module`'s validate makes of its section of `doc`; its ValueError as a GenesisError naming the
    section's path."""
    path = module.genesis.path(module.name)
    section = doc
    for name in path:
        section = section.get(name) if isinstance(section, dict) else None
    try:
        return module.genesis.validate(section, context)
    except GenesisError:
        raise
    except (KeyError, TypeError, ValueError, json_format.ParseError) as e:
        text = f"missing field {e}" if isinstance(e, KeyError) else str(e)
        raise GenesisError(f"invalid genesis: {'.'.join(path)}: {text}") from None


def default_app_state(context, modules=None):
    """{section name: default section} of every module with a section in app_state (the SDK's DefaultGenesis)
    for a chain of `context`'s identity."""
    modules = registry.MODULES if modules is None else modules
    state: dict = {}
    for m in modules:
        path = None if m.genesis is None else m.genesis.path(m.name)
        if path is None or path[0] != "app_state":
            continue
        # A section nested in another (IBC's submodules under app_state.ibc) joins its siblings there.
        *parents, name = path[1:]
        place = state
        for part in parents:
            place = place.setdefault(part, {})
        place[name] = m.genesis.default(context)
    return state


def exportable_names(modules):
    """The names --modules-to-export takes: each exporting module's name and its app_state section's."""
    names = set()
    for m in modules:
        if m.genesis is not None and m.genesis.export is not None:
            path = m.genesis.path(m.name)
            names |= {m.name, path[1]} if path[0] == "app_state" else {m.name}
    return names


def export_document(app, height=None, modules=None, for_zero_height=False, jail_allowed=None):
    """The genesis document of the state committed at `height` (default: the head), as the SDK's `export` writes
    it: the chain's document with every module's section its export (ExportGenesis), and the next height as
    the initial one. A new chain started from it has the exported chain's module state. `modules` (module or
    app_state section names: "ibc" names IBC's modules, as the SDK's one ibc module) keeps only those sections
    in app_state, as the SDK's --modules-to-export does. `for_zero_height`: the state first made ready for a chain
    that starts at height 1 (chain/zero_height.py; `jail_allowed`: the operators not jailed, None for all), and
    the initial height 0, as the SDK's export writes it."""
    view = app.view(height)
    doc = copy.deepcopy(app.genesis.document)
    if modules is not None:
        doc["app_state"] = {}
    staking = app.keepers["staking"]
    if for_zero_height:
        view = zero_height.prepare(app, view.height, jail_allowed)
        doc["initial_height"] = "0"
        # The set the updates after the resets left (the SDK's WriteValidators: staking's last powers).
        powers = staking.last_powers(view)
        bonded = [(staking.validator(view, operator), power) for operator, power in sorted(powers.items())]
        validators = [(v.cons_address, v.pubkey, power, v) for v, power in bonded]
    else:
        doc["initial_height"] = str(view.height + 1)
        # CometBFT's genesis validators: the set the exported block's end block left (staking's last powers, which
        # the new chain's InitChain returns), as the SDK's WriteValidators lists them.
        validators = [(v.address, v.pubkey, v.power, staking.validator_by_cons(view, v.address))
                      for v in app.validator_set(view.height + 2)]
    doc["validators"] = [
        {"address": address.hex().upper(),
         "pub_key": {"type": "tendermint/PubKeyEd25519", "value": base64.b64encode(pubkey).decode()},
         "power": str(power), "name": v.description["moniker"]}
        for address, pubkey, power, v in validators]
    for module in app.modules:
        if module.genesis is None or module.genesis.export is None:
            continue
        path = module.genesis.path(module.name)
        if modules is not None and path[0] == "app_state" and not {module.name, path[1]} & set(modules):
            continue
        *parents, name = path
        place = doc
        for part in parents:
            place = place.setdefault(part, {})
        place[name] = module.genesis.export(app, view)
    return doc


def dev_template():
    return json.loads(etc_file("genesis-dev.json").read_text())


def _over_defaults(template, modules):
    """The template with each module's default section under its own: a section the template gives keeps its
    fields, the module's default fills in the ones it leaves out."""
    doc = copy.deepcopy(template)
    app = doc["app_state"]
    for name, section in default_app_state(_context(app, modules), modules).items():
        app[name] = {**section, **app.get(name, {})}
    return doc


def relayer_key(mnemonic):
    """The dev chains' relayer key: the SDK's plain secp256k1 at m/44'/118'/0'/0/0 of the dev mnemonic, what
    @confio/relayer's and Hermes' wallets derive from it by default."""
    return keys.from_mnemonic(mnemonic, 0, keys.COSMOS_HD_PATH)


def expand_dev(template, validator_pubkey, moniker, now_ns, chain_id=None, modules=None, relayer=False):
    """A full genesis from the dev template: funded dev accounts and this node as the one validator, over the
    modules' default sections; with `relayer`, the relayer account (relayer_key) funded as a dev account is.

    Returns (document, dev account keys).
    """
    doc = _over_defaults(template, modules)
    if chain_id is not None:
        doc["chain_id"] = chain_id
    app = doc["app_state"]
    prefix = app["auth"]["bech32_prefix"]
    bank = app["bank"]
    mnemonic = bank.pop("dev_mnemonic")
    count = bank.pop("dev_accounts")
    coins = bank.pop("dev_coins")
    accounts = [keys.from_mnemonic(mnemonic, i) for i in range(count)]
    bank["balances"] = [{"address": addresses.to_bech32(prefix, k.address), "coins": coins} for k in accounts]
    if relayer:
        plain = keys.address_of(keys.SECP256K1, relayer_key(mnemonic).compressed_public_key)
        bank["balances"].append({"address": addresses.to_bech32(prefix, plain), "coins": coins})
    staking = app["staking"]
    tokens = int(staking.pop("self_delegation"))
    staking["validators"] = [{
        "operator": addresses.to_bech32(prefix, accounts[0].address),
        "consensus_pubkey": base64.b64encode(validator_pubkey).decode(),
        "tokens": str(tokens), "moniker": moniker}]
    erc20_section = app.get("erc20", {})
    if "dev_authority_account" in erc20_section:
        authority = accounts[erc20_section.pop("dev_authority_account")]
        erc20_section["authority"] = addresses.to_bech32(prefix, authority.address)
    doc["genesis_time"] = format_time(now_ns)
    return doc, accounts


def expand_new(template, now_ns, chain_id=None, modules=None):
    """A genesis for a chain of one's own: no balances, no validators (the genesis commands add them: accounts,
    then gen txs), and the gov module account as the only authority; over the modules' default sections."""
    doc = _over_defaults(template, modules)
    if chain_id is not None:
        doc["chain_id"] = chain_id
    app = doc["app_state"]
    base = app["evm"]["params"]["evm_denom"]
    for name in ("dev_mnemonic", "dev_accounts", "dev_coins"):
        app["bank"].pop(name)
    app["bank"]["balances"] = []
    # The dev chain's other coins (an IBC voucher, `stake`) have no supply here: neither metadata, a denom trace
    # (from which transfer's genesis would write the voucher's metadata) nor ERC-20 pairs; nor has the EVM coin
    # the dev chain's WERC20 (its pair, the one native precompile).
    app["bank"]["denom_metadata"] = [m for m in app["bank"]["denom_metadata"] if m["base"] == base]
    if "transfer" in app:
        app["transfer"]["denom_traces"] = []
    if "erc20" in app:
        app["erc20"]["token_pairs"] = []
        app["erc20"]["params"]["native_precompiles"] = []
        app["erc20"]["params"]["dynamic_precompiles"] = []
    # Governance on the SDK's defaults (48 h votes, 24 h expedited, 10,000,000 of the bond denom), not the dev
    # chain's seconds-long ones.
    app["gov"]["params"] = default_app_state(_context(app), modules)["gov"]["params"]
    app["staking"].pop("self_delegation")
    app["staking"]["validators"] = []
    app.get("erc20", {}).pop("dev_authority_account", None)
    # Inflation mints on Evmos' `day` epoch, not the dev chain's 10-second one.
    app["epochs"]["epochs"] = [e for e in app["epochs"]["epochs"] if e["identifier"] != "dev"]
    app["inflation"]["epoch_identifier"] = "day"
    # Downtime is judged on the SDK's window and jail time, not the dev chain's short ones.
    app["slashing"]["params"] = {}
    app["genutil"] = {"gen_txs": []}
    doc["consensus_params"]["block"]["max_gas"] = str(NEW_CHAIN_MAX_GAS)
    doc["genesis_time"] = format_time(now_ns)
    return doc


def _parse_time(text):
    match = re.match(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$", text)
    if not match:
        raise GenesisError(f"genesis_time {text!r} must be RFC 3339 UTC, e.g. 2024-01-01T00:00:00Z")
    dt = datetime.datetime.strptime(match.group(1), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
    return int(dt.timestamp()) * 10**9 + int((match.group(2) or "0").ljust(9, "0"))
