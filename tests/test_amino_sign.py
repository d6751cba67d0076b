"""SIGN_MODE_LEGACY_AMINO_JSON: the StdSignDoc's bytes, both key kinds, and every refusal (code, nothing changed)."""

import attrs
import pytest

from chain_driver import Chain
from chaind.chain import amino, authority, errors, txs
from chaind.chain.modules import bank
from chaind.chain.msgs import MsgHandler
from chaind.chain.registry import MODULES
from chaind.crypto import keys
from chaind.pb.cosmos.bank.v1beta1 import bank_pb2
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.distribution.v1beta1 import tx_pb2 as distribution_tx
from chaind.pb.cosmos.gov.v1 import gov_pb2 as gov_v1_types
from chaind.pb.cosmos.gov.v1 import tx_pb2 as gov_v1
from chaind.pb.cosmos.gov.v1beta1 import gov_pb2 as gov_v1beta1_types
from chaind.pb.cosmos.gov.v1beta1 import tx_pb2 as gov_v1beta1
from chaind.pb.cosmos.staking.v1beta1 import staking_pb2
from chaind.pb.cosmos.staking.v1beta1 import tx_pb2 as staking_tx
from chaind.pb.cosmos.tx.signing.v1beta1 import signing_pb2
from chaind.pb.cosmos.tx.v1beta1 import tx_pb2

ENCODER = amino.Encoder.of_modules(MODULES)


def coins(*pairs):
    return [coin_pb2.Coin(denom=d, amount=str(a)) for d, a in pairs]


def test_the_sign_doc_is_the_sdks_std_sign_doc():
    """Sorted compact JSON: legacy_coins, string integers, payer/granter/timeout_height only when set,
    Go's escaping of < > & in the memo."""
    msg = bank_tx.MsgSend(from_address="chain1a", to_address="chain1b", amount=coins(("achain", 5)))
    body = tx_pb2.TxBody(messages=[txs._any(txs.MSG_SEND, msg)], memo="a<b>&c\u2028", timeout_height=77)
    fee = tx_pb2.Fee(amount=coins(("achain", 100)), gas_limit=200000, payer="chain1p", granter="chain1g")
    assert amino.sign_bytes(ENCODER, body, fee, "chain_9000-1", 3, 6) == (
        '{"account_number":"3","chain_id":"chain_9000-1","fee":{"amount":[{"amount":"100","denom":"achain"}],'
        '"gas":"200000","granter":"chain1g","payer":"chain1p"},"memo":"a\\u003cb\\u003e\\u0026c\\u2028",'
        '"msgs":[{"type":"cosmos-sdk/MsgSend","value":{"amount":[{"amount":"5","denom":"achain"}],'
        '"from_address":"chain1a","to_address":"chain1b"}}],"sequence":"6","timeout_height":"77"}').encode()
    bare = tx_pb2.TxBody(messages=[txs._any(txs.MSG_SEND, bank_tx.MsgSend(from_address="chain1a"))])
    assert amino.sign_bytes(ENCODER, bare, tx_pb2.Fee(), "c", 0, 0) == (
        '{"account_number":"0","chain_id":"c","fee":{"amount":[],"gas":"0"},"memo":"","msgs":[{"type":'
        '"cosmos-sdk/MsgSend","value":{"amount":[],"from_address":"chain1a"}}],"sequence":"0"}').encode()


def test_nested_shapes_multi_send_and_create_validator():
    multi = bank_tx.MsgMultiSend(inputs=[bank_pb2.Input(address="chain1a")],
                                 outputs=[bank_pb2.Output(address="chain1b", coins=coins(("x", 1)))])
    assert ENCODER.named(multi) == {"type": "cosmos-sdk/MsgMultiSend", "value": {
        "inputs": [{"address": "chain1a", "coins": []}],
        "outputs": [{"address": "chain1b", "coins": [{"amount": "1", "denom": "x"}]}]}}
    create = staking_tx.MsgCreateValidator(
        description=staking_pb2.Description(moniker="v"),
        commission=staking_pb2.CommissionRates(rate=str(10**17), max_rate=str(2 * 10**17), max_change_rate=""),
        min_self_delegation="1", validator_address="chainvaloper1v",
        pubkey=txs._any("/cosmos.crypto.ed25519.PubKey", txs.secp256k1.PubKey(key=b"\x01" * 32)),
        value=coin_pb2.Coin(denom="achain", amount="9"))
    assert ENCODER.named(create)["value"] == {
        "commission": {"max_change_rate": "0", "max_rate": "0.200000000000000000", "rate": "0.100000000000000000"},
        "description": {"moniker": "v"}, "min_self_delegation": "1", "validator_address": "chainvaloper1v",
        "pubkey": {"type": "tendermint/PubKeyEd25519", "value": "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="},
        "value": {"amount": "9", "denom": "achain"}}


def test_distribution_and_gov_names_nested_any_as_x_tx_writes_it():
    """Distribution's names (the SDK's, not @cosmjs' MsgWithdrawValidatorCommission), and gov v1's
    MsgSubmitProposal whose messages (Any, one holding another) are written {"type": amino name, "value"}."""
    names = {url: shape.name for url, cls in ENCODER.any_types.items()
             if (shape := ENCODER.shapes.get(cls.DESCRIPTOR.full_name)) and shape.name}
    assert {url.rsplit(".", 1)[1]: names[url] for url in names if ".distribution." in url} == {
        "MsgSetWithdrawAddress": "cosmos-sdk/MsgModifyWithdrawAddress",
        "MsgWithdrawDelegatorReward": "cosmos-sdk/MsgWithdrawDelegationReward",
        "MsgWithdrawValidatorCommission": "cosmos-sdk/MsgWithdrawValCommission",
        "MsgFundCommunityPool": "cosmos-sdk/MsgFundCommunityPool",
        "MsgDepositValidatorRewardsPool": "cosmos-sdk/distr/MsgDepositValRewards",
        "MsgUpdateParams": "cosmos-sdk/distribution/MsgUpdateParams"}
    assert ENCODER.named(distribution_tx.MsgFundCommunityPool(depositor="chain1a"))["value"] == {
        "amount": [], "depositor": "chain1a"}
    text = gov_v1beta1_types.TextProposal(title="t", description="d")
    legacy = gov_v1.MsgExecLegacyContent(authority="chain1gov", content=txs._any("/cosmos.gov.v1beta1.TextProposal",
                                                                                  text))
    send = bank_tx.MsgSend(from_address="chain1gov", to_address="chain1b", amount=coins(("achain", 2)))
    proposal = gov_v1.MsgSubmitProposal(messages=[txs._any(txs.MSG_SEND, send),
                                                  txs._any("/cosmos.gov.v1.MsgExecLegacyContent", legacy)],
                                        initial_deposit=coins(("achain", 10)), proposer="chain1p", metadata="m",
                                        title="t", summary="s")
    assert amino.dumps(ENCODER.named(proposal)) == (
        '{"type":"cosmos-sdk/v1/MsgSubmitProposal","value":{"initial_deposit":[{"amount":"10","denom":"achain"}],'
        '"messages":[{"type":"cosmos-sdk/MsgSend","value":{"amount":[{"amount":"2","denom":"achain"}],'
        '"from_address":"chain1gov","to_address":"chain1b"}},{"type":"cosmos-sdk/v1/MsgExecLegacyContent",'
        '"value":{"authority":"chain1gov","content":{"type":"cosmos-sdk/TextProposal","value":{"description":"d",'
        '"title":"t"}}}}],"metadata":"m","proposer":"chain1p","summary":"s","title":"t"}}')
    params = staking_pb2.Params(max_validators=7, max_entries=7, bond_denom="achain", min_commission_rate=str(10**16))
    params.unbonding_time.FromSeconds(1209600)
    assert amino.dumps(ENCODER.named(staking_tx.MsgUpdateParams(authority="chain1gov", params=params))) == (
        '{"type":"cosmos-sdk/x/staking/MsgUpdateParams","value":{"authority":"chain1gov","params":{"bond_denom":'
        '"achain","max_entries":7,"max_validators":7,"min_commission_rate":"0.010000000000000000",'
        '"unbonding_time":"1209600000000000"}}}')
    gov_params = gov_v1_types.Params(quorum="0.334000000000000000", burn_vote_veto=True)
    gov_params.voting_period.FromSeconds(20)
    assert amino.dumps(ENCODER.named(gov_v1.MsgUpdateParams(authority="chain1gov", params=gov_params))) == (
        '{"type":"cosmos-sdk/x/gov/v1/MsgUpdateParams","value":{"authority":"chain1gov","params":{'
        '"burn_vote_veto":true,"expedited_min_deposit":[],"min_deposit":[],"quorum":"0.334000000000000000",'
        '"voting_period":"20000000000"}}}')
    old = gov_v1beta1.MsgSubmitProposal(content=txs._any("/cosmos.gov.v1beta1.TextProposal", text), proposer="p")
    assert ENCODER.named(old) == {"type": "cosmos-sdk/MsgSubmitProposal", "value": {
        "content": {"type": "cosmos-sdk/TextProposal", "value": {"description": "d", "title": "t"}},
        "initial_deposit": [], "proposer": "p"}}


def test_timestamps_and_durations_are_written_as_x_tx_writes_them():
    """RFC 3339 in UTC with the fraction only when there are nanos (trailing zeros dropped); a duration as its
    nanoseconds in a string."""
    proposal = gov_v1_types.Proposal(id=1)
    proposal.submit_time.FromSeconds(1700000000)
    proposal.deposit_end_time.FromNanoseconds(1700000000_500000000)
    proposal.voting_start_time.FromSeconds(-62135596800)
    value = ENCODER.value(proposal)
    assert (value["submit_time"], value["deposit_end_time"], value["voting_start_time"]) == (
        "2023-11-14T22:13:20Z", "2023-11-14T22:13:20.5Z", "0001-01-01T00:00:00Z")
    params = staking_pb2.Params(max_validators=5)
    params.unbonding_time.FromSeconds(1209600)
    assert ENCODER.value(params)["unbonding_time"] == "1209600000000000"
    params.unbonding_time.FromSeconds(2**62)
    with pytest.raises(amino.AminoError):
        ENCODER.value(params)


def test_a_v1_proposal_with_nested_messages_signed_in_amino_json_commits(chain):
    gov = chain.app.keepers["bank"].bech32(authority.GOV)
    key = chain.keys[2]
    text = gov_v1beta1_types.TextProposal(title="t", description="d")
    proposal = gov_v1.MsgSubmitProposal(
        messages=[txs._any(txs.MSG_SEND, bank_tx.MsgSend(from_address=gov, to_address=chain.b32(b"\x61" * 20),
                                                         amount=coins((chain.genesis.base_denom, 1)))),
                  txs._any("/cosmos.gov.v1.MsgExecLegacyContent", gov_v1.MsgExecLegacyContent(
                      authority=gov, content=txs._any("/cosmos.gov.v1beta1.TextProposal", text)))],
        initial_deposit=coins((chain.genesis.base_denom, 1000)), proposer=chain.b32(key.address), title="t",
        summary="s")
    raw = chain.native(key, [("/cosmos.gov.v1.MsgSubmitProposal", proposal)], amino_encoder=ENCODER, gas=400000)
    tx = chain.app.check_tx(raw)
    assert tx.sign_mode == signing_pb2.SIGN_MODE_LEGACY_AMINO_JSON
    block = chain.block([raw])
    assert [e for e in block.results[0].events if e.type == "submit_proposal"]


def amino_send(chain, key, sender, pubkey_url=txs.ETH_PUBKEY, amount=7, **options):
    msg = bank_tx.MsgSend(from_address=chain.b32(sender), to_address=chain.b32(b"\x61" * 20),
                          amount=coins((chain.ibc, amount)))
    return chain.native(key, [(txs.MSG_SEND, msg)], pubkey_url=pubkey_url, address=sender,
                        amino_encoder=ENCODER, **options)


def test_an_eth_secp256k1_key_signs_amino_json_with_keccak(chain):
    key = chain.keys[2]
    raw = amino_send(chain, key, key.address, memo="hello", timeout_height=10**6)
    tx = chain.app.check_tx(raw)
    assert tx.sign_mode == txs.signing_pb2.SIGN_MODE_LEGACY_AMINO_JSON and tx.body.memo == "hello"
    assert chain.block([raw]).results[0].code == 0
    assert chain.app.keepers["bank"].balance(chain.app.view(), b"\x61" * 20, chain.ibc) == 7


def test_a_cosmos_secp256k1_key_signs_amino_json_with_sha256(chain):
    key = chain.keys[5]
    cosmos_address = key.address_as(keys.SECP256K1)
    fund = bank_tx.MsgSend(from_address=chain.b32(chain.keys[2].address), to_address=chain.b32(cosmos_address),
                           amount=coins((chain.genesis.base_denom, 10**18), (chain.ibc, 10)))
    chain.block([chain.native(chain.keys[2], [(txs.MSG_SEND, fund)])])
    raw = amino_send(chain, key, cosmos_address, pubkey_url=txs.SECP256K1_PUBKEY, amount=3)
    assert chain.app.check_tx(raw).sender == cosmos_address
    assert chain.block([raw]).results[0].code == 0
    assert chain.app.keepers["bank"].balance(chain.app.view(), b"\x61" * 20, chain.ibc) == 3


def _refused(chain, raw, sender, code):
    """code: the sdk codespace's, or (codespace, code)."""
    codespace, code = code if isinstance(code, tuple) else ("sdk", code)
    nonce = chain.app.head_nonce(sender)
    with pytest.raises(errors.TxError) as refused:
        chain.app.check_tx(raw)
    assert (refused.value.codespace, refused.value.code) == (codespace, code), refused.value.log
    # Nothing changed: a block that carries it anyway fails it without touching the sender.
    block = chain.app.finalize_block([raw], chain.genesis.genesis_time_ns + 10**12, b"\x01" * 20)[0]
    assert block.results[0].code == code
    assert chain.app.head_nonce(sender) == nonce
    return refused.value


def _resigned(chain, raw, key, doc):
    """raw with its one signature replaced by `key`'s over `doc` (bytes)."""
    tx_raw = tx_pb2.TxRaw.FromString(raw)
    tx_raw.signatures[0] = key.sign(keys.ETH_SECP256K1, doc)
    return tx_raw.SerializeToString()


def _doc(chain, raw, number, chain_id=None):
    """The amino sign doc of raw's body and fee under another account number or chain id."""
    tx_raw = tx_pb2.TxRaw.FromString(raw)
    body, auth_info = tx_pb2.TxBody.FromString(tx_raw.body_bytes), tx_pb2.AuthInfo.FromString(tx_raw.auth_info_bytes)
    return amino.sign_bytes(ENCODER, body, auth_info.fee, chain_id or chain.genesis.chain_id, number,
                            auth_info.signer_infos[0].sequence)


def test_refusals_wrong_doc_chain_id_sequence(chain):
    key = chain.keys[2]
    raw = amino_send(chain, key, key.address)
    tx_raw = tx_pb2.TxRaw.FromString(raw)
    number = chain.app.keepers["auth"].account(chain.app.view(), key.address)[0]
    assert _resigned(chain, raw, key, _doc(chain, raw, number)) == raw
    # The wrong chain id, the wrong account number, the DIRECT doc under an amino mode: signature verification.
    for doc in (_doc(chain, raw, number, chain_id="other_1-1"), _doc(chain, raw, number + 1),
                txs.tx_pb2.SignDoc(body_bytes=tx_raw.body_bytes, auth_info_bytes=tx_raw.auth_info_bytes,
                                   chain_id=chain.genesis.chain_id, account_number=number).SerializeToString()):
        error = _refused(chain, _resigned(chain, raw, key, doc), key.address, 4)
        assert "signature verification failed" in error.log
    # A sequence already used: incorrect account sequence (32).
    chain.block([raw])
    tx_raw = tx_pb2.TxRaw.FromString(amino_send(chain, key, key.address))
    auth_info = tx_pb2.AuthInfo.FromString(tx_raw.auth_info_bytes)
    auth_info.signer_infos[0].sequence -= 1
    tx_raw.auth_info_bytes = auth_info.SerializeToString()
    stale = tx_raw.SerializeToString()
    _refused(chain, _resigned(chain, stale, key, _doc(chain, stale, number)), key.address, 32)


def test_a_message_without_an_amino_name_is_refused(tmp_path):
    """A module's message that declares no amino JSON can be signed in SIGN_MODE_DIRECT only."""
    plain = bank.MODULE.messages[0]
    nameless = MsgHandler(plain.type_url, plain.message_class, plain.signer, plain.validate, plain.execute)
    bank_module = attrs.evolve(bank.MODULE, messages=(nameless,) + bank.MODULE.messages[1:])
    modules = tuple(bank_module if m is bank.MODULE else m for m in MODULES)
    chain = Chain(tmp_path, "chain.db", modules=modules)
    try:
        key = chain.keys[2]
        raw = amino_send(chain, key, key.address)        # the driver signs with the full encoder
        error = _refused(chain, raw, key.address, 4)
        assert "no amino JSON name for /cosmos.bank.v1beta1.MsgSend" in error.log
        direct = chain.native_send(2, b"\x61" * 20, 1)
        assert chain.app.check_tx(direct).kind == "native"
    finally:
        chain.close()


# -- the ante's auth params: memo length, timeout height, signature count, fee payer and granter -------------

def test_an_expired_timeout_height_is_refused(chain):
    key = chain.keys[2]
    for _ in range(2):
        chain.block([])
    next_height = chain.app.height + 1
    # A tx for the next block with timeout height = that block is good; one below it is not (code 30).
    good = amino_send(chain, key, key.address, timeout_height=next_height)
    assert chain.app.check_tx(good).body.timeout_height == next_height
    expired = amino_send(chain, key, key.address, timeout_height=next_height - 1)
    error = _refused(chain, expired, key.address, 30)
    assert error.log == f"block height: {next_height}, timeout height: {next_height - 1}: tx timeout height"
    assert chain.block([good]).results[0].code == 0


def _with_params(tmp_path, **params):
    import json

    from chaind.home import Home
    home = Home(tmp_path / "home")
    home.init("test", dev=True)
    document = json.loads(home.genesis_file.read_text())
    document["app_state"]["auth"]["params"] = {k: str(v) for k, v in params.items()}
    home.genesis_file.write_text(json.dumps(document))
    return Chain(tmp_path, "chain.db")


def test_memo_length_sig_limit_and_byte_cost_are_auth_params(tmp_path):
    chain = _with_params(tmp_path, max_memo_characters=5, tx_size_cost_per_byte=3, tx_sig_limit=7)
    try:
        key = chain.keys[2]
        assert chain.genesis.auth_params.max_memo_characters == 5
        error = _refused(chain, amino_send(chain, key, key.address, memo="é" * 6), key.address, 12)
        assert error.log == "maximum number of characters is 5 but received 6 characters: memo too large"
        raw = amino_send(chain, key, key.address, memo="ééééé")
        result = chain.block([raw]).results[0]
        assert result.gas_used == len(raw) * 3 + 21000 + chain.app.handlers[txs.MSG_SEND].gas
    finally:
        chain.close()


def test_a_multisig_over_tx_sig_limit_is_refused(tmp_path):
    from native_txs import multisig_tx
    chain = _with_params(tmp_path, tx_sig_limit=2)
    try:
        members = [(keys.ETH_SECP256K1, chain.keys[i]) for i in (3, 4, 5)]
        msg = bank_tx.MsgSend(from_address="x", to_address=chain.b32(b"\x61" * 20), amount=coins((chain.ibc, 1)))
        raw = multisig_tx(chain, members, 2, [0, 1], [(txs.MSG_SEND, msg)])
        with pytest.raises(errors.TxError) as refused:
            chain.app.check_tx(raw)
        assert (refused.value.code, refused.value.log) == (14, "signatures: 3, limit: 2: too many signatures")
    finally:
        chain.close()


def test_a_fee_payer_other_than_the_signer_or_a_granter_is_refused(chain):
    """A payer who did not sign is a missing signer; a granter with no allowance for the payer is refused by
    feegrant (its own codespace)."""
    key = chain.keys[2]
    changes = (({"payer": chain.b32(chain.keys[3].address)}, ("sdk", 4)),
               ({"granter": chain.b32(chain.keys[3].address)}, ("feegrant", 5)))
    for fee_change, code in changes:
        tx_raw = tx_pb2.TxRaw.FromString(amino_send(chain, key, key.address))
        auth_info = tx_pb2.AuthInfo.FromString(tx_raw.auth_info_bytes)
        for field, value in fee_change.items():
            setattr(auth_info.fee, field, value)
        tx_raw.auth_info_bytes = auth_info.SerializeToString()
        raw = tx_raw.SerializeToString()
        number = chain.app.keepers["auth"].account(chain.app.view(), key.address)[0]
        _refused(chain, _resigned(chain, raw, key, _doc(chain, raw, number)), key.address, code)
    # The signer named as its own payer is fine (and the payer is in the signed doc).
    tx_raw = tx_pb2.TxRaw.FromString(amino_send(chain, key, key.address))
    auth_info = tx_pb2.AuthInfo.FromString(tx_raw.auth_info_bytes)
    auth_info.fee.payer = chain.b32(key.address)
    tx_raw.auth_info_bytes = auth_info.SerializeToString()
    raw = tx_raw.SerializeToString()
    number = chain.app.keepers["auth"].account(chain.app.view(), key.address)[0]
    assert b'"payer"' in _doc(chain, raw, number)
    assert chain.block([_resigned(chain, raw, key, _doc(chain, raw, number))]).results[0].code == 0
