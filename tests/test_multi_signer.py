"""Native txs with several signers (each message's signers in order, a fee payer apart), in SIGN_MODE_DIRECT and
amino JSON; refusals that change nothing; the mempool's view of every signer's sequence."""

import pytest

from chaind.chain import errors, txs
from chaind.config import MempoolSettings
from chaind.consensus.mempool import Mempool
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.tx.v1beta1 import tx_pb2
from native_txs import build_signed

GAS = 300000


def send(chain, who, to, amount):
    return txs.MSG_SEND, bank_tx.MsgSend(from_address=chain.b32(chain.keys[who].address), to_address=chain.b32(to),
                                         amount=[coin_pb2.Coin(denom=chain.ibc, amount=str(amount))])


def signed(chain, messages, who, offsets=None, amino=False, payer="", granter=""):
    """A tx of `messages` signed by dev keys `who`, in that order, each at its state nonce (+ offsets)."""
    view = chain.app.view()
    offsets = offsets or [0] * len(who)
    signers = [(chain.keys[w], chain.app.keepers["auth"].account(view, chain.keys[w].address)[0],
                view.accounts.get_nonce(chain.keys[w].address) + offset, txs.ETH_PUBKEY)
               for w, offset in zip(who, offsets, strict=True)]
    return build_signed(messages, signers, chain.genesis.chain_id,
                        [(chain.genesis.base_denom, chain.app.next_base_fee() * GAS)], GAS,
                        amino_encoder=chain.app.amino if amino else None, payer=payer, granter=granter)


def state(chain, *who):
    """(nonce, base balance, ibc balance) of each dev key: what a refused tx must leave as it was."""
    view = chain.app.view()
    return [(view.accounts.get_nonce(chain.keys[w].address),
             chain.app.keepers["bank"].balance(view, chain.keys[w].address, chain.genesis.base_denom),
             chain.app.keepers["bank"].balance(view, chain.keys[w].address, chain.ibc)) for w in who]


def attributes(result, kind, key):
    return [v for e in result.events if e.type == kind for k, v, _ in e.attributes if k == key]


@pytest.mark.parametrize("amino", [False, True], ids=["direct", "amino-json"])
def test_two_messages_of_two_signers_each_sign_with_its_own_sequence(chain, amino):
    to = b"\x71" * 20
    chain.block([chain.native_send(3, b"\x70" * 20, 1)])       # key 3's sequence moves ahead of key 2's
    before = state(chain, 2, 3)
    raw = signed(chain, [send(chain, 2, to, 5), send(chain, 3, to, 7)], [2, 3], amino=amino)
    tx = chain.app.check_tx(raw)
    assert [s.address for s in tx.signers] == [chain.keys[2].address, chain.keys[3].address]
    result = chain.block([raw]).results[0]
    after = state(chain, 2, 3)
    assert [a[0] - b[0] for a, b in zip(after, before, strict=True)] == [1, 1]
    assert chain.app.keepers["bank"].balance(chain.app.view(), to, chain.ibc) == 12
    # The first signer pays the fee; each message's event names its own signer.
    assert after[0][1] < before[0][1] and after[1][1] == before[1][1]
    assert attributes(result, "tx", "fee_payer") == [chain.b32(chain.keys[2].address)]
    assert attributes(result, "tx", "acc_seq") == [f"{chain.b32(chain.keys[2].address)}/{before[0][0]}",
                                                   f"{chain.b32(chain.keys[3].address)}/{before[1][0]}"]
    assert len(attributes(result, "tx", "signature")) == 2
    senders = [{k: v for k, v, _ in e.attributes}["sender"] for e in result.events
               if e.type == "message" and any(k == "action" for k, _, _ in e.attributes)]
    assert senders == [chain.b32(chain.keys[2].address), chain.b32(chain.keys[3].address)]


def test_a_message_with_a_repeated_signer_needs_its_signature_once(chain):
    raw = signed(chain, [send(chain, 2, b"\x72" * 20, 1), send(chain, 3, b"\x72" * 20, 1),
                         send(chain, 2, b"\x72" * 20, 1)], [2, 3])
    assert chain.block([raw]).results[0].code == 0


@pytest.mark.parametrize("amino", [False, True], ids=["direct", "amino-json"])
def test_a_fee_payer_other_than_the_signer_signs_last_and_pays(chain, amino):
    payer = chain.b32(chain.keys[4].address)
    before = state(chain, 2, 4)
    raw = signed(chain, [send(chain, 2, b"\x73" * 20, 1)], [2, 4], amino=amino, payer=payer)
    result = chain.block([raw]).results[0]
    after = state(chain, 2, 4)
    assert after[0][1] == before[0][1] and after[1][1] < before[1][1]
    assert [a[0] - b[0] for a, b in zip(after, before, strict=True)] == [1, 1]
    assert attributes(result, "tx", "fee_payer") == [payer]


def _refused(chain, raw, code, message, codespace="sdk"):
    before = state(chain, 2, 3, 4)
    with pytest.raises(errors.TxError) as refused:
        chain.app.check_tx(raw)
    assert (refused.value.codespace, refused.value.code) == (codespace, code), refused.value.log
    assert message in refused.value.log
    # A block that carries it anyway fails it and changes nothing.
    block = chain.app.finalize_block([raw], chain.genesis.genesis_time_ns + 10**12, b"\x01" * 20)[0]
    assert block.results[0].code == code
    assert state(chain, 2, 3, 4) == before


def test_a_missing_signature_is_refused(chain):
    messages = [send(chain, 2, b"\x74" * 20, 1), send(chain, 3, b"\x74" * 20, 1)]
    _refused(chain, signed(chain, messages, [2]), 4, "wrong number of signers; expected 2, got 1: unauthorized")
    _refused(chain, signed(chain, messages[:1], [2, 3]), 4, "wrong number of signers; expected 1, got 2")
    # A payer named in the fee is a signer too.
    _refused(chain, signed(chain, messages[:1], [2], payer=chain.b32(chain.keys[4].address)), 4,
             "wrong number of signers; expected 2, got 1")


def test_signers_out_of_order_are_refused(chain):
    messages = [send(chain, 2, b"\x75" * 20, 1), send(chain, 3, b"\x75" * 20, 1)]
    _refused(chain, signed(chain, messages, [3, 2]), 8,
             f"pubKey does not match signer address {chain.b32(chain.keys[2].address)} with signer index: 0")


def test_a_stale_or_future_sequence_of_the_second_signer(chain):
    messages = [send(chain, 2, b"\x76" * 20, 1), send(chain, 3, b"\x76" * 20, 1)]
    chain.block([chain.native_send(3, b"\x70" * 20, 1)])
    _refused(chain, signed(chain, messages, [2, 3], offsets=[0, -1]), 32, "account sequence mismatch")
    # Ahead of the state: check_tx leaves it to the mempool, the block refuses it.
    raw = signed(chain, messages, [2, 3], offsets=[0, 1])
    chain.app.check_tx(raw)
    before = state(chain, 2, 3)
    block = chain.app.finalize_block([raw], chain.genesis.genesis_time_ns + 10**12, b"\x01" * 20)[0]
    assert block.results[0].code == 32
    assert state(chain, 2, 3) == before


def test_a_bad_signature_of_either_signer_is_refused(chain):
    messages = [send(chain, 2, b"\x77" * 20, 1), send(chain, 3, b"\x77" * 20, 1)]
    for index in (0, 1):
        tx_raw = tx_pb2.TxRaw.FromString(signed(chain, messages, [2, 3]))
        tx_raw.signatures[index] = tx_raw.signatures[1 - index]
        _refused(chain, tx_raw.SerializeToString(), 4, "signature verification failed")


def test_simulate_charges_every_signer(chain):
    messages = [send(chain, 2, b"\x78" * 20, 1), send(chain, 3, b"\x78" * 20, 1)]
    one = chain.app.simulate(signed(chain, messages[:1], [2]))
    two = chain.app.simulate(signed(chain, messages, [2, 3]))
    assert one.code == two.code == 0
    assert two.gas_used > one.gas_used


def test_the_mempool_holds_each_signers_sequence(chain):
    """A tx co-signed by key 3 at its next-but-one sequence waits for key 3's own tx; a second tx using the
    same sequence of key 3 is refused; the block takes both in order."""
    pool = Mempool(MempoolSettings())
    own = chain.app.check_tx(chain.native_send(3, b"\x79" * 20, 1))
    both = chain.app.check_tx(signed(chain, [send(chain, 2, b"\x79" * 20, 1), send(chain, 3, b"\x79" * 20, 1)],
                                     [2, 3], offsets=[0, 1]))
    pool.add(both, chain.app.head_nonce(both.sender))
    assert pool.select(chain.app.head_nonce, 10, 10**9) == []
    pool.add(own, chain.app.head_nonce(own.sender))
    clash = chain.app.check_tx(signed(chain, [send(chain, 4, b"\x79" * 20, 1), send(chain, 3, b"\x79" * 20, 2)],
                                      [4, 3], offsets=[0, 1]))
    with pytest.raises(errors.TxError, match="is used by pending tx"):
        pool.add(clash, chain.app.head_nonce(clash.sender))
    chosen = pool.select(chain.app.head_nonce, 10, 10**9)
    assert chosen == [own, both]
    chain.block(chosen)
    pool.remove_committed(chain.app.head_nonce)
    assert len(pool) == 0
