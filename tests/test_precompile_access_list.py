"""eth_createAccessList leaves out the modules' precompiles (App.precompiles) as it does py-evm's own: geth lists
no active precompile, which every tx has warm anyway."""

import pytest_twisted
from eth_utils import keccak

from contracts import FORWARDER_INIT
from evm_client import DEV0, rpc, send, w3
from helpers import in_thread

BANK_PRECOMPILE = (0x804).to_bytes(20, "big")
ECRECOVER = (0x1).to_bytes(20, "big")


def _word(raw):
    return raw.rjust(32, b"\x00")


@pytest_twisted.inlineCallbacks
def test_a_call_through_a_contract_lists_no_precompile(node):
    web3 = w3(node)
    deployed = yield in_thread(send, web3, {"data": "0x" + FORWARDER_INIT.hex(), "nonce": 0, "gas": 300000,
                                            "to": None})
    forwarder = deployed.contractAddress
    for target, inner in ((BANK_PRECOMPILE, keccak(b"totalSupply()")[:4]), (ECRECOVER, b"\x00" * 128)):
        data = _word(b"") + _word(target) + inner
        _, reply = yield rpc(node, "eth_createAccessList", {"from": DEV0, "to": forwarder, "data": "0x" + data.hex()})
        result = reply["result"]
        assert "error" not in result, result
        assert result["accessList"] == [], (target.hex(), result)
