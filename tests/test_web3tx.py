"""The legacy EIP-712 road's refusals on an App (chain/web3tx.py, LegacyEip712SigVerificationDecorator's order), the
legacy types of messages Evmos' reflection walks in less common ways, go-ethereum's typed data checks, and an
eth_secp256k1 key's amino signature in each form Evmos v20 takes (keccak, EIP-712, legacy EIP-712) whatever its V.
MetaMask's own signatures over this typed data are in test_eip712_legacy.py (external)."""

import json

import pytest
from eth_hash.auto import keccak
from google.protobuf import any_pb2

from chaind.chain import amino, eip712, eip712_legacy, errors, txs, web3tx
from chaind.crypto import keys
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.crypto.ed25519 import keys_pb2 as ed25519
from chaind.pb.cosmos.crypto.secp256k1 import keys_pb2 as secp256k1
from chaind.pb.cosmos.gov.v1beta1 import tx_pb2 as gov_tx
from chaind.pb.cosmos.staking.v1beta1 import tx_pb2 as staking_tx
from chaind.pb.cosmos.tx.signing.v1beta1 import signing_pb2
from chaind.pb.cosmos.tx.v1beta1 import tx_pb2
from chaind.pb.ethermint.crypto.v1.ethsecp256k1 import keys_pb2 as ethsecp256k1
from chaind.pb.ethermint.types.v1 import web3_pb2

GAS = 200000


def web3_tx(chain, key, mode=signing_pb2.SIGN_MODE_LEGACY_AMINO_JSON, pubkey=None, typed_chain_id=9000,
            fee_payer=None, signature=None, cosmos_signature=b"", extra_options=0, v_offset=27):
    """A MsgSend from `key` with ExtensionOptionsWeb3Tx, its fee payer signature made here over our legacy digest."""
    g = chain.genesis
    msg = bank_tx.MsgSend(from_address=chain.b32(key.address), to_address=chain.b32(b"\x71" * 20),
                          amount=[coin_pb2.Coin(denom=g.base_denom, amount="7")])
    view = chain.app.view()
    number, sequence = chain.app.keepers["auth"].account(view, key.address)[0], view.accounts.get_nonce(key.address)
    body = tx_pb2.TxBody(messages=[any_pb2.Any(type_url=txs.MSG_SEND, value=msg.SerializeToString())])
    fee = tx_pb2.Fee(amount=[coin_pb2.Coin(denom=g.base_denom, amount=str(chain.app.next_base_fee() * GAS))],
                     gas_limit=GAS)
    payer = chain.b32(key.address) if fee_payer is None else fee_payer
    if signature is None:
        doc = amino.sign_bytes(chain.app.amino, body, fee, g.chain_id, number, sequence)
        digest = eip712_legacy.digest(doc, typed_chain_id, msg, payer, chain.app.amino.any_types)
        signature = key.sign_digest(digest)
        signature = signature[:64] + bytes([signature[64] + v_offset])
    option = web3_pb2.ExtensionOptionsWeb3Tx(typed_data_chain_id=typed_chain_id, fee_payer=payer,
                                             fee_payer_sig=signature)
    for _ in range(1 + extra_options):
        body.extension_options.add(type_url=web3tx.URL, value=option.SerializeToString())
    pub = pubkey or any_pb2.Any(type_url=txs.ETH_PUBKEY,
                                value=ethsecp256k1.PubKey(key=key.compressed_public_key).SerializeToString())
    auth_info = tx_pb2.AuthInfo(signer_infos=[tx_pb2.SignerInfo(
        public_key=pub, sequence=sequence, mode_info=tx_pb2.ModeInfo(single=tx_pb2.ModeInfo.Single(mode=mode)))],
        fee=fee)
    return tx_pb2.TxRaw(body_bytes=body.SerializeToString(), auth_info_bytes=auth_info.SerializeToString(),
                        signatures=[cosmos_signature]).SerializeToString()


def test_a_web3_tx_signed_over_the_legacy_typed_data_commits(chain):
    key = chain.keys[2]
    for v_offset in (27, 0):          # MetaMask's V, and go-ethereum's
        raw = web3_tx(chain, key, v_offset=v_offset)
        assert chain.app.check_tx(raw).web3.fee_payer == chain.b32(key.address)
        assert chain.block([raw]).results[0].code == 0
    assert chain.app.keepers["bank"].balance(chain.app.view(), b"\x71" * 20, chain.genesis.base_denom) == 14


def refusals(chain, key):
    cosmos_key = any_pb2.Any(type_url=txs.SECP256K1_PUBKEY,
                             value=secp256k1.PubKey(key=key.compressed_public_key).SerializeToString())
    return {
        "direct": (dict(mode=signing_pb2.SIGN_MODE_DIRECT), "wrong SignMode: feature not supported"),
        "cosmos signature": (dict(cosmos_signature=b"\x01" * 65),
                             "cosmos transaction signature empty: too many signatures"),
        "two options": (dict(extra_options=1), "expected amount of extension options: unknown extension options"),
        "chain id": (dict(typed_chain_id=1), "invalid chain-id: invalid chain-id"),
        "no fee payer": (dict(fee_payer=""), "no feePayer on ExtensionOptionsWeb3Tx: unknown extension options"),
        "fee payer": (dict(fee_payer=chain.b32(chain.keys[3].address)), "failed to verify delegated fee payer"),
        "bad fee payer": (dict(fee_payer="chain1nothing"), "failed to parse feePayer from ExtensionOptionsWeb3Tx"),
        "short signature": (dict(signature=b"\x01" * 64), "signature length doesn't match typical [R||S||V]"),
        "recovery id": (dict(v_offset=5), "failed to recover delegated fee payer from sig"),
        "cosmos key": (dict(pubkey=cosmos_key), "feePayer pubkey PubKeySecp256k1{"),
        "other key's signature": (dict(signature=chain.keys[3].sign_digest(b"\x05" * 32)),
                                  "is different from transaction pubkey"),
    }


@pytest.mark.parametrize("case", ["direct", "cosmos signature", "two options", "chain id", "no fee payer", "fee payer",
                                  "bad fee payer", "short signature", "recovery id", "cosmos key",
                                  "other key's signature"])
def test_legacy_refusals_are_the_decorators_and_change_nothing(chain, case):
    key = chain.keys[2]
    options, text = refusals(chain, key)[case]
    if case == "cosmos key":
        # The account of the Cosmos-kind key (its address is another): fund it so the ante reaches the signature.
        address = key.address_as(keys.SECP256K1)
        chain.block([chain.native(chain.keys[1], [(txs.MSG_SEND, bank_tx.MsgSend(
            from_address=chain.b32(chain.keys[1].address), to_address=chain.b32(address),
            amount=[coin_pb2.Coin(denom=chain.genesis.base_denom, amount=str(10**18))]))])])
        raw = web3_tx_as(chain, key, address, options)
    else:
        raw = web3_tx(chain, key, **options)
        address = key.address
    nonce = chain.app.head_nonce(address)
    with pytest.raises(errors.TxError) as refused:
        chain.app.check_tx(raw)
    assert (refused.value.codespace, refused.value.code) == ("sdk", 4)
    assert refused.value.log.startswith("signature verification failed; please verify account number (")
    assert text in refused.value.log
    block = chain.app.finalize_block([raw], chain.genesis.genesis_time_ns + 10**12, b"\x01" * 20)[0]
    assert block.results[0].code == 4 and chain.app.head_nonce(address) == nonce


def web3_tx_as(chain, key, address, options):
    """web3_tx for the account at `address` (a Cosmos-kind key's): its MsgSend names that address."""
    original = chain.b32
    chain.b32 = lambda a: original(address if a == key.address else a)
    try:
        return web3_tx(chain, key, **options)
    finally:
        chain.b32 = original


def test_other_extension_options_are_still_refused(chain):
    raw = tx_pb2.TxRaw.FromString(web3_tx(chain, chain.keys[2]))
    body = tx_pb2.TxBody.FromString(raw.body_bytes)
    body.extension_options[0].type_url = "/ethermint.types.v1.ExtensionOptionDynamicFeeTx"
    raw.body_bytes = body.SerializeToString()
    with pytest.raises(errors.TxError) as refused:
        chain.app.check_tx(raw.SerializeToString())
    assert refused.value.code == 6


def test_legacy_types_of_less_common_fields():
    """Evmos' reflection: an Any as {type, value}, an ed25519 key as a string, empty fields left out, enums int32."""
    validator = staking_tx.MsgCreateValidator(validator_address="v", min_self_delegation="1",
                                              value=coin_pb2.Coin(denom="a", amount="1"))
    validator.description.moniker = "m"
    validator.commission.rate = "0.1"
    validator.pubkey.CopyFrom(any_pb2.Any(type_url="/cosmos.crypto.ed25519.PubKey",
                                          value=ed25519.PubKey(key=b"\x01" * 32).SerializeToString()))
    types = eip712_legacy.types_of(validator, amino.BASE_ANY_TYPES)
    assert types["MsgValue"] == [("description", "TypeDescription"), ("commission", "TypeCommission"),
                                 ("min_self_delegation", "string"), ("validator_address", "string"),
                                 ("pubkey", "TypePubkey"), ("value", "TypeValue")]
    assert types["TypePubkey"] == [("type", "string"), ("value", "string")]
    assert types["TypeDescription"] == [("moniker", "string")]
    weighted = gov_tx.MsgVoteWeighted(proposal_id=3, voter="a")
    weighted.options.add(option=1, weight="1.0")
    types = eip712_legacy.types_of(weighted, amino.BASE_ANY_TYPES)
    assert types["MsgValue"] == [("proposal_id", "uint64"), ("voter", "string"), ("options", "TypeOptions[]")]
    assert types["TypeOptions"] == [("option", "int32"), ("weight", "string")]


def test_an_unset_any_has_no_legacy_form():
    proposal = gov_tx.MsgSubmitProposal(proposer="a")
    with pytest.raises(eip712.TypedDataError):
        eip712_legacy.types_of(proposal, amino.BASE_ANY_TYPES)


DOC = {"account_number": "1", "chain_id": "chain_9000-1", "fee": {"amount": [], "gas": "1", "feePayer": "p"},
       "memo": "", "msgs": [{"type": "cosmos-sdk/MsgVote", "value": {"option": 1, "proposal_id": "2", "voter": "v"}}],
       "sequence": "0"}


@pytest.mark.parametrize("change, valid", [
    (lambda d: None, True),
    (lambda d: d["msgs"][0]["value"].update(proposal_id="0x2"), True),        # go-ethereum's hex or decimal
    (lambda d: d["msgs"][0]["value"].update(option=1.5), False),              # not an exact integer
    (lambda d: d["msgs"][0]["value"].update(option=2**32), False),            # beyond int32 (Go checks bit length)
    (lambda d: d["msgs"][0]["value"].update(proposal_id="-1"), False),        # negative uint64
    (lambda d: d["msgs"][0]["value"].update(proposal_id="1_0"), False),       # not Go's integer syntax
    (lambda d: d["msgs"][0]["value"].update(voter=3), False),                 # a number for a string
    (lambda d: d["msgs"][0]["value"].update(extra="x"), False),               # data its type lacks
    (lambda d: d["fee"].update(granter="g"), False),
    (lambda d: d["msgs"][0]["value"].pop("voter"), False),                    # a field missing
    (lambda d: d.update(timeout_height="5"), False),                          # not in the legacy Tx type
])
def test_typed_data_is_checked_as_go_ethereum_checks_it(change, valid):
    doc = json.loads(json.dumps(DOC))
    change(doc)
    types = eip712_legacy.types_of(gov_tx.MsgVote(proposal_id=2, voter="v", option=1), amino.BASE_ANY_TYPES)
    if valid:
        assert len(eip712.hash_typed_data(9000, types, doc)) == 32
    else:
        with pytest.raises(eip712.TypedDataError):
            eip712.hash_typed_data(9000, types, doc)


@pytest.mark.parametrize("types", [
    {"Tx": [("a", "Undefined")]},
    {"Tx": [("a", "uint7")]},
    {"Tx": [("a", "Tx")]},
    {"Tx": [("", "string")]},
])
def test_unsound_types_are_refused(types):
    with pytest.raises(eip712.TypedDataError):
        eip712.hash_typed_data(9000, {**types, "EIP712Domain": list(eip712.DOMAIN_TYPES)}, {"a": "x"})


def amino_send_signed(chain, key, sign):
    """A MsgSend in SIGN_MODE_LEGACY_AMINO_JSON (no extension), its signature sign(sign bytes)."""
    msg = bank_tx.MsgSend(from_address=chain.b32(key.address), to_address=chain.b32(b"\x72" * 20),
                          amount=[coin_pb2.Coin(denom=chain.genesis.base_denom, amount="3")])
    view = chain.app.view()
    number, sequence = chain.app.keepers["auth"].account(view, key.address)[0], view.accounts.get_nonce(key.address)
    raw = tx_pb2.TxRaw.FromString(chain.native(key, [(txs.MSG_SEND, msg)], amino_encoder=chain.app.amino))
    body, auth_info = tx_pb2.TxBody.FromString(raw.body_bytes), tx_pb2.AuthInfo.FromString(raw.auth_info_bytes)
    doc = amino.sign_bytes(chain.app.amino, body, auth_info.fee, chain.genesis.chain_id, number, sequence)
    raw.signatures[0] = sign(doc, msg)
    return raw.SerializeToString()


def with_v(signature, offset):
    return signature[:64] + bytes([signature[64] + offset])


@pytest.mark.parametrize("form", ["eip712", "legacy eip712", "keccak"])
@pytest.mark.parametrize("v_offset", [0, 27])
def test_every_form_passes_whatever_its_v(chain, form, v_offset):
    """The digest tried first follows V (27/28: MetaMask's), but each form passes with either V."""
    key = chain.keys[2]
    payer = chain.b32(key.address)
    digests = {"eip712": lambda doc, msg: eip712.digest(doc),
               "legacy eip712": lambda doc, msg: eip712_legacy.digest(doc, 9000, msg, payer, chain.app.amino.any_types),
               "keccak": lambda doc, msg: keccak(doc)}
    raw = amino_send_signed(chain, key, lambda doc, msg: with_v(key.sign_digest(digests[form](doc, msg)), v_offset))
    assert chain.block([raw]).results[0].code == 0


def test_an_amino_signature_over_nothing_of_the_doc_is_refused(chain):
    key = chain.keys[2]
    nonce = chain.app.head_nonce(key.address)
    raw = amino_send_signed(chain, key, lambda doc, msg: with_v(key.sign_digest(b"\x09" * 32), 27))
    with pytest.raises(errors.TxError) as refused:
        chain.app.check_tx(raw)
    assert (refused.value.codespace, refused.value.code) == ("sdk", 4)
    assert chain.app.head_nonce(key.address) == nonce


def test_a_high_s_twin_of_the_fee_payer_signature_is_refused(chain):
    """The malleable twin (N - S, V flipped) recovers the same key, and go-ethereum's VerifySignature refuses it."""
    key = chain.keys[2]
    good = tx_pb2.TxRaw.FromString(web3_tx(chain, key))
    option = web3_pb2.ExtensionOptionsWeb3Tx.FromString(tx_pb2.TxBody.FromString(good.body_bytes).extension_options[0]
                                                        .value)
    n = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
    sig = option.fee_payer_sig
    twin = sig[:32] + (n - int.from_bytes(sig[32:64], "big")).to_bytes(32, "big") + bytes([(sig[64] - 27) ^ 1])
    with pytest.raises(errors.TxError) as refused:
        chain.app.check_tx(web3_tx(chain, key, signature=twin))
    assert "unable to verify signer signature of EIP712 typed data" in refused.value.log


def test_a_web3_tx_with_a_second_signer_is_refused(chain):
    """EIP-712 allows just one signature (the decorator's ErrTooManySignatures, before any signature check)."""
    key, payer = chain.keys[2], chain.keys[3]
    raw = tx_pb2.TxRaw.FromString(web3_tx(chain, key))
    auth_info = tx_pb2.AuthInfo.FromString(raw.auth_info_bytes)
    auth_info.fee.payer = chain.b32(payer.address)
    second = auth_info.signer_infos.add()
    second.CopyFrom(auth_info.signer_infos[0])
    second.public_key.value = ethsecp256k1.PubKey(key=payer.compressed_public_key).SerializeToString()
    second.sequence = chain.app.head_nonce(payer.address)
    raw.auth_info_bytes = auth_info.SerializeToString()
    raw.signatures.append(b"")
    with pytest.raises(errors.TxError) as refused:
        chain.app.check_tx(raw.SerializeToString())
    assert (refused.value.codespace, refused.value.code) == ("sdk", 14)
    assert "EIP712 signatures allows just one signature" in refused.value.log
