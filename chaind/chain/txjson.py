"""Txs and messages from the SDK's JSON (as its TxJSONEncoder and PrintProto write them): Any as
{"@type": url, ...fields}, LegacyDec fields as decimals, which the wire holds as 18-decimal atomics.

The CLI reads txs with it, and genesis its gen_txs, which must encode to the very bytes their keys signed.
"""

import importlib

from google.protobuf import descriptor_pool, json_format, message_factory

from chaind.chain import legacy_dec
from chaind.pb.rest_routes import DECIMALS

# Generated modules whose messages travel in Any fields (txs, accounts, keys): loaded when an
# Any names a type the pool does not hold yet, so plain queries never import them.
ANY_MODULES = (
    "cosmos.tx.v1beta1.tx_pb2", "cosmos.bank.v1beta1.tx_pb2", "cosmos.staking.v1beta1.tx_pb2",
    "evmos.erc20.v1.tx_pb2", "ethermint.evm.v1.tx_pb2", "ethermint.types.v1.account_pb2",
    "ethermint.crypto.v1.ethsecp256k1.keys_pb2", "cosmos.crypto.ed25519.keys_pb2",
    "cosmos.crypto.secp256k1.keys_pb2", "cosmos.crypto.multisig.keys_pb2", "cosmos.auth.v1beta1.auth_pb2",
    "ethermint.feemarket.v1.tx_pb2", "cosmos.auth.v1beta1.tx_pb2", "cosmos.bank.v1beta1.bank_pb2",
    "cosmos.gov.v1.tx_pb2", "cosmos.distribution.v1beta1.tx_pb2", "evmos.inflation.v1.tx_pb2",
    "cosmos.upgrade.v1beta1.tx_pb2", "cosmos.crisis.v1beta1.tx_pb2", "cosmos.authz.v1beta1.tx_pb2",
    "cosmos.authz.v1beta1.authz_pb2", "cosmos.bank.v1beta1.authz_pb2", "cosmos.staking.v1beta1.authz_pb2",
    "cosmos.vesting.v1beta1.tx_pb2", "cosmos.vesting.v1beta1.vesting_pb2", "cosmos.nft.v1beta1.tx_pb2",
)


def message_class(type_url):
    """The generated class of an Any's type URL, or None when no known module defines it."""
    name = type_url.rsplit("/", 1)[-1]
    pool = descriptor_pool.Default()
    for attempt in range(2):
        try:
            return message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
        except KeyError:
            if attempt == 0:
                for module in ANY_MODULES:
                    importlib.import_module("chaind.pb." + module)
    return None


def from_dict(value, message):
    """Fill `message` from JSON as to_dict writes it (the reverse of its LegacyDec rendering)."""
    json_format.ParseDict(_decs_to_wire(value, message.DESCRIPTOR), message)
    return message


def _decs_to_wire(value, descriptor):
    if not isinstance(value, dict):
        return value
    if descriptor.full_name == "google.protobuf.Any" and "@type" in value:
        cls = message_class(value["@type"])
        return value if cls is None else _decs_to_wire(value, cls.DESCRIPTOR)
    out = dict(value)
    for name, item in value.items():
        field = descriptor.fields_by_name.get(name)
        if field is None or item is None:
            continue
        if field.full_name in DECIMALS and isinstance(item, str) and item:
            try:
                out[name] = legacy_dec.wire_of_text(item)
            except ValueError as e:
                raise ValueError(f"invalid decimal {item!r} in {name}: {e}") from None
        elif field.message_type is not None and not field.message_type.GetOptions().map_entry:
            out[name] = [_decs_to_wire(i, field.message_type) for i in item] if isinstance(item, list) \
                else _decs_to_wire(item, field.message_type)
    return out


def tx_from_json(value):
    """A cosmos.tx.v1beta1.Tx from its JSON (a dict); ValueError naming what is wrong."""
    for module in ANY_MODULES:
        importlib.import_module("chaind.pb." + module)
    from chaind.pb.cosmos.tx.v1beta1 import tx_pb2

    try:
        return from_dict(value, tx_pb2.Tx())
    except json_format.ParseError as e:
        raise ValueError(str(e)) from None


def raw_of(tx):
    """The TxRaw bytes of a Tx: what its signatures sign over, as the chain receives it."""
    from chaind.pb.cosmos.tx.v1beta1 import tx_pb2

    return tx_pb2.TxRaw(body_bytes=tx.body.SerializeToString(), auth_info_bytes=tx.auth_info.SerializeToString(),
                        signatures=tx.signatures).SerializeToString()
