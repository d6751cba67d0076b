"""staking's CLI table: validators, delegations and the pool; delegate, unbond, redelegate, and the hand-written
create-validator (flags or a validator.json) and edit-validator (fields left as they are unless given)."""

import base64
import json

import click

from chaind.chain.cli_table import Arg, Flag, Msg, Queries, Query, Txs

_DELEGATOR, _VALIDATOR = Arg("delegator_addr", "acc", "delegator"), Arg("validator_addr", "val", "validator")

_HELP = "Validators, delegations, the staking pool and parameters."

QUERY = Queries("chaind.pb.cosmos.staking.v1beta1.query_pb2", _HELP, (
    Query("validators", "Validators", "All validators.", flags=(
        Flag("status", "BOND_STATUS_BONDED, BOND_STATUS_UNBONDING or BOND_STATUS_UNBONDED"),)),
    Query("validator", "Validator", "One validator by operator address (valoper bech32 or 0x).", args=(_VALIDATOR,)),
    Query("delegation", "Delegation", "A delegator's delegation to a validator.", args=(_DELEGATOR, _VALIDATOR)),
    Query("delegations", "DelegatorDelegations", "All delegations of a delegator.", args=(_DELEGATOR,)),
    Query("delegations-to", "ValidatorDelegations", "All delegations to a validator.", args=(_VALIDATOR,)),
    Query("unbonding-delegations", "DelegatorUnbondingDelegations", "All unbonding delegations of a delegator.",
          args=(_DELEGATOR,)),
    Query("unbonding-delegation", "UnbondingDelegation", "A delegator's unbonding delegation from a validator.",
          args=(_DELEGATOR, _VALIDATOR)),
    Query("unbonding-delegations-from", "ValidatorUnbondingDelegations",
          "All unbonding delegations from a validator.", args=(_VALIDATOR,)),
    Query("redelegation", "Redelegations", "A delegator's redelegation from one validator to another.",
          args=(_DELEGATOR, Arg("src_validator_addr", "val", "src_validator"),
                Arg("dst_validator_addr", "val", "dst_validator")), paginate=False),
    Query("redelegations", "Redelegations", "All redelegations of a delegator.", args=(_DELEGATOR,)),
    Query("redelegations-from", "Redelegations", "All redelegations away from a validator.",
          args=(Arg("src_validator_addr", "val", "validator"),)),
    Query("delegator-validators", "DelegatorValidators", "The validators a delegator delegates to.",
          args=(_DELEGATOR,)),
    Query("historical-info", "HistoricalInfo", "The header and validator set the staking module kept for HEIGHT.",
          args=(Arg("height", "uint"),)),
    Query("pool", "Pool", "Bonded and not bonded token totals."),
    Query("params", "Params", "The staking module's parameters."),
))


def _dec(text, what):
    from chaind.chain import legacy_dec

    try:
        return legacy_dec.wire_of_text(text)
    except ValueError as e:
        raise click.ClickException(f"invalid {what}: {e}") from None


def _consensus_pubkey(kit, value):
    """An ed25519 consensus key given as the SDK prints it ({"@type":"/cosmos.crypto.ed25519.PubKey","key":...})."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise click.ClickException(f"invalid --pubkey {value!r}: want the JSON of an ed25519 key, e.g. "
                                       '{"@type":"/cosmos.crypto.ed25519.PubKey","key":"<base64>"}') from None
    if not isinstance(value, dict) or value.get("@type") != "/cosmos.crypto.ed25519.PubKey":
        raise click.ClickException(f"invalid validator pubkey {value!r}: want an /cosmos.crypto.ed25519.PubKey")
    try:
        key = base64.b64decode(value.get("key") or "", validate=True)
    except ValueError:
        key = b""
    if len(key) != 32:
        raise click.ClickException("invalid validator pubkey: want a 32-byte ed25519 key in base64")
    from chaind.pb.cosmos.crypto.ed25519 import keys_pb2

    return kit.any("/cosmos.crypto.ed25519.PubKey", keys_pb2.PubKey(key=key))


# The SDK's defaults for the commission flags (x/staking/client/cli), used when a flag is not given.
_VALIDATOR_DEFAULTS = {"commission-rate": "0.1", "commission-max-rate": "0.2", "commission-max-change-rate": "0.01",
                       "min-self-delegation": "1"}
_VALIDATOR_FIELDS = ("pubkey", "amount", "moniker", "identity", "website", "security", "details", "commission-rate",
                     "commission-max-rate", "commission-max-change-rate", "min-self-delegation")
DO_NOT_MODIFY = "[do-not-modify]"        # the SDK's marker for a description field left as it is


def hand_written(kit):
    """create-validator (from flags or a JSON file, with the SDK's defaults) and edit-validator (a field not
    given is the SDK's do-not-modify marker): nested messages a table of arguments does not describe."""

    @click.command("create-validator")
    @click.argument("validator_file", required=False, type=click.Path(dir_okay=False))
    @click.option("--from", "from_", required=True, help="Operator key (name or address): the self-delegator")
    @click.option("--pubkey", default=None,
                  help='Consensus key: {"@type":"/cosmos.crypto.ed25519.PubKey","key":"..."}')
    @click.option("--amount", default=None, help="Self-delegation, e.g. 1000000000000000000achain")
    @click.option("--moniker", default=None, help="The validator's name")
    @click.option("--identity", default="", help="Identity signature (e.g. Keybase)")
    @click.option("--website", default="", help="Website")
    @click.option("--security-contact", default="", help="Security contact email")
    @click.option("--details", default="", help="Details")
    @click.option("--commission-rate", default=None, help="Initial commission rate (default 0.1)")
    @click.option("--commission-max-rate", default=None, help="Maximum commission rate (default 0.2)")
    @click.option("--commission-max-change-rate", default=None,
                  help="Maximum daily change of the rate (default 0.01)")
    @click.option("--min-self-delegation", default=None, help="Minimum self-delegation (default 1)")
    @kit.tx_options
    def create_validator(validator_file, from_, **params):
        """Create a validator self-delegating --amount: from flags, or from VALIDATOR_FILE (JSON, as v0.50 takes:
        pubkey, amount, moniker, identity, website, security, details, commission-rate, commission-max-rate,
        commission-max-change-rate, min-self-delegation)."""
        ctx = click.get_current_context()
        if validator_file:
            given = [f for f in ("pubkey", "amount", "moniker") if params.get(f)]
            if given:
                raise click.UsageError(f"give either VALIDATOR_FILE or --{', --'.join(given)}")
            try:
                with open(validator_file) as f:
                    doc = json.load(f)
            except (OSError, ValueError) as e:
                raise click.ClickException(f"cannot read {validator_file}: {e}") from None
            if not isinstance(doc, dict):
                raise click.ClickException(f"{validator_file}: want a JSON object")
            unknown = set(doc) - set(_VALIDATOR_FIELDS)
            if unknown:
                raise click.ClickException(f"{validator_file}: unknown field(s) {', '.join(sorted(unknown))}")
        else:
            doc = {"pubkey": params["pubkey"], "amount": params["amount"], "moniker": params["moniker"],
                   "identity": params["identity"], "website": params["website"],
                   "security": params["security_contact"], "details": params["details"]}
            for name in _VALIDATOR_DEFAULTS:
                doc[name] = params[name.replace("-", "_")]
        for name in ("pubkey", "amount", "moniker"):
            if not doc.get(name):
                raise click.ClickException(f"must specify the validator's {name}"
                                           + ("" if validator_file else f" (--{name})"))
        values = {**_VALIDATOR_DEFAULTS, **{k: v for k, v in doc.items() if v not in (None, "")}}
        min_self = str(values["min-self-delegation"])
        if not min_self.isdigit() or int(min_self) == 0:
            raise click.ClickException(f"invalid min-self-delegation {min_self!r}: want a positive integer")
        from chaind.pb.cosmos.staking.v1beta1 import staking_pb2, tx_pb2

        operator = kit.sender_address(ctx, from_)
        msg = tx_pb2.MsgCreateValidator(
            description=staking_pb2.Description(
                moniker=str(doc["moniker"]), identity=str(doc.get("identity") or ""),
                website=str(doc.get("website") or ""), security_contact=str(doc.get("security") or ""),
                details=str(doc.get("details") or "")),
            commission=staking_pb2.CommissionRates(
                rate=_dec(str(values["commission-rate"]), "commission rate"),
                max_rate=_dec(str(values["commission-max-rate"]), "commission max rate"),
                max_change_rate=_dec(str(values["commission-max-change-rate"]), "commission max change rate")),
            min_self_delegation=min_self, validator_address=kit.to_bech32(kit.prefix(ctx, "val"), operator),
            pubkey=_consensus_pubkey(kit, doc["pubkey"]), value=kit.coin(str(doc["amount"])))
        kit.generate_or_broadcast(ctx, from_, [("/cosmos.staking.v1beta1.MsgCreateValidator", msg)])

    @click.command("edit-validator")
    @click.option("--from", "from_", required=True, help="Operator key (name or address)")
    @click.option("--new-moniker", default=DO_NOT_MODIFY, help="The validator's new name")
    @click.option("--identity", default=DO_NOT_MODIFY, help="Identity signature")
    @click.option("--website", default=DO_NOT_MODIFY, help="Website")
    @click.option("--security-contact", default=DO_NOT_MODIFY, help="Security contact email")
    @click.option("--details", default=DO_NOT_MODIFY, help="Details")
    @click.option("--commission-rate", default=None, help="New commission rate (at most once a day)")
    @click.option("--min-self-delegation", default=None, help="New minimum self-delegation (only upward)")
    @kit.tx_options
    def edit_validator(from_, new_moniker, identity, website, security_contact, details, commission_rate,
                       min_self_delegation, **_):
        """Change a validator's description, commission rate or minimum self-delegation."""
        ctx = click.get_current_context()
        if min_self_delegation is not None and (not min_self_delegation.isdigit() or int(min_self_delegation) == 0):
            raise click.ClickException(f"invalid --min-self-delegation {min_self_delegation!r}: "
                                       "want a positive integer")
        from chaind.pb.cosmos.staking.v1beta1 import staking_pb2, tx_pb2

        msg = tx_pb2.MsgEditValidator(
            description=staking_pb2.Description(moniker=new_moniker, identity=identity, website=website,
                                                security_contact=security_contact, details=details),
            validator_address=kit.to_bech32(kit.prefix(ctx, "val"), kit.sender_address(ctx, from_)),
            commission_rate=_dec(commission_rate, "commission rate") if commission_rate else "",
            min_self_delegation=min_self_delegation or "")
        kit.generate_or_broadcast(ctx, from_, [("/cosmos.staking.v1beta1.MsgEditValidator", msg)])

    return [create_validator, edit_validator]


_DELEGATOR_KEY = "Delegator key (name or address)"

TX = Txs("chaind.pb.cosmos.staking.v1beta1.tx_pb2", "Delegate, undelegate and redelegate stake.", (
    Msg("delegate", "MsgDelegate", "Delegate AMOUNT to a validator (valoper bech32 or 0x).", "delegator_address",
        args=(Arg("validator_address", "val", "validator"), Arg("amount", "coin")), from_help=_DELEGATOR_KEY),
    Msg("unbond", "MsgUndelegate", "Undelegate AMOUNT from a validator.", "delegator_address",
        args=(Arg("validator_address", "val", "validator"), Arg("amount", "coin")), from_help=_DELEGATOR_KEY),
    Msg("redelegate", "MsgBeginRedelegate", "Move AMOUNT of delegation from one validator to another.",
        "delegator_address", args=(Arg("validator_src_address", "val", "src_validator"),
                                   Arg("validator_dst_address", "val", "dst_validator"), Arg("amount", "coin")),
        from_help=_DELEGATOR_KEY),
    Msg("cancel-unbond", "MsgCancelUnbondingDelegation",
        "Cancel (part of) the unbonding begun at CREATION_HEIGHT: AMOUNT is delegated back to the validator.",
        "delegator_address", args=(Arg("validator_address", "val", "validator"), Arg("amount", "coin"),
                                   Arg("creation_height", "uint")), from_help=_DELEGATOR_KEY),
), custom=hand_written,
    signers={"MsgCreateValidator": "validator_address", "MsgEditValidator": "validator_address"})
