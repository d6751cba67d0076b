"""EIP-712 over the amino sign doc, as Evmos v20 verifies an eth_secp256k1 key's LEGACY_AMINO_JSON signature
that MetaMask made (ethereum/eip712: WrapTxToTypedData, its types built from the doc's own JSON).

The doc's messages become fields msg0, msg1...; each message's type is named from its amino name
(cosmos-sdk/MsgSend: TypeMsgSend0) and its nested objects from their path (value.amount: TypeValueAmount0).
"""

import functools
import re

import orjson
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
        payload = orjson.loads(sign_bytes)
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
    domain = {"name": "Cosmos Web3", "version": "1.0.0", "chainId": chain_number(str(payload.get("chain_id", ""))),
              "verifyingContract": "cosmos", "salt": "0"}
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
            fields.append((name, sanitize(_add_types(types, root, f"{prefix}.{name}", value)) + suffix))
    type_def = root if prefix == "_" else sanitize(prefix)
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
def sanitize(path):
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
    return hash_typed_data(domain["chainId"], types, message)


def chain_number(chain_id):
    """The EIP-155 number of a chain id such as chain_9000-1 (Evmos' ParseChainID), or TypedDataError."""
    match = _CHAIN_ID.match(chain_id)
    if match is None:
        raise TypedDataError("invalid chain ID passed as argument")
    return int(match.group(1))


def hash_typed_data(chain_id, types, message):
    """go-ethereum's TypedDataAndHash of a "Tx" message under the Cosmos Web3 domain: the types are checked as
    go-ethereum checks them (known primitives, defined references), and a struct's data may hold no field its
    type lacks."""
    try:
        type_hashes = _type_hashes(tuple((name, tuple(fields)) for name, fields in types.items()))
        return _keccak(b"\x19\x01" + _domain_separator(chain_id) + _hash_struct(types, type_hashes, "Tx", message))
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


_INTEGER = re.compile(r"u?int(8|16|32|64|96|128|256)?\Z")
_PRIMITIVE = re.compile(r"(address|bool|string|bytes([1-9]|[12][0-9]|3[0-2])?|u?int(8|16|32|64|96|128|256)?)(\[\])?\Z")
_REFERENCE = re.compile(r"[A-Z]\w*(\[\])?\Z", re.ASCII)


@functools.lru_cache(maxsize=1024)
def _type_hashes(type_set):
    """keccak of every type's encodeType in one set of types, once the set is checked (go-ethereum's
    Types.validate): the same few message shapes come back tx after tx, so each set is checked and encoded once."""
    types = dict(type_set)
    for key, fields in type_set:
        if not key:
            raise ValueError("empty type key")
        for index, (name, kind) in enumerate(fields):
            if not kind or not name:
                raise ValueError(f"type {key!r}:{index}: empty {'Type' if not kind else 'Name'}")
            if kind == key:
                raise ValueError(f"type {kind!r} cannot reference itself")
            if kind[0].isupper():
                if kind.removesuffix("[]") not in types:
                    raise ValueError(f"reference type {kind!r} is undefined")
                if not _REFERENCE.match(kind):
                    raise ValueError(f"unknown reference type {kind!r}")
            elif not _PRIMITIVE.match(kind):
                raise ValueError(f"unknown type {kind!r}")
    return {name: _keccak(_encode_type(types, name).encode()) for name in types}


def _encode_type(types, primary):
    deps = sorted(_dependencies(types, primary, set()) - {primary})
    return "".join(f"{name}({','.join(f'{t} {n}' for n, t in types[name])})" for name in [primary] + deps)


def _dependencies(types, name, found):
    if name in found or name not in types:
        return found
    found.add(name)
    for _, kind in types[name]:
        _dependencies(types, kind.removesuffix("[]"), found)
    return found


def _hash_struct(types, type_hashes, name, data):
    fields = types[name]
    if len(data) > len(fields):
        raise ValueError(f"there is extra data provided in the message ({len(fields)} < {len(data)})")
    encoded = [type_hashes[name]]
    for field, kind in fields:
        value = data.get(field)
        # Most fields are strings: hashed here, without a call per field.
        if kind == "string" and type(value) is str:
            encoded.append(keccak_256(value.encode()).digest())
        else:
            encoded.append(_encode_value(types, type_hashes, kind, value))
    return keccak_256(b"".join(encoded)).digest()


def _encode_value(types, type_hashes, kind, value):
    if kind == "string":
        if not isinstance(value, str):
            raise TypeError(f"provided data '{value}' doesn't match type 'string'")
        return _keccak(value.encode())
    if kind.endswith("[]"):
        if not isinstance(value, list):
            raise TypeError(f"provided data '{value}' doesn't match type '{kind}'")
        return _keccak(b"".join(_encode_value(types, type_hashes, kind[:-2], v) for v in value))
    if kind in types:
        if not isinstance(value, dict):
            raise TypeError(f"provided data '{value}' doesn't match type '{kind}'")
        return _hash_struct(types, type_hashes, kind, value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise TypeError(f"provided data '{value}' doesn't match type 'bool'")
        return int(value).to_bytes(32, "big")
    match = _INTEGER.match(kind)
    if match:
        return (_integer(kind, int(match.group(1) or 256), value) % 2**256).to_bytes(32, "big")
    raise TypeError(f"unrecognized type '{kind}'")


_DECIMAL = re.compile(r"[+-]?[0-9]+\Z")
_HEX = re.compile(r"[+-]?[0-9a-fA-F]+\Z")


def _integer(kind, bits, value):
    """go-ethereum's parseInteger: a decimal or 0x-hex string, or a JSON number (a float64 in Go) that is an
    exact int64; within the type's size and sign."""
    if isinstance(value, str):
        if value[:2] in ("0x", "0X") and _HEX.match(value[2:]):
            number = int(value[2:], 16)
        elif _DECIMAL.match(value) or not value:
            number = int(value or "0")
        else:
            raise ValueError(f"invalid hex or decimal integer {value!r}")
        if abs(number).bit_length() > 256:
            raise ValueError(f"invalid hex or decimal integer {value!r}")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        as_float = float(value)
        if not (as_float.is_integer() and -2**63 <= as_float < 2**63):
            raise ValueError(f"invalid float value {value} for type {kind}")
        number = int(as_float)
    else:
        raise ValueError(f"invalid integer value {value} for type {kind}")
    if abs(number).bit_length() > bits:
        raise ValueError(f"integer larger than '{kind}'")
    if number < 0 and kind.startswith("u"):
        raise ValueError(f"invalid negative value for unsigned type {kind}")
    return number
