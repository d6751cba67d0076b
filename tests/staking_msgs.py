"""Staking messages for tests: built as a client (cosmjs, the SDK CLI) would put them in a tx."""

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
from google.protobuf import any_pb2

from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.crypto.ed25519 import keys_pb2 as ed25519_pb2
from chaind.pb.cosmos.staking.v1beta1 import staking_pb2, tx_pb2

CHAIN = 10**18
CREATE = "/cosmos.staking.v1beta1.MsgCreateValidator"
EDIT = "/cosmos.staking.v1beta1.MsgEditValidator"
DELEGATE = "/cosmos.staking.v1beta1.MsgDelegate"
UNDELEGATE = "/cosmos.staking.v1beta1.MsgUndelegate"
REDELEGATE = "/cosmos.staking.v1beta1.MsgBeginRedelegate"


def new_consensus_key():
    """A fresh ed25519 validator key: (private key, 32-byte public key)."""
    private = ed25519.Ed25519PrivateKey.generate()
    return private, private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def ed25519_any(pubkey):
    key = ed25519_pb2.PubKey(key=pubkey).SerializeToString()
    return any_pb2.Any(type_url="/cosmos.crypto.ed25519.PubKey", value=key)


def coin(amount, denom="achain"):
    return coin_pb2.Coin(denom=denom, amount=str(amount))


def valoper(prefix, address):
    return to_bech32(prefix + "valoper", address)


def create(prefix, operator, pubkey, amount, moniker="second", rate=10**17, max_rate=2 * 10**17,
           max_change=10**16, min_self="1", denom="achain", pubkey_any=None):
    return CREATE, tx_pb2.MsgCreateValidator(
        description=staking_pb2.Description(moniker=moniker),
        commission=staking_pb2.CommissionRates(rate=str(rate), max_rate=str(max_rate), max_change_rate=str(max_change)),
        min_self_delegation=min_self, validator_address=valoper(prefix, operator),
        pubkey=pubkey_any or ed25519_any(pubkey), value=coin(amount, denom))


def delegate(prefix, delegator, operator, amount, denom="achain"):
    return DELEGATE, tx_pb2.MsgDelegate(delegator_address=to_bech32(prefix, delegator),
                                        validator_address=valoper(prefix, operator), amount=coin(amount, denom))


def undelegate(prefix, delegator, operator, amount, denom="achain"):
    return UNDELEGATE, tx_pb2.MsgUndelegate(delegator_address=to_bech32(prefix, delegator),
                                            validator_address=valoper(prefix, operator), amount=coin(amount, denom))


def redelegate(prefix, delegator, src, dst, amount):
    return REDELEGATE, tx_pb2.MsgBeginRedelegate(
        delegator_address=to_bech32(prefix, delegator), validator_src_address=valoper(prefix, src),
        validator_dst_address=valoper(prefix, dst), amount=coin(amount))


def edit(prefix, operator, moniker="[do-not-modify]", rate=None, min_self=""):
    return EDIT, tx_pb2.MsgEditValidator(
        description=staking_pb2.Description(moniker=moniker, identity="[do-not-modify]",
                                            website="[do-not-modify]", security_contact="[do-not-modify]",
                                            details="[do-not-modify]"),
        validator_address=valoper(prefix, operator), commission_rate="" if rate is None else str(rate),
        min_self_delegation=min_self)
