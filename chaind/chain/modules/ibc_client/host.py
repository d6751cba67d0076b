"""ICS-24 host paths in the `ibc` store, as ibc-go v8 keeps them (24-host), and the native keys that hold them:
every IBC module writes compose(module, *path segments, b"") and the store layout joins the segments with "/".

The empty last part ends every key, so that no key is a prefix of another ("consensusStates/1-5" and its
"/processedTime"), which the versioned store needs; a prefix of segments still scans a subtree (one client's keys).
"""

import re

from chaind.chain.errors import TxError
from chaind.store.keys import compose, decompose

STORE = "ibc"
HOST = "host"               # 24-host's codespace
INVALID_ID = 2              # host.ErrInvalidID "invalid identifier"
_END = b""
_VALID_ID = re.compile(r"^[a-zA-Z0-9._+\-#\[\]<>]+$")
_REVISION_FORMAT = re.compile(r"^.*[^\n-]-{1}[1-9][0-9]*$")


def key(module, *segments):
    """The native key of the ICS-24 path "/".join(segments), written by `module`."""
    return compose(module, *segments, _END)


def scan_prefix(module, *segments):
    """The native prefix of every path under segments (the paths whose first segments they are)."""
    return compose(module, *segments)


def path_of(native_rest):
    """The ICS-24 path (bytes) of a native key's rest after its module part, or None for a key not written by key()."""
    parts = decompose(native_rest)
    if not parts or parts[-1] != _END:
        return None
    return b"/".join(parts[:-1])


def entries(rest, value):
    """The `ibc` store's layout: a native key's rest -> its ICS-24 path, the value as it is."""
    path = path_of(rest)
    return None if path is None else [(path, value)]


def layout(bech32_prefix):
    return entries


# Identifiers (24-host/validate.go).

def invalid_id(detail):
    return TxError(HOST, INVALID_ID, f"{detail}: invalid identifier")


def check_identifier(identifier, low, high):
    if not identifier.strip():
        raise invalid_id("identifier cannot be blank")
    if "/" in identifier:
        raise invalid_id(f"identifier {identifier} cannot contain separator '/'")
    if not low <= len(identifier) <= high:
        raise invalid_id(f"identifier {identifier} has invalid length: {len(identifier)}, must be between "
                         f"{low}-{high} characters")
    if not _VALID_ID.match(identifier):
        raise invalid_id(f"identifier {identifier} must contain only alphanumeric or the following characters: "
                         "'.', '_', '+', '-', '#', '[', ']', '<', '>'")


def check_client_id(identifier):
    check_identifier(identifier, 9, 64)


# Heights (02-client/types/height.go): (revision number, revision height) tuples.

def height_text(height):
    return f"{height[0]}-{height[1]}"


def height_of(proto):
    return proto.revision_number, proto.revision_height


def parse_height(text):
    """ParseHeight of "{revision}-{height}"; ValueError otherwise."""
    parts = text.split("-")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise ValueError(f"expected height string format: {{revision}}-{{height}}. Got: {text}")
    return int(parts[0]), int(parts[1])


def revision_of(chain_id):
    """ParseChainID: the revision number a chain id ends in ("-N"), 0 for one not in revision format."""
    if not _REVISION_FORMAT.match(chain_id):
        return 0
    return int(chain_id.rsplit("-", 1)[1])


def self_height(chain_id, block_height):
    """GetSelfHeight: this chain's height as an IBC height."""
    return revision_of(chain_id), block_height
