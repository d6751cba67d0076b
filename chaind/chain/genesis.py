"""The genesis document: the chain's identity, its first balances and validators.

Stored as the Cosmos SDK lays it out (JSON, 64-bit numbers as strings); the dev template in
etc/genesis-dev.json is expanded here into a full document for a one-validator dev chain.
"""

import base64
import copy
import datetime
import json
import re

import attrs
from google.protobuf import json_format

from chaind.chain import legacy_dec, txjson
from chaind.chain.modules import erc20, staking
from chaind.chain.modules.auth import genesis as auth_genesis
from chaind.chain.modules.auth import params as auth_params
from chaind.chain.modules.consensus import params as consensus_params
from chaind.chain.modules.nft import genesis as nft_genesis
from chaind.crypto import addresses, keys
from chaind.gocompat import format_time
from chaind.resources import etc_file

_CHAIN_ID = re.compile(r"^[a-z]{1,}_([1-9][0-9]*)-([1-9][0-9]*)$")


class GenesisError(ValueError):
    """A genesis document that cannot start a chain; the message names the field."""


@attrs.frozen
class Validator:
    operator: bytes            # account address of the operator
    consensus_pubkey: bytes    # 32-byte ed25519 public key
    power: int                 # tokens / 10^18
    tokens: int                # its self-delegation, bonded at genesis
    moniker: str
    rate: int = legacy_dec.parse("0.1")            # commission rates, LegacyDec atomics
    max_rate: int = legacy_dec.parse("0.2")
    max_change_rate: int = legacy_dec.parse("0.01")
    min_self_delegation: int = 1


def _validator(doc, prefix):
    """A genesis validator; its commission and minimum self-delegation default to what `gentx` sets."""
    tokens = int(doc["tokens"])
    if tokens <= 0:
        raise GenesisError("a genesis validator's tokens must be positive")
    pubkey = base64.b64decode(doc["consensus_pubkey"])
    if len(pubkey) != 32:
        raise GenesisError("a genesis validator's consensus_pubkey must be a 32-byte ed25519 key (base64)")
    commission = doc.get("commission", {})
    defaults = attrs.fields_dict(Validator)
    rates = {name: legacy_dec.parse(commission[name]) if name in commission else defaults[name].default
             for name in ("rate", "max_rate", "max_change_rate")}
    validator = Validator(addresses.parse(doc["operator"], prefix), pubkey, tokens // staking.POWER_REDUCTION,
                          tokens, doc.get("moniker", ""),
                          min_self_delegation=int(doc.get("min_self_delegation", "1")), **rates)
    if validator.min_self_delegation > tokens:
        raise GenesisError("a genesis validator's tokens are below its min_self_delegation")
    return validator


CREATE_VALIDATOR = "/cosmos.staking.v1beta1.MsgCreateValidator"


def _gen_txs(docs, prefix):
    """(TxRaw bytes, Validator) of each of app_state.genutil.gen_txs, as the SDK's genutil validates them:
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
            validators.append(Validator(
                addresses.parse(msg.validator_address, prefix + "valoper"), pubkey,
                tokens // staking.POWER_REDUCTION, tokens, msg.description.moniker,
                int(msg.commission.rate or "0"), int(msg.commission.max_rate or "0"),
                int(msg.commission.max_change_rate or "0"), int(msg.min_self_delegation or "1")))
        raws.append(txjson.raw_of(tx))
    return tuple(raws), tuple(validators)


@attrs.frozen
class Genesis:
    document: dict
    chain_id: str
    evm_chain_id: int
    genesis_time_ns: int
    initial_height: int
    max_gas: int
    max_bytes: int
    bech32_prefix: str
    base_denom: str
    balances: tuple            # (address, ((denom, amount), ...)), ...
    denom_metadata: tuple      # SDK Metadata dicts
    base_fee: int
    base_fee_change_denominator: int
    elasticity_multiplier: int
    no_base_fee: bool
    validators: tuple
    staking_params: staking.Params
    erc20: object = None       # evmos.erc20.v1.GenesisState
    erc20_authority: bytes = b""   # who may register pairs and change erc20 params (Evmos: gov)
    auth_params: object = auth_params.PARAMS   # cosmos.auth.v1beta1.Params
    gen_txs: tuple = ()        # TxRaw bytes of app_state.genutil.gen_txs, delivered at genesis
    gen_tx_validators: tuple = ()  # the validators those txs create

    @property
    def initial_validators(self):
        """The validators of the first block: staking's genesis validators, or those the gen txs create."""
        return self.validators + self.gen_tx_validators

    @classmethod
    def from_document(cls, doc):
        try:
            chain_id = doc["chain_id"]
            match = _CHAIN_ID.match(chain_id)
            if not match:
                raise GenesisError(f"chain_id {chain_id!r} must look like <name>_<EIP-155 id>-<version>")
            app = doc["app_state"]
            prefix = app["auth"]["bech32_prefix"]
            block = doc["consensus_params"]["block"]
            fm = app["feemarket"]["params"]
            balances = tuple(
                (addresses.parse(b["address"], prefix),
                 tuple((c["denom"], int(c["amount"])) for c in b["coins"]))
                for b in app["bank"]["balances"])
            validators = tuple(_validator(v, prefix) for v in app["staking"]["validators"])
            base_denom = app["evm"]["params"]["evm_denom"]
            staking_params = staking.parse_params(app["staking"].get("params", {}), base_denom)
            try:
                params = auth_params.parse_params(app["auth"].get("params"))
            except ValueError as e:
                raise GenesisError(f"invalid genesis: app_state.auth.params: {e}") from None
            try:
                erc20_state, erc20_authority = erc20.parse_genesis(app.get("erc20"), prefix)
            except (ValueError, json_format.ParseError) as e:
                raise GenesisError(f"invalid genesis: app_state.erc20: {e}") from None
            try:
                consensus_params.validate(consensus_params.of_document(doc))
            except ValueError as e:
                raise GenesisError(f"invalid genesis: consensus_params: {e}") from None
            try:
                auth_genesis.parse_accounts(app["auth"].get("accounts"), prefix)
            except ValueError as e:
                raise GenesisError(f"invalid genesis: app_state.auth: {e}") from None
            try:
                nft_genesis.parse_genesis(app.get("nft"), prefix)
            except ValueError as e:
                raise GenesisError(f"invalid genesis: app_state.nft: {e}") from None
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
                bech32_prefix=prefix, base_denom=base_denom,
                balances=balances, denom_metadata=tuple(app["bank"].get("denom_metadata", ())),
                base_fee=int(fm["base_fee"]), base_fee_change_denominator=int(fm["base_fee_change_denominator"]),
                elasticity_multiplier=int(fm["elasticity_multiplier"]), no_base_fee=bool(fm["no_base_fee"]),
                validators=validators, staking_params=staking_params, erc20=erc20_state,
                erc20_authority=erc20_authority, auth_params=params, gen_txs=gen_txs,
                gen_tx_validators=gen_tx_validators)
        except GenesisError:
            raise
        except (KeyError, TypeError, ValueError) as e:
            raise GenesisError(f"invalid genesis: {type(e).__name__}: {e}") from None

    @classmethod
    def load(cls, path):
        with open(path) as f:
            return cls.from_document(json.load(f))

    def dump(self, path):
        with open(path, "w") as f:
            json.dump(self.document, f, indent=2)


def dev_template():
    return json.loads(etc_file("genesis-dev.json").read_text())


def expand_dev(template, validator_pubkey, moniker, now_ns, chain_id=None):
    """A full genesis from the dev template: funded dev accounts and this node as the one validator.

    Returns (document, dev account keys).
    """
    doc = copy.deepcopy(template)
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


def expand_new(template, now_ns, chain_id=None):
    """A genesis for a chain of one's own: no balances, no validators (the genesis commands add them: accounts,
    then gen txs), and the gov module account as the only authority."""
    doc = copy.deepcopy(template)
    if chain_id is not None:
        doc["chain_id"] = chain_id
    app = doc["app_state"]
    for name in ("dev_mnemonic", "dev_accounts", "dev_coins"):
        app["bank"].pop(name)
    app["bank"]["balances"] = []
    app["staking"].pop("self_delegation")
    app["staking"]["validators"] = []
    app.get("erc20", {}).pop("dev_authority_account", None)
    # Inflation mints on Evmos' `day` epoch, not the dev chain's 10-second one.
    app["epochs"]["epochs"] = [e for e in app["epochs"]["epochs"] if e["identifier"] != "dev"]
    app["inflation"]["epoch_identifier"] = "day"
    # Downtime is judged on the SDK's window and jail time, not the dev chain's short ones.
    app["slashing"]["params"] = {}
    app["genutil"] = {"gen_txs": []}
    doc["genesis_time"] = format_time(now_ns)
    return doc


def _parse_time(text):
    match = re.match(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$", text)
    if not match:
        raise GenesisError(f"genesis_time {text!r} must be RFC 3339 UTC, e.g. 2024-01-01T00:00:00Z")
    dt = datetime.datetime.strptime(match.group(1), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
    return int(dt.timestamp()) * 10**9 + int((match.group(2) or "0").ljust(9, "0"))
