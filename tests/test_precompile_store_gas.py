"""The store gas of staking's, distribution's and slashing's precompile transactions, pinned: each call is charged
the SDK's KV gas of every read and write its keepers make, so a keeper that reads its params once more (or less)
changes what EVM txs cost, their receipts and the app hash."""

import json

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
from eth_abi import encode
from eth_utils import keccak

import staking_msgs as m
from chain_driver import PROPOSER, Chain, ok
from chaind.home import Home

STAKING, DISTRIBUTION, SLASHING = ((n).to_bytes(20, "big") for n in (0x800, 0x801, 0x806))
WINDOW, JAIL_S = 4, 3


def make_chain(tmp_path):
    """A dev chain whose slashing window is 4 blocks, jailing for 3 s, its times whole seconds (the length of a
    stored timestamp is part of the gas of its read)."""
    home = Home(tmp_path / "home")
    home.init("test", dev=True)
    doc = json.loads(home.genesis_file.read_text())
    doc["genesis_time"] = "2026-01-01T00:00:00Z"      # whole seconds: each block's time too, and the jail's end
    doc["app_state"]["slashing"]["params"].update(
        signed_blocks_window=str(WINDOW), min_signed_per_window="0.5", downtime_jail_duration=f"{JAIL_S}s")
    home.genesis_file.write_text(json.dumps(doc))
    chain = Chain(tmp_path, "db")
    chain.clock = chain.genesis.genesis_time_ns
    return chain


def block(chain, raws):
    chain.clock += 10**9
    committed, puts = chain.app.finalize_block(raws, chain.clock, PROPOSER)
    chain.app.commit(committed, puts)
    return committed


def call(chain, who, nonce, address, signature, args):
    types = signature[signature.index("(") + 1:-1].split(",")
    data = keccak(signature.encode())[:4] + encode(types, args)
    return chain.evm(who, nonce, to="0x" + address.hex(), data=data, value=0, gas=500000)


def gas_of(chain, raw):
    [result] = ok(block(chain, [raw])).results
    return result.gas_used


@pytest.mark.slow
def test_precompile_transactions_cost_what_they_did(tmp_path):
    chain = make_chain(tmp_path)
    try:
        prefix = chain.genesis.bech32_prefix
        genesis_valoper = m.valoper(prefix, chain.genesis.validators[0].operator)
        second = chain.keys[1].address
        public = ed25519.Ed25519PrivateKey.from_private_bytes(b"\x07" * 32).public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        block(chain, [])
        ok(block(chain, [chain.native(chain.keys[1], [m.create(prefix, second, public, 100 * m.CHAIN)])]))
        me = "0x" + chain.keys[4].address.hex()
        figures = [
            gas_of(chain, call(chain, 4, 0, STAKING, "delegate(address,string,uint256)",
                               [me, genesis_valoper, 3 * m.CHAIN])),
            gas_of(chain, call(chain, 4, 1, STAKING, "undelegate(address,string,uint256)",
                               [me, genesis_valoper, m.CHAIN])),
            gas_of(chain, call(chain, 4, 2, STAKING, "redelegate(address,string,string,uint256)",
                               [me, genesis_valoper, m.valoper(prefix, second), m.CHAIN])),
            gas_of(chain, call(chain, 4, 3, DISTRIBUTION, "withdrawDelegatorRewards(address,string)",
                               [me, genesis_valoper])),
            gas_of(chain, call(chain, 4, 4, DISTRIBUTION, "setWithdrawAddress(address,string)",
                               [me, chain.b32(chain.keys[5].address)])),
        ]
        # The second validator never signs: jailed once its window is out, unjailed once its jail time is.
        for _ in range(WINDOW + 4 + JAIL_S):
            block(chain, [])
        assert chain.app.keepers["staking"].validator(chain.app.view(), second).jailed
        figures.append(gas_of(chain, call(chain, 1, 1, SLASHING, "unjail(address)", ["0x" + second.hex()])))
        assert not chain.app.keepers["staking"].validator(chain.app.view(), second).jailed
        # As main measured them before the keepers were long-lived (chaind's issue 29).
        assert figures == [109467, 147990, 242521, 79881, 34531, 55982], figures
    finally:
        chain.close()
