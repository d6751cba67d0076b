"""EIP-712 over the amino sign doc, as Evmos v20 verifies an eth_secp256k1 key's LEGACY_AMINO_JSON signature
that MetaMask made (ethereum/eip712: WrapTxToTypedData, its types built from the doc's own JSON).

The doc's messages become fields msg0, msg1...; each message's type is named from its amino name
(cosmos-sdk/MsgSend: TypeMsgSend0) and its nested objects from their path (value.amount: TypeValueAmount0).
"""

import functools
import json
import re

from sha3 import keccak_256

DOMAIN_TYPES = (("name", "string"), ("version", "string"), ("chainId", "uint256"), ("verifyingContract", "string"),
                ("salt", "string"))
BASE_TYPES = {
    "Tx": (("account_number", "string"), ("chain_id", "string"), ("fee", "Fee"), ("memo", "string"),
           ("sequence", "string")),
    "Fee": (("amount", "Coin[]"), ("gas", "string")),
    "Coin": (("denom", "string"), ("amount", "string")),
}
_CHAIN_ID = re.compile(r"[a-z]{1,}_([1-9][0-9]*)-[1-9][0-9]*\Z")
_MAX_DUPLICATES = 1000


class TypedDataError(ValueError):
    """A sign doc that has no EIP-712 form (not a JSON object, no messages, a malformed message type...)."""


def typed_data(sign_bytes):
    """(domain, types, message) of an amino sign doc (bytes), as Evmos v20 wraps it."""
    try:
        payload = json.loads(sign_bytes)
    except ValueError:
        raise TypedDataError("invalid JSON received") from None
    if not isinstance(payload, dict):
        raise TypedDataError("failed to JSON unmarshal data as object")
    if "msgs" not in payload:
        raise TypedDataError("no messages found in payload, unable to parse")
    msgs = payload["msgs"] or []
    if not isinstance(msgs, list):
        raise TypedDataError("expected type array of messages, cannot parse")
    message = {k: v for k, v in payload.items() if k != "msgs"}
    types = {name: list(fields) for name, fields in BASE_TYPES.items()}
    for i, msg in enumerate(msgs):
        field = f"msg{i}"
        if field in message:
            raise TypedDataError(f"malformed payload received, did not expect to find key at field {field}")
        if not isinstance(msg, dict):
            raise TypedDataError(f"msg at index {i} is not valid JSON: {msg}")
        message[field] = msg
        kind = msg.get("type")
        if not isinstance(kind, str) or not kind:
            raise TypedDataError("malformed message type value, expected type string")
        root = "Type" + kind.split("/")[-1]
        types["Tx"].append((field, _add_types(types, root, "_", msg)))
    match = _CHAIN_ID.match(str(payload.get("chain_id", "")))
    if match is None:
        raise TypedDataError("invalid chain ID passed as argument")
    domain = {"name": "Cosmos Web3", "version": "1.0.0", "chainId": int(match.group(1)), "verifyingContract": "cosmos",
              "salt": "0"}
    types["EIP712Domain"] = list(DOMAIN_TYPES)
    return domain, types, message


def _add_types(types, root, prefix, payload):
    """Evmos' recursivelyAddTypesToRoot: fields in reverse-sorted order; arrays typed by their first element;
    an empty array as string[]; numbers int64; null fields left out; the type's name indexed on collisions."""
    fields = []
    for name in sorted(payload, reverse=True):
        value, collection = payload[name], False
        if isinstance(value, list):
            if not value:
                fields.append((name, "string[]"))
                continue
            value, collection = value[0], True
        suffix = "[]" if collection else ""
        if isinstance(value, bool):
            fields.append((name, "bool" + suffix))
        elif isinstance(value, (int, float)):
            fields.append((name, "int64" + suffix))
        elif isinstance(value, str):
            fields.append((name, "string" + suffix))
        elif isinstance(value, dict):
            fields.append((name, _sanitize(_add_types(types, root, f"{prefix}.{name}", value)) + suffix))
    type_def = root if prefix == "_" else _sanitize(prefix)
    for index in range(_MAX_DUPLICATES):
        indexed = f"{type_def}{index}"
        existing = types.get(indexed)
        if existing is None:
            types[indexed] = fields
            return indexed
        if existing == fields:
            return indexed
    raise TypedDataError("exceeded maximum number of duplicates for a single type definition")


@functools.lru_cache(maxsize=4096)
def _sanitize(path):
    """_.foo_bar.baz -> TypeFooBarBaz (Go's cases.Title with NoLower: each word's first letter upper)."""
    out = []
    for part in path.split("."):
        if part == "_":
            out.append("Type")
            continue
        out += [_title(sub) for sub in part.split("_")]
    return "".join(out)


def _title(word):
    return re.sub(r"(^|[^0-9A-Za-z'])([a-z])", lambda m: m.group(1) + m.group(2).upper(), word)


def digest(sign_bytes):
    """keccak(0x1901 || domain separator || hashStruct(Tx)): what MetaMask's eth_signTypedData_v4 signs."""
    domain, types, message = typed_data(sign_bytes)
    try:
        type_hashes = _type_hashes(tuple((name, tuple(fields)) for name, fields in types.items()))
        return _keccak(b"\x19\x01" + _domain_separator(domain["chainId"])
                       + _hash_struct(types, type_hashes, "Tx", message))
    except (KeyError, TypeError, ValueError, OverflowError) as e:
        raise TypedDataError(f"could not get EIP-712 object bytes: {e}") from None


def _keccak(data):
    return keccak_256(data).digest()


@functools.lru_cache(maxsize=64)
def _domain_separator(chain_id):
    types = {"EIP712Domain": list(DOMAIN_TYPES)}
    return _hash_struct(types, {"EIP712Domain": _keccak(_encode_type(types, "EIP712Domain").encode())},
                        "EIP712Domain", {"name": "Cosmos Web3", "version": "1.0.0", "chainId": chain_id,
                                         "verifyingContract": "cosmos", "salt": "0"})


@functools.lru_cache(maxsize=1024)
def _type_hashes(type_set):
    """keccak of every type's encodeType in one set of types: the same few message shapes come back tx after tx,
    so each set is encoded once."""
    types = dict(type_set)
    return {name: _keccak(_encode_type(types, name).encode()) for name in types}


def _encode_type(types, primary):
    deps = sorted(_dependencies(types, primary, set()) - {primary})
    return "".join(f"{name}({','.join(f'{t} {n}' for n, t in types[name])})" for name in [primary] + deps)


def _dependencies(types, name, found):
    if name in found or name not in types:
        return found
    found.add(name)
    for _, kind in types[name]:
        _dependencies(types, kind[:-2] if kind.endswith("[]") else kind, found)
    return found


def _hash_struct(types, type_hashes, name, data):
    encoded = [type_hashes[name]]
    for field, kind in types[name]:
        encoded.append(_encode_value(types, type_hashes, kind, data[field]))
    return _keccak(b"".join(encoded))


def _encode_value(types, type_hashes, kind, value):
    if kind == "string":
        if not isinstance(value, str):
            raise TypeError(f"provided data '{value}' is not a string")
        return _keccak(value.encode())
    if kind.endswith("[]"):
        if not isinstance(value, list):
            raise TypeError(f"provided data '{value}' is not an array")
        return _keccak(b"".join(_encode_value(types, type_hashes, kind[:-2], v) for v in value))
    if kind in types:
        if not isinstance(value, dict):
            raise TypeError(f"provided data '{value}' is not an object")
        return _hash_struct(types, type_hashes, kind, value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise TypeError(f"provided data '{value}' is not a bool")
        return int(value).to_bytes(32, "big")
    if kind in ("int64", "uint256"):
        number = int(value)
        if number != value:
            raise ValueError(f"invalid integer value {value}")
        return (number % 2**256).to_bytes(32, "big")
    raise TypeError(f"unsupported EIP-712 type {kind}")
