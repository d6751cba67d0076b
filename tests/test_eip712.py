"""EIP-712 (Evmos v20's current path): an eth_secp256k1 key's SIGN_MODE_LEGACY_AMINO_JSON signature made by
MetaMask's typed-data signer (@metamask/eth-sig-util, npm, unmodified) over the amino doc's EIP-712 form.

An account MetaMask made (funded by an EVM transfer: an Ethereum address, no public key on chain) sends its
first native tx this way; a signature over other typed data is refused (code 4) and changes nothing.
"""

import json
import os
import subprocess

import pytest
from eth_keys import keys as eth_keys

from chaind.chain import amino, eip712, errors, txs
from chaind.crypto import keys
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.tx.v1beta1 import tx_pb2
from cosmjs_driver import CLIENT_DIR
from native_txs import build_native

pytestmark = pytest.mark.external

FRESH = keys.AccountKey(bytes.fromhex("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"))


def metamask_sign(cosmjs, private_key, sign_bytes, chain_id=None):  # noqa: F811
    """eth_signTypedData_v4 of the doc's EIP-712 form (its domain's chainId replaced when given)."""
    domain, types, message = eip712.typed_data(sign_bytes)
    if chain_id is not None:
        domain = {**domain, "chainId": chain_id}
    typed = {"types": {k: [{"name": n, "type": t} for n, t in v] for k, v in types.items()}, "primaryType": "Tx",
             "domain": domain, "message": message}
    node, modules = cosmjs
    run = subprocess.run([node, str(CLIENT_DIR / "eip712.js")],
                         input=json.dumps({"privateKey": private_key.hex(), "typedData": typed}), capture_output=True,
                         text=True, timeout=60, env={**os.environ, "NODE_PATH": str(modules)})
    assert run.returncode == 0, f"eth-sig-util failed:\n{run.stderr}"
    return bytes.fromhex(json.loads(run.stdout)["signature"][2:])


def _amino_tx(chain, key, sign, memo=""):
    """A MsgSend from `key`'s eth address in SIGN_MODE_LEGACY_AMINO_JSON, signed by sign(sign bytes)."""
    sender = key.address
    msg = bank_tx.MsgSend(from_address=chain.b32(sender), to_address=chain.b32(b"\x71" * 20),
                          amount=[coin_pb2.Coin(denom=chain.genesis.base_denom, amount="12345")])
    view = chain.app.view()
    number, sequence = chain.app.keepers["auth"].account(view, sender)[0], view.accounts.get_nonce(sender)
    raw = build_native([(txs.MSG_SEND, msg)], key, chain.genesis.chain_id, number, sequence,
                       [(chain.genesis.base_denom, chain.app.next_base_fee() * 200000)], 200000, memo=memo,
                       amino_encoder=chain.app.amino)
    tx_raw = tx_pb2.TxRaw.FromString(raw)
    body, auth_info = tx_pb2.TxBody.FromString(tx_raw.body_bytes), tx_pb2.AuthInfo.FromString(tx_raw.auth_info_bytes)
    doc = amino.sign_bytes(chain.app.amino, body, auth_info.fee, chain.genesis.chain_id, number, sequence)
    tx_raw.signatures[0] = sign(doc)
    return tx_raw.SerializeToString()


def test_the_digest_is_what_metamask_signs(cosmjs):  # noqa: F811
    doc = (b'{"account_number":"3","chain_id":"chain_9000-1","fee":{"amount":[{"amount":"100","denom":"achain"}],'
           b'"gas":"200000"},"memo":"m","msgs":[{"type":"cosmos-sdk/MsgSend","value":{"amount":[{"amount":"5",'
           b'"denom":"achain"}],"from_address":"chain1a","to_address":"chain1b"}},{"type":"cosmos-sdk/MsgSend",'
           b'"value":{"amount":[],"from_address":"chain1a","to_address":"chain1c"}}],"sequence":"6"}')
    _, types, _ = eip712.typed_data(doc)
    assert types["Tx"][-2:] == [("msg0", "TypeMsgSend0"), ("msg1", "TypeMsgSend1")]
    assert types["TypeMsgSend0"] == [("value", "TypeValue0"), ("type", "string")]
    assert types["TypeValue0"] == [("to_address", "string"), ("from_address", "string"),
                                   ("amount", "TypeValueAmount0[]")]
    assert types["TypeValue1"][-1] == ("amount", "string[]")
    signature = metamask_sign(cosmjs, FRESH.private_key, doc)
    recovered = eth_keys.Signature(signature[:64] + bytes([signature[64] - 27])).recover_public_key_from_msg_hash(
        eip712.digest(doc))
    assert recovered.to_canonical_address() == FRESH.address


def test_a_metamask_account_sends_its_first_native_tx(chain, cosmjs):  # noqa: F811
    funder = chain.keys[1]
    chain.block([chain.evm(1, chain.app.head_nonce(funder.address), to=FRESH.address, value=10**18)])
    # an account, no public key yet
    assert not chain.app.keepers["auth"].account(chain.app.view(), FRESH.address)[1]
    raw = _amino_tx(chain, FRESH, lambda doc: metamask_sign(cosmjs, FRESH.private_key, doc), memo="from MetaMask")
    assert chain.app.check_tx(raw).sender == FRESH.address
    assert chain.block([raw]).results[0].code == 0
    view = chain.app.view()
    assert chain.app.keepers["bank"].balance(view, b"\x71" * 20, chain.genesis.base_denom) == 12345
    assert chain.app.keepers["auth"].account(view, FRESH.address)[1]


def test_typed_data_for_another_chain_is_refused(chain, cosmjs):  # noqa: F811
    key = chain.keys[2]
    nonce = chain.app.head_nonce(key.address)
    raw = _amino_tx(chain, key, lambda doc: metamask_sign(cosmjs, key.private_key, doc, chain_id=9001))
    with pytest.raises(errors.TxError) as refused:
        chain.app.check_tx(raw)
    assert (refused.value.codespace, refused.value.code) == ("sdk", 4)
    assert "signature verification failed" in refused.value.log
    block = chain.app.finalize_block([raw], chain.genesis.genesis_time_ns + 10**12, b"\x01" * 20)[0]
    assert block.results[0].code == 4 and chain.app.head_nonce(key.address) == nonce


@pytest.mark.parametrize("doc", [b"[]", b"{", b'{"chain_id":"chain_9000-1"}', b'{"msgs":[{"type":7}]}',
                                 b'{"msgs":[3],"chain_id":"chain_9000-1"}', b'{"msgs":[],"chain_id":"nochain"}'])
def test_malformed_typed_data_has_no_digest(doc):
    with pytest.raises(eip712.TypedDataError):
        eip712.digest(doc)
