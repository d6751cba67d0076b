"""The mempool's per-sender limits and nonce bookkeeping, with real signed txs."""

import pytest
from eth_account import Account

from chaind.chain import errors, txs
from chaind.config import MempoolSettings
from chaind.consensus.mempool import Mempool

KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
OTHER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"


def signed(nonce, key=KEY, tip=10**9, cap=10**11):
    raw = Account.sign_transaction({"type": 2, "chainId": 9000, "nonce": nonce, "to": "0x" + "22" * 20,
                                    "value": 1, "gas": 21000, "maxFeePerGas": cap,
                                    "maxPriorityFeePerGas": tip}, key).raw_transaction
    return txs.wrap_evm(bytes(raw), 9000, "achain")


def test_executable_txs_of_one_sender_are_limited_only_by_size():
    pool = Mempool(MempoolSettings(size=1000, max_queued_per_sender=4))
    for nonce in range(600):
        pool.add(signed(nonce), 0)
    assert len(pool) == 600
    assert pool.pending_nonce(signed(0).sender, 0) == 600
    chosen = pool.select(lambda sender: 0, limit=5000, gas_limit=10**9)
    assert [tx.nonce for tx in chosen] == list(range(600))


def test_txs_behind_a_gap_are_capped_until_the_gap_fills():
    pool = Mempool(MempoolSettings(max_queued_per_sender=3))
    for nonce in (2, 3, 4):
        pool.add(signed(nonce), 0)
    with pytest.raises(errors.TxError, match="3 txs queued behind a nonce gap"):
        pool.add(signed(5), 0)
    sender = signed(0).sender
    assert pool.pending_nonce(sender, 0) == 0
    assert pool.select(lambda s: 0, 100, 10**9) == []
    pool.add(signed(0), 0)
    pool.add(signed(1), 0)                 # fills the gap: 0..4 are executable now
    assert pool.pending_nonce(sender, 0) == 5
    for nonce in (5, 7, 8, 9):
        pool.add(signed(nonce), 0)
    with pytest.raises(errors.TxError, match="behind a nonce gap"):
        pool.add(signed(10), 0)
    assert [tx.nonce for tx in pool.select(lambda s: 0, 100, 10**9)] == [0, 1, 2, 3, 4, 5]


def test_committed_nonces_leave_and_late_checked_txs_are_refused():
    pool = Mempool(MempoolSettings())
    for nonce in range(10):
        pool.add(signed(nonce), 0)
    other = signed(0, OTHER_KEY)
    pool.add(other, 0)
    sender = signed(0).sender
    pool.remove_committed(lambda s: 7 if s == sender else 1)
    assert len(pool) == 3
    assert pool.get(evm_hash=other.evm_hash) is None
    assert [tx.nonce for tx in pool.select(lambda s: 7 if s == sender else 1, 100, 10**9)] == [7, 8, 9]
    assert pool.pending_nonce(sender, 7) == 10
    # Checked against the state before the block that used nonce 6.
    with pytest.raises(errors.TxError) as refused:
        pool.add(signed(6, tip=2 * 10**9), 6)
    assert refused.value.evm_message == "nonce too low: next nonce 7, tx nonce 6"
    # A newer state seen at admission moves the floor too.
    pool.add(signed(10), 9)
    assert [tx.nonce for tx in pool.select(lambda s: 9, 100, 10**9)] == [9, 10]


def test_replacement_keeps_the_executable_run():
    pool = Mempool(MempoolSettings(max_queued_per_sender=1))
    for nonce in range(3):
        pool.add(signed(nonce), 0)
    with pytest.raises(errors.TxError, match="replacement transaction underpriced"):
        pool.add(signed(1, tip=2 * 10**9, cap=10**11 + 1), 0)
    better = signed(1, tip=2 * 10**9, cap=2 * 10**11)
    assert pool.add(better, 0).nonce == 1
    pool.add(signed(5), 0)
    assert pool.pending_nonce(better.sender, 0) == 3
    assert [tx.hash for tx in pool.select(lambda s: 0, 100, 10**9)][1] == better.hash


def test_txs_above_a_lowered_block_gas_limit_leave():
    """After the consensus params lower max_gas, what no block could carry leaves (CometBFT's PostCheckMaxGas)."""
    pool = Mempool(MempoolSettings())
    small = signed(0)
    big = txs.wrap_evm(bytes(Account.sign_transaction({
        "type": 2, "chainId": 9000, "nonce": 0, "to": "0x" + "22" * 20, "value": 1, "gas": 600_000,
        "maxFeePerGas": 10**11, "maxPriorityFeePerGas": 10**9}, OTHER_KEY).raw_transaction), 9000, "achain")
    pool.add(small, 0)
    pool.add(big, 0)
    assert pool.drop_above(500_000) == [big]
    assert pool.get(evm_hash=big.evm_hash) is None and pool.get(evm_hash=small.evm_hash) is not None
