"""Plain value transfers run without py-evm's message machinery (chain/modules/evm/transfer.py) give what py-evm's
own run gives: state roots, app hashes, receipts, gas, fees and events, block by block; refusals too."""

from eth_account import Account

from chain_driver import PROPOSER, RECIPIENTS, Chain, contract_address
from chaind.chain import txs
from chaind.chain.modules.evm import transfer
from chaind.chain.modules.staking.precompile import ADDRESS as STAKING_PRECOMPILE


def _blocks(chain):
    """Blocks of transfers of every kind beside txs that are no plain transfer, and txs py-evm refuses."""
    a = contract_address(chain.keys[1].address, 0)
    poor = Account.from_key(b"\x07" * 32)
    legacy = {"gasPrice": 10**10, "maxFeePerGas": None, "maxPriorityFeePerGas": None}

    def evm(who, nonce, **tx):
        tx = {"chainId": 9000, "gas": 21000, "maxFeePerGas": 10**10, "maxPriorityFeePerGas": 10**9, "nonce": nonce,
              **tx}
        tx = {k: v for k, v in tx.items() if v is not None}
        key = poor.key if who == "poor" else chain.keys[who].private_key
        # Decoded, not checked: the block is where a refusal shows.
        return txs.wrap_evm(bytes(Account.sign_transaction(tx, key).raw_transaction), 9000, chain.genesis.base_denom)

    yield lambda: [chain.evm(1, 0, data=__import__("contracts").INIT)]
    yield lambda: [evm(0, 0, to=RECIPIENTS[0], value=5),
                   evm(0, 1, to=b"\x51" * 20, value=0),                   # a new account left empty: not kept
                   evm(0, 2, to=RECIPIENTS[1], value=7, **legacy),
                   evm(0, 3, to=RECIPIENTS[2], value=9, type=1, gasPrice=10**10, accessList=[],
                       maxFeePerGas=None, maxPriorityFeePerGas=None),
                   evm(0, 4, to=RECIPIENTS[0], value=1, maxPriorityFeePerGas=0),      # no tip for the coinbase
                   evm(0, 5, to=RECIPIENTS[1], value=2, gas=50000),                   # unused gas refunded
                   evm(0, 6, to=chain.keys[0].address, value=3)]                      # to itself
    yield lambda: [evm(2, 0, to=a, value=4, gas=100000),                               # code runs: py-evm's road
                   evm(2, 1, to=STAKING_PRECOMPILE, value=0, gas=100000),              # a precompile: py-evm's road
                   evm(2, 9, to=RECIPIENTS[0], value=1),                               # refused: nonce
                   evm("poor", 0, to=RECIPIENTS[0], value=1),                          # refused: funds
                   evm(3, 0, to=RECIPIENTS[2], value=10**18)]


def _run(tmp_path, name):
    chain = Chain(tmp_path, name)
    out = []
    for make in _blocks(chain):
        height = chain.app.height + 1
        block, puts = chain.app.finalize_block(make(), chain.genesis.genesis_time_ns + height * 10**9, PROPOSER)
        chain.app.commit(block, puts)
        out.append((block.header.hash(), block.meta, block.results, sorted(puts.items())))
    out.append(chain.reads(chain.app.height))
    chain.close()
    return out


def test_transfers_match_py_evm(tmp_path, monkeypatch):
    ran = []
    real = transfer.apply
    monkeypatch.setattr(transfer, "apply", lambda state, evm: ran.append(evm) or real(state, evm))
    fast = _run(tmp_path, "fast")
    assert len(ran) == 10       # the 8 transfers and the 2 refused (py-evm's validation, then nothing)
    monkeypatch.setattr(transfer, "applies", lambda state, tx: False)
    reference = _run(tmp_path, "reference")
    for got, expected in zip(fast, reference, strict=True):
        assert got == expected
    codes = [r.code for r in fast[2][2]]
    assert codes[:2] == [0, 0] and codes[2] != 0 and codes[3] != 0 and codes[4] == 0
