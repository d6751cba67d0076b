"""What only CometBFT knows in socket mode, read from its RPC: a block's part-set header and its last commit's
signatures (FinalizeBlock names the block's hash and each vote's flag only), its node info and whether it syncs."""

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
from chaind.pb.tendermint.p2p import types_pb2 as p2p_pb2
from chaind.pb.tendermint.types import types_pb2

_FRACTION = re.compile(r"\.(\d{1,9})")


@attrs.frozen
class CometBlock:
    block_id: BlockId           # the block's hash and part-set header
    last_commit: types_pb2.Commit   # the parent's commit this block carries, signatures and all


@attrs.frozen
class CometStatus:
    node_info: p2p_pb2.DefaultNodeInfo
    catching_up: bool


class CometRecords:
    """Reads CometBFT's RPC at `address` (host:port); blocking, so called off the reactor (gRPC's pool, the
    REST face's query pool), waiting `timeout` seconds at most."""

    def __init__(self, address, timeout):
        self.url = f"http://{address}"
        self.timeout = timeout

    def block(self, height):
        """CometBlock of `height`; ChainError unavailable when CometBFT cannot be read, failed when it
        answers with an error or with something that is not a block."""
        return self._read(f"/block?height={int(height)}", "a block", _parse)

    def status(self):
        """CometStatus of its `/status`, with the errors block() raises."""
        return self._read("/status", "a status", _status)

    def _read(self, route, what, parse):
        try:
            with urllib.request.urlopen(self.url + route, timeout=self.timeout) as response:
                reply = json.loads(response.read())
        except urllib.error.HTTPError as e:     # CometBFT answers an RPC error with a 500 and its JSON
            try:
                reply = json.loads(e.read())
            except ValueError:
                raise errors.unavailable(f"CometBFT's RPC at {self.url}{route} answered {e.code} {e.reason}") \
                    from None
        except (OSError, ValueError) as e:
            raise errors.unavailable(f"CometBFT's RPC at {self.url}{route} did not answer: {e}") from None
        if "error" in reply:
            error = reply["error"]
            raise errors.failed(f"CometBFT's {route}: {error.get('data') or error.get('message')}")
        try:
            return parse(reply["result"])
        except (KeyError, TypeError, ValueError, AttributeError, binascii.Error) as e:
            raise errors.failed(f"CometBFT's {route} does not decode as {what}: {type(e).__name__} {e}") from None


def _status(result):
    info, sync = result["node_info"], result["sync_info"]
    if not isinstance(sync["catching_up"], bool):
        raise TypeError(f"catching_up is {sync['catching_up']!r}")
    versions, other = info["protocol_version"], info["other"]
    return CometStatus(p2p_pb2.DefaultNodeInfo(
        protocol_version=p2p_pb2.ProtocolVersion(p2p=int(versions["p2p"]), block=int(versions["block"]),
                                                 app=int(versions["app"])),
        default_node_id=info["id"], listen_addr=info["listen_addr"], network=info["network"],
        version=info["version"], channels=bytes.fromhex(info["channels"]), moniker=info["moniker"],
        other=p2p_pb2.DefaultNodeInfoOther(tx_index=other["tx_index"], rpc_address=other["rpc_address"])),
        sync["catching_up"])


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
