"""The net_* and web3_* method tables."""

from eth_utils import keccak

import chaind
from chaind.api import params as p


def net_methods(evm_chain_id):
    return {
        "net_version": lambda params: str(evm_chain_id),
        "net_listening": lambda params: True,
        "net_peerCount": lambda params: 0,
    }


def web3_methods():
    def sha3(params):
        p.at_most(params, 1)
        return "0x" + keccak(p.data(p.arg(params, 0), 0)).hex()

    return {
        "web3_clientVersion": lambda params: f"chaind/v{chaind.__version__}/python",
        "web3_sha3": sha3,
    }
