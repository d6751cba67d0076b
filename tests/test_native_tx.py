"""Native txs: key types (eth_secp256k1 under both type URLs, Cosmos secp256k1), bank messages, simulation."""

import pytest

from chaind.chain import errors, txs
from chaind.chain.modules import auth
from chaind.crypto import keys
from chaind.pb.cosmos.bank.v1beta1 import bank_pb2, tx_pb2 as bank_tx
from chaind.pb.cosmos.base.abci.v1beta1 import abci_pb2
from chaind.pb.cosmos.base.v1beta1 import coin_pb2

from chain_driver import Chain


@pytest.fixture
def chain(tmp_path):
    chain = Chain(tmp_path, "chain.db")
    yield chain
    chain.close()


def coins(*pairs):
    return [coin_pb2.Coin(denom=d, amount=str(a)) for d, a in pairs]


def multi_send(chain, sender, outputs):
    total = {}
    for _, pairs in outputs:
        for denom, amount in pairs:
            total[denom] = total.get(denom, 0) + amount
    return bank_tx.MsgMultiSend(
        inputs=[bank_pb2.Input(address=chain.b32(sender), coins=coins(*sorted(total.items())))],
        outputs=[bank_pb2.Output(address=chain.b32(a), coins=coins(*pairs)) for a, pairs in outputs])


@pytest.mark.parametrize("url", [txs.ETH_PUBKEY, txs.COSMOS_EVM_PUBKEY])
def test_a_send_signed_under_either_pubkey_url_is_accepted(tmp_path, url):
    chain = Chain(tmp_path, "chain.db")
    try:
        def balance():
            return chain.app.bank.balance(chain.app.view(), chain.keys[3].address, chain.ibc)

        before = balance()
        raw = chain.native_send(2, chain.keys[3].address, 10**15, pubkey_url=url)
        assert chain.app.check_tx(raw).kind == "native"
        block = chain.block([raw])
        assert block.results[0].code == 0
        assert balance() == before + 10**15
    finally:
        chain.close()


def test_another_key_type_is_refused(tmp_path):
    chain = Chain(tmp_path, "chain.db")
    try:
        raw = chain.native_send(2, chain.keys[3].address, 1, pubkey_url="/cosmos.crypto.ed25519.PubKey")
        with pytest.raises(errors.TxError, match="unsupported public key type"):
            chain.app.check_tx(raw)
    finally:
        chain.close()


def test_multi_send_moves_coins_to_every_output(chain):
    app, base = chain.app, chain.genesis.base_denom
    a, b = b"\x51" * 20, b"\x52" * 20
    msg = multi_send(chain, chain.keys[2].address, [(a, [(chain.ibc, 7)]), (b, [(base, 10**18), (chain.ibc, 5)])])
    block = chain.block([chain.native(chain.keys[2], [(txs.MSG_MULTI_SEND, msg)])])
    result = block.results[0]
    view = app.view()
    assert app.bank.balance(view, a, chain.ibc) == 7
    assert app.bank.balance(view, b, chain.ibc) == 5
    assert app.bank.balance(view, b, base) == 10**18
    actions = [i for i, e in enumerate(result.events) if ("action", txs.MSG_MULTI_SEND, True) in e.attributes]
    kinds = [e.type for e in result.events[actions[0]:]]
    assert kinds.count("coin_spent") == 1 and kinds.count("coin_received") == 2 and kinds.count("transfer") == 2
    data = abci_pb2.TxMsgData.FromString(result.data)
    assert [r.type_url for r in data.msg_responses] == ["/cosmos.bank.v1beta1.MsgMultiSendResponse"]


@pytest.mark.parametrize("mangle, message", [
    (lambda m: m.inputs.append(m.inputs[0]), "multiple senders not allowed"),
    (lambda m: m.outputs[0].coins[0].__setattr__("amount", "8"), "sum inputs != sum outputs"),
    (lambda m: m.ClearField("outputs"), "no outputs to send transaction"),
])
def test_a_bad_multi_send_is_refused_at_check_tx(chain, mangle, message):
    msg = multi_send(chain, chain.keys[2].address, [(b"\x51" * 20, [(chain.ibc, 7)])])
    mangle(msg)
    with pytest.raises(errors.TxError, match=message) as raised:
        chain.app.check_tx(chain.native(chain.keys[2], [(txs.MSG_MULTI_SEND, msg)]))
    assert raised.value.codespace == "bank"


def test_a_message_naming_another_signer_is_refused(chain):
    msg = bank_tx.MsgSend(from_address=chain.b32(chain.keys[3].address), to_address=chain.b32(b"\x51" * 20),
                          amount=coins((chain.ibc, 1)))
    with pytest.raises(errors.TxError, match="is not the tx signer"):
        chain.app.check_tx(chain.native(chain.keys[2], [(txs.MSG_SEND, msg)]))


def test_a_cosmos_secp256k1_key_signs_for_its_own_address(chain):
    """cosmpy's kind of key: SHA-256 sign bytes, RIPEMD-160 address, shown with its own type URL."""
    app, base, key = chain.app, chain.genesis.base_denom, chain.keys[5]
    cosmos_address = key.address_as(keys.SECP256K1)
    assert cosmos_address != key.address
    fund = multi_send(chain, chain.keys[2].address, [(cosmos_address, [(base, 10**18), (chain.ibc, 10)])])
    chain.block([chain.native(chain.keys[2], [(txs.MSG_MULTI_SEND, fund)])])
    send = bank_tx.MsgSend(from_address=chain.b32(cosmos_address), to_address=chain.b32(b"\x53" * 20),
                           amount=coins((chain.ibc, 3)))
    raw = chain.native(key, [(txs.MSG_SEND, send)], pubkey_url=txs.SECP256K1_PUBKEY, address=cosmos_address)
    assert app.check_tx(raw).sender == cosmos_address
    assert chain.block([raw]).results[0].code == 0
    view = app.view()
    assert app.bank.balance(view, b"\x53" * 20, chain.ibc) == 3
    assert auth.key_type(view, cosmos_address) == keys.SECP256K1
    # The same key presented as eth_secp256k1 speaks for its keccak address, not this account.
    as_eth = chain.native(key, [(txs.MSG_SEND, send)], pubkey_url=txs.ETH_PUBKEY, address=cosmos_address)
    with pytest.raises(errors.TxError, match="unauthorized") as raised:
        app.check_tx(as_eth)
    assert raised.value.code == 4
    # A high-S twin of a valid signature is refused, as the SDK's secp256k1 does.
    raw = chain.native(key, [(txs.MSG_SEND, send)], pubkey_url=txs.SECP256K1_PUBKEY, address=cosmos_address)
    tx_raw = txs.tx_pb2.TxRaw.FromString(raw)
    r, s = tx_raw.signatures[0][:32], int.from_bytes(tx_raw.signatures[0][32:], "big")
    tx_raw.signatures[0] = r + (keys._N - s).to_bytes(32, "big")
    with pytest.raises(errors.TxError, match="signature verification failed"):
        app.check_tx(tx_raw.SerializeToString())


def test_simulate_runs_a_tx_without_writing_it(chain):
    app = chain.app
    raw = chain.native_send(2, chain.keys[3].address, 10**15)
    height, before = app.height, app.bank.balance(app.view(), chain.keys[3].address, chain.ibc)
    result = app.simulate(raw)
    assert result.code == 0 and 0 < result.gas_used <= result.gas_wanted
    assert [e.type for e in result.events].count("transfer") == 2       # the fee, then the send
    assert app.height == height
    assert app.bank.balance(app.view(), chain.keys[3].address, chain.ibc) == before
    # The same tx still goes through: simulation took no nonce.
    assert chain.block([raw]).results[0].gas_used == result.gas_used


def test_simulate_needs_no_fee_gas_limit_or_valid_signature(chain):
    """What @cosmjs and cosmpy send to learn the gas: no fee, gas limit 0, an empty signature."""
    msg = bank_tx.MsgSend(from_address=chain.b32(chain.keys[2].address), to_address=chain.b32(b"\x54" * 20),
                          amount=coins((chain.ibc, 9)))
    view = chain.app.view()
    number, _ = auth.account(view, chain.keys[2].address)
    raw = txs.build_native([(txs.MSG_SEND, msg)], chain.keys[2], chain.genesis.chain_id, number,
                           view.accounts.get_nonce(chain.keys[2].address), [], 0)
    tx_raw = txs.tx_pb2.TxRaw.FromString(raw)
    tx_raw.signatures[0] = b""
    result = chain.app.simulate(tx_raw.SerializeToString())
    assert result.code == 0 and result.gas_used > 20000, result.log
    with pytest.raises(errors.TxError):
        chain.app.check_tx(tx_raw.SerializeToString())
