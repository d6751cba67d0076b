"""Native txs: key types (eth_secp256k1 under both type URLs, Cosmos secp256k1, multisig), bank messages,
simulation."""

import pytest

from chain_driver import Chain
from chaind.chain import errors, txs
from chaind.crypto import keys, multisig
from chaind.pb.cosmos.bank.v1beta1 import bank_pb2
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.abci.v1beta1 import abci_pb2
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.tx.signing.v1beta1 import signing_pb2
from chaind.pb.cosmos.tx.v1beta1 import tx_pb2
from native_txs import build_native, multisig_tx


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
            return chain.app.keepers["bank"].balance(chain.app.view(), chain.keys[3].address, chain.ibc)

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
    assert app.keepers["bank"].balance(view, a, chain.ibc) == 7
    assert app.keepers["bank"].balance(view, b, chain.ibc) == 5
    assert app.keepers["bank"].balance(view, b, base) == 10**18
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
    with pytest.raises(errors.TxError, match="pubKey does not match signer address .* with signer index: 0: "
                       "invalid pubkey") as raised:
        chain.app.check_tx(chain.native(chain.keys[2], [(txs.MSG_SEND, msg)]))
    assert raised.value.code == 8


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
    assert app.keepers["bank"].balance(view, b"\x53" * 20, chain.ibc) == 3
    assert app.keepers["auth"].key_type(view, cosmos_address) == keys.SECP256K1
    # The same key presented as eth_secp256k1 speaks for its keccak address, not this account.
    as_eth = chain.native(key, [(txs.MSG_SEND, send)], pubkey_url=txs.ETH_PUBKEY, address=cosmos_address)
    with pytest.raises(errors.TxError, match="pubKey does not match signer address") as raised:
        app.check_tx(as_eth)
    assert raised.value.code == 8
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
    height, before = app.height, app.keepers["bank"].balance(app.view(), chain.keys[3].address, chain.ibc)
    result = app.simulate(raw)
    assert result.code == 0 and 0 < result.gas_used <= result.gas_wanted
    assert [e.type for e in result.events].count("transfer") == 2       # the fee, then the send
    assert app.height == height
    assert app.keepers["bank"].balance(app.view(), chain.keys[3].address, chain.ibc) == before
    # The same tx still goes through: simulation took no nonce.
    assert chain.block([raw]).results[0].gas_used == result.gas_used


def test_simulate_needs_no_fee_gas_limit_or_valid_signature(chain):
    """What @cosmjs and cosmpy send to learn the gas: no fee, gas limit 0, an empty signature."""
    msg = bank_tx.MsgSend(from_address=chain.b32(chain.keys[2].address), to_address=chain.b32(b"\x54" * 20),
                          amount=coins((chain.ibc, 9)))
    view = chain.app.view()
    number, _ = chain.app.keepers["auth"].account(view, chain.keys[2].address)
    raw = build_native([(txs.MSG_SEND, msg)], chain.keys[2], chain.genesis.chain_id, number,
                       view.accounts.get_nonce(chain.keys[2].address), [], 0)
    tx_raw = txs.tx_pb2.TxRaw.FromString(raw)
    tx_raw.signatures[0] = b""
    result = chain.app.simulate(tx_raw.SerializeToString())
    assert result.code == 0 and result.gas_used > 20000, result.log
    with pytest.raises(errors.TxError):
        chain.app.check_tx(tx_raw.SerializeToString())


def test_simulating_an_empty_signature_charges_the_signed_size(chain):
    """As the SDK's simulate mode does: the gas of an unsigned simulation covers the signature to come."""
    msg = bank_tx.MsgSend(from_address=chain.b32(chain.keys[2].address), to_address=chain.b32(b"\x54" * 20),
                          amount=coins((chain.ibc, 9)))
    view = chain.app.view()
    number, _ = chain.app.keepers["auth"].account(view, chain.keys[2].address)
    raw = build_native([(txs.MSG_SEND, msg)], chain.keys[2], chain.genesis.chain_id, number,
                       view.accounts.get_nonce(chain.keys[2].address), [("achain", 10**17)], 100000)
    tx_raw = txs.tx_pb2.TxRaw.FromString(raw)
    assert len(tx_raw.signatures[0]) == keys.SIGNATURE_SIZE[keys.ETH_SECP256K1]
    signed = chain.app.simulate(raw).gas_used
    tx_raw.signatures[0] = b""
    assert chain.app.simulate(tx_raw.SerializeToString()).gas_used == signed
    assert chain.block([raw]).results[0].gas_used == signed


@pytest.mark.parametrize("mode", [signing_pb2.SIGN_MODE_UNSPECIFIED, signing_pb2.SIGN_MODE_LEGACY_AMINO_JSON,
                                  signing_pb2.SIGN_MODE_TEXTUAL])
def test_simulate_takes_any_sign_mode(chain, mode):
    """@cosmjs' `fee: "auto"` simulates with SIGN_MODE_UNSPECIFIED and an empty signature: simulation never
    checks signatures, whatever the mode, and check_tx still refuses the same tx (code 4, nothing pending)."""
    sender = chain.keys[2].address
    msg = bank_tx.MsgSend(from_address=chain.b32(sender), to_address=chain.b32(b"\x54" * 20),
                          amount=coins((chain.ibc, 9)))
    view = chain.app.view()
    raw = build_native([(txs.MSG_SEND, msg)], chain.keys[2], chain.genesis.chain_id,
                       chain.app.keepers["auth"].account(view, sender)[0],
                       view.accounts.get_nonce(sender), [], 0)
    tx_raw = txs.tx_pb2.TxRaw.FromString(raw)
    auth_info = tx_pb2.AuthInfo.FromString(tx_raw.auth_info_bytes)
    auth_info.signer_infos[0].mode_info.single.mode = mode
    tx_raw.auth_info_bytes, tx_raw.signatures[0] = auth_info.SerializeToString(), b""
    result = chain.app.simulate(tx_raw.SerializeToString())
    assert result.code == 0 and result.gas_used > 20000, result.log
    with pytest.raises(errors.TxError) as refused:
        chain.app.check_tx(tx_raw.SerializeToString())
    assert (refused.value.codespace, refused.value.code) == ("sdk", 4)
    assert chain.app.head_nonce(sender) == view.accounts.get_nonce(sender)


# -- multisig (LegacyAminoPubKey) signers ---------------------------------------------------------------

def test_multisig_address_is_the_sdks():
    # cosmjs' vector (amino/src/addresses.spec.ts): a 2-of-3 of secp256k1 keys.
    import bech32
    members = []
    for text in ("wasmpub1addwnpepqwxttx8w2sfs6d8cuzqcuau84grp8xsw95qzdjkmvc44tnckskdxw3zw2km",
                 "wasmpub1addwnpepq2gx7x7e29kge5a4ycunytyqr0u8ynql5h583s8r9wdads9m3v8ks6y0nhc",
                 "wasmpub1addwnpepq0xfx5vavxmgdkn0p6x0l9p3udttghu3qcldd7ql08wa3xy93qq0xuzvtxc"):
        amino = bytes(bech32.convertbits(bech32.bech32_decode(text)[1], 5, 8, False))
        assert amino[:5] == multisig.amino_prefix("tendermint/PubKeySecp256k1") + b"\x21"
        members.append((keys.SECP256K1, amino[5:]))
    assert multisig.address(2, members).hex() == "0892a77fab2fa7e192c3b7b2741e6682f3abb72f"
    assert multisig.set_bits(*multisig.bit_array(3, [0, 2])) == [0, 2]
    assert multisig.bit_array(9, [8]) == (1, b"\0\x80")


@pytest.fixture
def funded_multisig(chain):
    """A 2-of-3 multisig (two eth_secp256k1 members, one Cosmos secp256k1) holding coins."""
    members = [(keys.ETH_SECP256K1, chain.keys[4]), (keys.SECP256K1, chain.keys[5]),
               (keys.ETH_SECP256K1, chain.keys[6])]
    address = multisig.address(2, [(t, k.compressed_public_key) for t, k in members])
    fund = bank_tx.MsgSend(from_address=chain.b32(chain.keys[2].address), to_address=chain.b32(address),
                           amount=coins((chain.genesis.base_denom, 10**18)))
    chain.block([chain.native(chain.keys[2], [(txs.MSG_SEND, fund)])])
    return members, address


def test_a_multisig_sends_with_two_of_three_signatures(chain, funded_multisig):
    members, address = funded_multisig
    base, to = chain.genesis.base_denom, b"\x61" * 20
    send = bank_tx.MsgSend(from_address=chain.b32(address), to_address=chain.b32(to), amount=coins((base, 1234)))
    raw = multisig_tx(chain, members, 2, [0, 1], [(txs.MSG_SEND, send)])
    tx = chain.app.check_tx(raw)
    assert tx.sender == address and tx.key_type == txs.MULTISIG
    result = chain.block([raw]).results[0]
    assert chain.app.keepers["bank"].balance(chain.app.view(), to, base) == 1234
    # Gas: size, then each signing member's verify cost (eth 21000 + secp256k1 1000).
    per_byte = chain.genesis.auth_params.tx_size_cost_per_byte
    assert result.gas_used == len(raw) * per_byte + 21000 + 1000 + chain.app.handlers[txs.MSG_SEND].gas
    signatures = [a[1] for e in result.events if e.type == "tx" for a in e.attributes if a[0] == "signature"]
    assert len(signatures) == 3       # two members', then the aggregate
    # Members 1 and 2 (the next sequence) work too; the account's sequence moved.
    again = multisig_tx(chain, members, 2, [1, 2], [(txs.MSG_SEND, send)])
    chain.block([again])
    assert chain.app.keepers["bank"].balance(chain.app.view(), to, base) == 2468
    assert chain.app.view().accounts.get_nonce(address) == 2


@pytest.mark.parametrize("signers, mangle, message", [
    ([0], None, "signature size is incorrect 1"),
    ([0], lambda s: s + s, "minimum number of signatures not set, have 1, expected 2"),
    ([0, 2], lambda s: [s[0], s[0]], "signature verification failed"),
    ([0, 2], lambda s: s[:1], "signature size is incorrect 1"),
    ([0, 2], lambda s: s + [s[0]], "2 members marked as signing, 2 modes and 3 signatures"),
])
def test_a_multisig_without_enough_valid_signatures_is_refused(chain, funded_multisig, signers, mangle, message):
    members, address = funded_multisig
    send = bank_tx.MsgSend(from_address=chain.b32(address), to_address=chain.b32(b"\x62" * 20),
                           amount=coins((chain.genesis.base_denom, 1)))
    raw = multisig_tx(chain, members, 2, signers, [(txs.MSG_SEND, send)], mangle=mangle)
    with pytest.raises(errors.TxError, match=message):
        chain.app.check_tx(raw)


def test_a_multisig_of_another_threshold_is_another_account(chain, funded_multisig):
    members, address = funded_multisig
    send = bank_tx.MsgSend(from_address=chain.b32(address), to_address=chain.b32(b"\x63" * 20),
                           amount=coins((chain.genesis.base_denom, 1)))
    # Its key makes another address than the one the message names (the SDK's SetPubKeyDecorator check).
    with pytest.raises(errors.TxError, match="pubKey does not match signer address"):
        chain.app.check_tx(multisig_tx(chain, members, 1, [0], [(txs.MSG_SEND, send)]))


def test_simulate_takes_the_signer_from_the_message_whatever_the_key(chain):
    """@cosmjs simulates an eth_secp256k1 account's tx with its key written as a Cosmos secp256k1 one (another
    address): as in the SDK, the simulation runs as the message's signer; check_tx refuses the same tx."""
    key = chain.keys[2]
    msg = bank_tx.MsgSend(from_address=chain.b32(key.address), to_address=chain.b32(b"\x55" * 20),
                          amount=coins((chain.ibc, 4)))
    raw = chain.native(key, [(txs.MSG_SEND, msg)], pubkey_url=txs.SECP256K1_PUBKEY, address=key.address)
    result = chain.app.simulate(raw)
    assert result.code == 0 and result.gas_used > 20000, result.log
    with pytest.raises(errors.TxError):
        chain.app.check_tx(raw)
