"""A block's sealing (state roots, app hash, IAVL nodes, account mirrors) through its fast paths writes the same
bytes as the plain computation: random blocks of EVM transfers, native sends, new and vesting accounts, run
twice on real LevelDB, once with the fast paths turned off, and every stored key and value compared."""

import random

import pytest

from chain_driver import Chain
from chaind.chain import seal
from chaind.chain.modules.auth import FEE_COLLECTOR, AuthKeeper, vesting
from chaind.chain.modules.auth import store_layout as auth_layout
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.vesting.v1beta1 import tx_pb2 as vesting_tx
from chaind.pb.cosmos.vesting.v1beta1 import vesting_pb2


def _plain(monkeypatch):
    """The computation the fast paths stand in for: every account's Any made anew, its sequence read from the
    persisted state."""
    monkeypatch.setattr(seal, "_ACCOUNT_ANYS_KEPT", 0)
    account_any = AuthKeeper.account_any
    monkeypatch.setattr(AuthKeeper, "account_any", lambda keeper, state, address, known_sequence=None:
                        account_any(keeper, state, address))


def _run(tmp_path, name, seed, blocks):
    chain = Chain(tmp_path, name)
    rng = random.Random(seed)
    fresh = [rng.randbytes(20) for _ in range(6)]
    nonces = {0: 0, 1: 0}
    sealed = []
    for height in range(blocks):
        raws = []
        for _ in range(rng.choice([0, 1, 1, 2, 4])):
            roll = rng.random()
            to = rng.choice(fresh + [chain.keys[k].address for k in range(2, 5)] + [FEE_COLLECTOR])
            if roll < 0.6:
                who = rng.choice([0, 1])
                raws.append(chain.evm(who, nonces[who], to=to, value=rng.choice([0, 1, 10**15])))
                nonces[who] += 1
            elif roll < 0.85 and to != FEE_COLLECTOR:
                raws.append(chain.native_send(2, to, rng.randrange(1, 10**6)))
                break       # one native tx of a signer per block (its sequence is read from the head)
            elif height % 5 == 3:
                new = rng.randbytes(20)
                fresh.append(new)
                prefix = chain.genesis.bech32_prefix
                msg = vesting_tx.MsgCreateVestingAccount(
                    from_address=to_bech32(prefix, chain.keys[3].address), to_address=to_bech32(prefix, new),
                    amount=[coin_pb2.Coin(denom=chain.genesis.base_denom, amount=str(rng.randrange(1, 10**9)))],
                    end_time=chain.genesis.genesis_time_ns // 10**9 + 10**6, delayed=rng.random() < 0.5)
                raws.append(chain.native(chain.keys[3], [("/cosmos.vesting.v1beta1.MsgCreateVestingAccount", msg)]))
                break
        block = chain.block(raws)
        sealed.append((block.meta.evm_state_root, block.meta.app_hash))
        # The head's commit info as the block made it is the one it wrote.
        assert chain.app._head_info == chain.app.stores.commit_info(chain.app.height)
    stored = list(chain.db.iterate(b""))
    chain.close()
    return sealed, stored


@pytest.mark.parametrize("seed", range(3))
def test_sealing_writes_the_same_bytes_as_the_plain_computation(tmp_path, monkeypatch, seed):
    fast = _run(tmp_path, "fast", seed, 14)
    with monkeypatch.context() as patch:
        _plain(patch)
        plain = _run(tmp_path, "plain", seed, 14)
    assert fast[0] == plain[0]
    assert len(fast[1]) == len(plain[1])
    assert fast[1] == plain[1]


def test_the_account_mirror_follows_a_record_changed_without_its_sequence(tmp_path):
    """An account's record may change while its sequence does not (a vesting account's delegations tracked when
    an unbonding completes): its Any is made again, as account_any makes it."""
    chain = Chain(tmp_path, "c")
    chain.block([chain.native_send(2, chain.keys[4].address, 5)])
    app = chain.app
    header, meta = app.head
    ctx = app._context(header.height + 1, header.time_ns + 10**9, meta.hash, meta.base_fee, meta.evm_state_root)
    address = chain.keys[2].address
    nonces = {address: ctx.accounts.get_nonce(address)}

    def plain():
        found = app.keepers["auth"].account_any(ctx, address)
        return [(auth_layout.STORE, auth_layout.account(address), found.SerializeToString())]

    assert app.sealer.account_mirror(ctx, nonces, None) == plain()
    # Over the head's stores, which hold that Any already, nothing is set again.
    assert app.sealer.account_mirror(ctx, nonces, app.store_version()) == []
    account = vesting_pb2.DelayedVestingAccount(base_vesting_account=vesting_pb2.BaseVestingAccount(end_time=10**10))
    app.keepers["auth"].set_vesting_account(ctx, address, vesting.DELAYED, account)
    changed = app.sealer.account_mirror(ctx, nonces, app.store_version())
    assert changed == plain()
    assert vesting.DELAYED.encode() in changed[0][2]
    chain.close()
