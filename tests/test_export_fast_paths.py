"""The export's fast paths give what the per-account reads gave: auth's accounts from one scan of its records and
one walk of the EVM's account trie, a plain account's JSON written without its protobuf message, and bech32
encoded with a table-driven checksum; each equal, to the byte, to the slow path it replaced."""

import json
import os

import bech32
import orjson
from google.protobuf import any_pb2

import busy_chain
from chaind.chain import txs
from chaind.chain.genesis import export_document
from chaind.chain.module_genesis import to_json
from chaind.chain.modules.auth.genesis import _account_json, _account_number
from chaind.chain.modules.auth.keeper import BASE_ACCOUNT_TYPE_URL, PUBKEY_TYPE_URL, AuthKeeper
from chaind.crypto.addresses import to_bech32
from chaind.crypto.keys import ETH_SECP256K1, SECP256K1
from chaind.pb.cosmos.auth.v1beta1 import auth_pb2
from chaind.pb.cosmos.evm.crypto.v1.ethsecp256k1 import keys_pb2 as ethsecp256k1

busy = busy_chain.busy     # the fixture


def _compact(value):
    return json.dumps(value, separators=(",", ":"))


def test_auths_export_is_each_accounts_any_as_the_keeper_answers_it(busy):
    chain, _, _ = busy
    app = chain.app
    view = app.view()
    keeper = app.keepers["auth"]
    exported = export_document(app, view.height)["app_state"]["auth"]["accounts"]
    # The per-account path export took before: the keeper's Any of each known address, its JSON, by number.
    slow = sorted((_account_json(keeper.account_any(view, a)) for a in keeper.all_addresses(view)),
                  key=_account_number)
    assert _compact(exported[:len(slow)]) == _compact(slow)
    kinds = {a["@type"] for a in slow}
    assert {BASE_ACCOUNT_TYPE_URL, "/cosmos.auth.v1beta1.ModuleAccount",
            "/cosmos.vesting.v1beta1.ContinuousVestingAccount"} <= kinds
    assert any("pub_key" in a for a in slow) and any(a.get("sequence") not in (None, "0") for a in slow)


def test_a_plain_accounts_json_is_its_base_accounts(tmp_path):
    keeper = AuthKeeper("chain", None, {})
    address, key = bytes(range(20)), bytes([2]) + bytes(range(32))
    for number, pubkey, kind, sequence in [(0, "", None, 0), (0, key.hex(), ETH_SECP256K1, 7), (3, key.hex(), None, 0),
                                           (9, key.hex(), SECP256K1, 2), (4, "", None, 11)]:
        record = [number, pubkey] + ([] if kind is None else [kind])
        message = auth_pb2.BaseAccount(address=to_bech32("chain", address), account_number=number, sequence=sequence)
        if pubkey:
            url = txs.SECP256K1_PUBKEY if kind == SECP256K1 else PUBKEY_TYPE_URL
            message.pub_key.CopyFrom(any_pb2.Any(type_url=url, value=ethsecp256k1.PubKey(key=key).SerializeToString()))
        assert _compact(keeper.base_account_json(address, orjson.dumps(record), sequence)) == _compact(to_json(message))
    assert keeper.base_account_json(address, orjson.dumps([1, "", ETH_SECP256K1, ["/x", ""]]), 0) is None


def test_bech32_is_the_bip173_encoding():
    assert to_bech32.__wrapped__("a", b"") == "a12uel5l"          # BIP-173's valid vectors
    for size in (0, 1, 19, 20, 21, 32, 33):
        for prefix in ("chain", "chainvaloper", "evmos", "a"):
            data = os.urandom(size)
            assert to_bech32.__wrapped__(prefix, data) == bech32.bech32_encode(prefix, bech32.convertbits(data, 8, 5))


def test_banks_export_is_each_holders_all_balances(busy):
    chain, _, _ = busy
    app = chain.app
    view = app.view()
    keeper = app.keepers["bank"]
    from chaind.chain.modules.bank.genesis import holders

    exported = export_document(app, view.height)["app_state"]["bank"]["balances"]
    slow = sorted(({"address": chain.b32(a), "coins": [{"denom": d, "amount": str(n)} for d, n in coins]}
                   for a in holders(app, view) if (coins := keeper.all_balances(view, a))),
                  key=lambda b: b["address"])
    assert _compact(exported) == _compact(slow)
    assert any(len(b["coins"]) > 1 for b in slow)       # the base denom (the EVM's) beside a native one
