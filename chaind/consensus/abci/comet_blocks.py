"""CometBFT's own record of a block in socket mode: its part-set header and its last commit's signatures, which
ABCI never hands the app (FinalizeBlock names the block's hash and each vote's flag only), read from its RPC."""

import base64
import binascii
import json
import re
import urllib.error
import urllib.request

import attrs

from chaind import errors
from chaind.chain.block import BlockId
from chaind.gocompat import parse_rfc3339
from chaind.pb.tendermint.types import types_pb2

_FRACTION = re.compile(r"\.(\d{1,9})")


@attrs.frozen
class CometBlock:
    block_id: BlockId           # the block's hash and part-set header
    last_commit: types_pb2.Commit   # the parent's commit this block carries, signatures and all


class CometBlocks:
    """Reads CometBFT's `/block` at `address` (host:port); blocking, so called off the reactor (gRPC's pool,
    the REST face's query pool), waiting `timeout` seconds at most."""

    def __init__(self, address, timeout):
        self.url = f"http://{address}/block"
        self.timeout = timeout

    def block(self, height):
        """CometBlock of `height`; ChainError unavailable when CometBFT cannot be read, failed when it
        answers with an error or with something that is not a block."""
        try:
            with urllib.request.urlopen(f"{self.url}?height={int(height)}", timeout=self.timeout) as response:
                reply = json.loads(response.read())
        except urllib.error.HTTPError as e:     # CometBFT answers an RPC error with a 500 and its JSON
            try:
                reply = json.loads(e.read())
            except ValueError:
                raise errors.unavailable(f"CometBFT's RPC at {self.url} answered {e.code} {e.reason}") from None
        except (OSError, ValueError) as e:
            raise errors.unavailable(f"CometBFT's RPC at {self.url} did not answer: {e}") from None
        if "error" in reply:
            error = reply["error"]
            raise errors.failed(f"CometBFT's /block?height={height}: {error.get('data') or error.get('message')}")
        try:
            return _parse(reply["result"])
        except (KeyError, TypeError, ValueError, binascii.Error) as e:
            raise errors.failed(f"CometBFT's /block?height={height} does not decode as a block: "
                                f"{type(e).__name__} {e}") from None


def _parse(result):
    block = result["block"]
    commit = block["last_commit"]
    last_block_id = _block_id(commit["block_id"])
    return CometBlock(
        block_id=_block_id(result["block_id"]),
        last_commit=types_pb2.Commit(height=int(commit["height"]), round=int(commit["round"]),
                                     block_id=last_block_id.proto(),
                                     signatures=[_commit_sig(s) for s in commit["signatures"]]))


def _block_id(bid):
    parts = bid["parts"]
    return BlockId(bytes.fromhex(bid["hash"]), int(parts["total"]), bytes.fromhex(parts["hash"]))


def _commit_sig(sig):
    seconds, nanos = _time(sig["timestamp"])
    return types_pb2.CommitSig(block_id_flag=int(sig["block_id_flag"]),
                               validator_address=bytes.fromhex(sig["validator_address"] or ""),
                               timestamp={"seconds": seconds, "nanos": nanos},
                               signature=base64.b64decode(sig["signature"] or "", validate=True))


def _time(text):
    """(seconds since 1970, nanoseconds) of an RFC 3339 time as CometBFT writes it, to the nanosecond."""
    moment = parse_rfc3339(_FRACTION.sub("", text, count=1))
    match = _FRACTION.search(text)
    return int(moment.timestamp()), int(match.group(1).ljust(9, "0")) if match else 0
