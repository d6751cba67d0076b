"""Native messages: how a module declares the messages it handles, and what every message shares.

A module lists MsgHandlers (Module.messages); the App gathers its modules' by type URL (App.handlers) and runs
each message of a native tx through its handler (stateless checks in check_tx, execution in a block).
"""

from collections.abc import Callable
from typing import Any

import attrs
from google.protobuf import any_pb2

from chaind.pb.cosmos.base.abci.v1beta1 import abci_pb2

# Gas charged per message on top of the tx's size and signature costs: a flat fee stands in for
# the SDK's per-read and per-write gas meter.
MSG_GAS = 20000


@attrs.frozen
class MsgHandler:
    """One message type: its proto class, who must sign it, its checks and its execution.

    signer(msg) gives the field the SDK marks `cosmos.msg.v1.signer` (a bech32 account or valoper
    address); validate(app, msg) runs the stateless checks (ValidateBasic) and raises TxError;
    execute(app, ctx, msg, signer) changes the block's state and returns (events, response proto);
    amino (chain/amino.py's Amino, with its name) is how SIGN_MODE_LEGACY_AMINO_JSON writes the message:
    without one, a tx carrying it can be signed in SIGN_MODE_DIRECT only.
    """

    type_url: str
    message_class: type
    signer: Callable[[Any], str]                            # (msg) -> the signer's address text
    validate: Callable[[Any, Any], None]                    # (app, msg)
    execute: Callable[[Any, Any, Any, bytes], tuple[list, Any]]     # (app, ctx, msg, signer) -> (events, response)
    gas: int = MSG_GAS
    amino: object = None

    @property
    def module(self) -> str:
        """The `module` attribute of the message event: the SDK's GetModuleNameFromTypeURL."""
        parts = self.type_url.split(".")
        return parts[1] if len(parts) >= 2 else ""

    @property
    def response_url(self) -> str:
        return self.type_url + "Response"


def tx_msg_data(responses: list[tuple[str, Any]]) -> bytes:
    """A tx's result data: TxMsgData holding each message's response (SDK v0.50)."""
    return abci_pb2.TxMsgData(msg_responses=[any_pb2.Any(type_url=url, value=message.SerializeToString())
                                             for url, message in responses]).SerializeToString()
