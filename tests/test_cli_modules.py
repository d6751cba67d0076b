"""The `chaind` CLI's staking, erc20, evm and feemarket commands, the issue's full flow, and multisig,
through the real entry point against a real node."""

import base64
import json

import pytest_twisted
from eth_utils import to_checksum_address

from chain_driver import contract_address
from chaind.pb.cosmos.crypto.multisig.v1beta1 import multisig_pb2
from cli_driver import (
    CHAIN,
    DEV0_B32,
    DEV_MNEMONIC,
    FEE,
    STAKE_TOKEN,
    VALOPER,
    cli,
    committed,
    failed,
    js,
    new_consensus_key,
    node_flag,
    ok,
    run,
    send_tx,
    staking_node,
)
from contracts import token_init
from evm_client import DEV0, send, w3
from helpers import in_thread, until_height

GOV_B32 = "chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax"        # the gov module account


# -- queries -------------------------------------------------------------------------------------------

@pytest_twisted.inlineCallbacks
def test_staking_queries_text_and_json(node):
    n = node_flag(node)
    text = ok((yield run("q", "staking", "validators", n))).stdout
    # LegacyDec fields print as math.LegacyDec does, 18 decimals; durations and enums as jsonpb.
    assert "      rate: \"0.100000000000000000\"\n" in text and "  status: BOND_STATUS_BONDED\n" in text
    assert "  delegator_shares: \"1000000000000000000000.000000000000000000\"\n" in text
    one = js((yield run("q", "staking", "validator", VALOPER, n, "-o", "json")))["validator"]
    assert one["operator_address"] == VALOPER and one["tokens"] == str(1000 * CHAIN)
    assert one["commission"]["commission_rates"] == {"rate": "0.100000000000000000", "max_rate": "0.200000000000000000",
                                                     "max_change_rate": "0.010000000000000000"}
    assert one["consensus_pubkey"]["@type"] == "/cosmos.crypto.ed25519.PubKey"
    # A validator is named by valoper or by 0x.
    assert js((yield run("q", "staking", "validator", DEV0, n, "-o", "json")))["validator"] == one
    delegation = js((yield run("q", "staking", "delegation", DEV0, VALOPER, n, "-o", "json")))
    assert delegation["delegation_response"]["delegation"]["shares"] == "1000000000000000000000.000000000000000000"
    assert delegation["delegation_response"]["balance"] == {"denom": "achain", "amount": str(1000 * CHAIN)}
    for args, key in ((("delegations", DEV0_B32), "delegation_responses"),
                      (("delegations-to", VALOPER), "delegation_responses"),
                      (("unbonding-delegations", DEV0_B32), "unbonding_responses"),
                      (("unbonding-delegations-from", VALOPER), "unbonding_responses"),
                      (("redelegations", DEV0_B32), "redelegation_responses"),
                      (("delegator-validators", DEV0_B32), "validators")):
        doc = js((yield run("q", "staking", *args, n, "-o", "json")))
        assert isinstance(doc[key], list) and "pagination" in doc, args
    assert ok((yield run("q", "staking", "pool", n))).stdout == (
        f'pool:\n  bonded_tokens: "{1000 * CHAIN}"\n  not_bonded_tokens: "0"\n')
    params = ok((yield run("q", "staking", "params", n))).stdout
    assert "  bond_denom: achain\n" in params and "  unbonding_time: 1814400s\n" in params
    assert "  min_commission_rate: \"0.000000000000000000\"\n" in params and "  max_validators: 100\n" in params
    info = js((yield run("q", "staking", "historical-info", "1", n, "-o", "json")))
    assert info["hist"]["header"]["height"] == "1" and info["hist"]["valset"][0]["operator_address"] == VALOPER
    failed((yield run("q", "staking", "unbonding-delegation", DEV0, VALOPER, n)),
           "rpc error: code = NotFound")
    failed((yield run("q", "staking", "validator", "chainvaloper1nope", n)), "invalid address")
    failed((yield run("q", "staking", "validator", DEV0_B32, n)),
           "hrp does not match bech32 prefix: expected 'chainvaloper' got 'chain'")


@pytest_twisted.inlineCallbacks
def test_erc20_evm_feemarket_queries_text_and_json(node):
    n = node_flag(node)
    pair = ok((yield run("q", "erc20", "token-pair", "stake", n))).stdout
    assert pair == ("token_pair:\n  contract_owner: OWNER_MODULE\n  denom: stake\n  enabled: true\n"
                    f"  erc20_address: {STAKE_TOKEN}\n")
    assert js((yield run("q", "erc20", "token-pair", STAKE_TOKEN, n, "-o", "json")))["token_pair"]["denom"] == "stake"
    pairs = js((yield run("q", "erc20", "token-pairs", n, "-o", "json")))
    assert {p["denom"] for p in pairs["token_pairs"]} >= {"stake"} and "pagination" in pairs
    params = js((yield run("q", "erc20", "params", n, "-o", "json")))["params"]
    assert params["enable_erc20"] is True and STAKE_TOKEN in params["dynamic_precompiles"]
    failed((yield run("q", "erc20", "token-pair", "nothere", n)), "token pair with token 'nothere'")

    account = js((yield run("q", "evm", "account", DEV0_B32, n, "-o", "json")))
    assert set(account) == {"balance", "code_hash", "nonce"} and int(account["balance"]) > 0
    assert ok((yield run("q", "evm", "account", DEV0, n))).stdout.startswith('balance: "')
    code = js((yield run("q", "evm", "code", STAKE_TOKEN, n, "-o", "json")))
    assert set(code) == {"code"}
    storage = js((yield run("q", "evm", "storage", STAKE_TOKEN, "0x0", n, "-o", "json")))
    assert storage == {"value": "0x" + "00" * 32}
    evm_params = ok((yield run("q", "evm", "params", n))).stdout
    assert "  evm_denom: achain\n" in evm_params and "    london_block: \"0\"\n" in evm_params
    failed((yield run("q", "evm", "storage", STAKE_TOKEN, "0x" + "1" * 66, n)), "is not a hex storage key")

    fee = js((yield run("q", "feemarket", "base-fee", n, "-o", "json")))
    assert int(fee["base_fee"]) > 0
    fm = ok((yield run("q", "feemarket", "params", n))).stdout
    assert "  min_gas_multiplier: \"0.500000000000000000\"\n" in fm and "  no_base_fee: false\n" in fm
    assert "gas" in js((yield run("q", "feemarket", "block-gas", n, "-o", "json", "--height", "1")))


# -- the flow --------------------------------------------------------------------------------

@pytest_twisted.inlineCallbacks
def test_flow_keys_send_tx_balances_delegate_and_the_validator_set(node_factory, tmp_path):
    """keys add -> bank send -> query tx -> balances at two heights -> delegate -> the set two heights later."""
    node = staking_node(node_factory)
    yield until_height(node, 1)
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    ok((yield run("keys", "add", "dev0", "--recover", *keys, stdin=DEV_MNEMONIC + "\n")))
    bob = js((yield run("keys", "add", "bob", *keys, "-o", "json")))["address"]
    before = node.app.height
    sent = yield send_tx(n, keys, "bank", "send", "dev0", bob, f"{10 * CHAIN}achain")
    assert sent["tx"]["body"]["messages"][0]["to_address"] == bob
    height = int(sent["height"])
    old = js((yield run("q", "bank", "balances", bob, n, "--height", before, "-o", "json")))
    new = js((yield run("q", "bank", "balances", bob, n, "--height", height, "-o", "json")))
    assert old["balances"] == [] and new["balances"] == [{"denom": "achain", "amount": str(10 * CHAIN)}]

    power = js((yield run("q", "tendermint-validator-set", n, "-o", "json")))["validators"][0]["voting_power"]
    assert power == "1000"
    delegated = yield send_tx(n, keys, "staking", "delegate", VALOPER, f"{5 * CHAIN}achain", "--from", "bob")
    at = int(delegated["height"])
    yield until_height(node, at + 2)
    sets = []
    for h in (at, at + 1, at + 2):
        sets.append(js((yield run("q", "tendermint-validator-set", h, n, "-o", "json"))))
    assert [s["validators"][0]["voting_power"] for s in sets] == ["1000", "1000", "1005"]
    assert sets[2]["block_height"] == str(at + 2)
    mine = js((yield run("q", "staking", "delegation", bob, VALOPER, n, "-o", "json")))["delegation_response"]
    assert mine["balance"] == {"denom": "achain", "amount": str(5 * CHAIN)}


# -- staking and erc20 txs -------------------------------------------------------------------------------


@pytest_twisted.inlineCallbacks
def test_staking_txs_create_edit_delegate_unbond_redelegate(node, tmp_path):
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    for i in (1, 2):
        ok((yield run("keys", "import-hex", f"dev{i}", node.dev_keys[i].private_key.hex(), *keys)))
    val1 = js((yield run("keys", "show", "dev1", "--bech", "val", *keys, "-o", "json")))["address"]
    val2 = js((yield run("keys", "show", "dev2", "--bech", "val", *keys, "-o", "json")))["address"]
    # create-validator from flags, and from a validator.json as v0.50 takes it.
    yield send_tx(n, keys, "staking", "create-validator", "--from", "dev1", "--pubkey", new_consensus_key(),
                  "--amount", f"{2 * CHAIN}achain", "--moniker", "one", "--commission-rate", "0.05",
                  "--details", "first")
    (tmp_path / "validator.json").write_text(json.dumps({
        "pubkey": json.loads(new_consensus_key()), "amount": f"{3 * CHAIN}achain", "moniker": "two",
        "website": "https://two.example", "security": "", "details": "", "identity": "", "commission-rate": "0.1",
        "commission-max-rate": "0.2", "commission-max-change-rate": "0.01", "min-self-delegation": "1"}))
    created = yield send_tx(n, keys, "staking", "create-validator", tmp_path / "validator.json", "--from", "dev2")
    msg = created["tx"]["body"]["messages"][0]
    assert msg["@type"] == "/cosmos.staking.v1beta1.MsgCreateValidator" and msg["validator_address"] == val2
    assert msg["commission"]["rate"] == "0.100000000000000000" and msg["pubkey"]["@type"].endswith("ed25519.PubKey")
    one = js((yield run("q", "staking", "validator", val1, n, "-o", "json")))["validator"]
    assert one["description"]["moniker"] == "one" and one["description"]["details"] == "first"
    assert one["commission"]["commission_rates"]["rate"] == "0.050000000000000000"
    assert one["tokens"] == str(2 * CHAIN)
    two = js((yield run("q", "staking", "validator", val2, n, "-o", "json")))["validator"]
    assert two["description"]["website"] == "https://two.example"
    # edit-validator leaves what is not given.
    yield send_tx(n, keys, "staking", "edit-validator", "--from", "dev1", "--new-moniker", "uno",
                  "--min-self-delegation", "2")
    one = js((yield run("q", "staking", "validator", val1, n, "-o", "json")))["validator"]
    assert (one["description"]["moniker"], one["description"]["details"], one["min_self_delegation"]) == \
        ("uno", "first", "2")
    # delegate, unbond, redelegate.
    yield send_tx(n, keys, "staking", "delegate", val2, f"{4 * CHAIN}achain", "--from", "dev1")
    yield send_tx(n, keys, "staking", "unbond", val2, f"{1 * CHAIN}achain", "--from", "dev1")
    dev1 = "0x" + node.dev_keys[1].address.hex()
    unbonding = js((yield run("q", "staking", "unbonding-delegation", dev1, val2, n, "-o", "json")))
    assert unbonding["unbond"]["entries"][0]["balance"] == str(CHAIN)
    yield send_tx(n, keys, "staking", "redelegate", val2, val1, f"{1 * CHAIN}achain", "--from", "dev1")
    moved = js((yield run("q", "staking", "redelegations", dev1, n, "-o", "json")))["redelegation_responses"]
    assert moved[0]["redelegation"]["validator_src_address"] == val2
    assert moved[0]["entries"][0]["balance"] == str(CHAIN)
    held = js((yield run("q", "staking", "delegation", dev1, val2, n, "-o", "json")))["delegation_response"]
    assert held["balance"]["amount"] == str(2 * CHAIN)
    # The node's refusals are one clear line.
    # A message that fails in the block: the broadcast succeeds, the committed tx says why.
    again = js((yield run("tx", "staking", "create-validator", "--from", "dev1", "--pubkey", new_consensus_key(),
                          "--amount", f"{CHAIN}achain", "--moniker", "again", FEE, "-y", "-o", "json", n, *keys)))
    found = yield committed(n, again["txhash"])
    assert found["code"] != 0 and "validator already exist" in found["raw_log"]
    failed((yield run("tx", "staking", "create-validator", "--from", "dev1", "--pubkey", '{"@type":"x"}',
                      "--amount", "1achain", "--moniker", "m", FEE, "-y", n, *keys)), "invalid validator pubkey")
    failed((yield run("tx", "staking", "create-validator", "--from", "dev1", "--pubkey", new_consensus_key(),
                      "--moniker", "m", FEE, "-y", n, *keys)), "must specify the validator's amount")
    failed((yield run("tx", "staking", "edit-validator", "--from", "dev1", "--commission-rate", "x", FEE, "-y", n,
                      *keys)), "invalid commission rate")
    failed((yield run("tx", "staking", "delegate", val2, "0achain", "--from", "dev1", FEE, "-y", n, *keys)),
           "want one positive coin")


@pytest_twisted.inlineCallbacks
def test_multi_send_and_erc20_conversions_and_the_authority(node, tmp_path):
    n = node_flag(node)
    # Dev 1's ERC-20 (its first tx), for the conversions below.
    web3 = w3(node)
    token = to_checksum_address(contract_address(node.dev_keys[1].address, 0))
    receipt = yield in_thread(send, web3, {"data": token_init(10**24), "nonce": 0, "gas": 400000},
                              node.dev_keys[1].private_key)
    assert receipt.status == 1 and receipt.contractAddress == token
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    for i in (0, 1):
        ok((yield run("keys", "import-hex", f"dev{i}", node.dev_keys[i].private_key.hex(), *keys)))
    a = js((yield run("keys", "add", "a", *keys, "-o", "json")))["address"]
    b = js((yield run("keys", "add", "b", *keys, "-o", "json")))["address"]
    sent = yield send_tx(n, keys, "bank", "multi-send", "dev1", a, b, "7stake,3achain")
    message = sent["tx"]["body"]["messages"][0]
    assert message["inputs"][0]["coins"] == [{"denom": "achain", "amount": "6"}, {"denom": "stake", "amount": "14"}]
    for who in (a, b):
        balances = js((yield run("q", "bank", "balances", who, n, "-o", "json")))["balances"]
        assert balances == [{"denom": "achain", "amount": "3"}, {"denom": "stake", "amount": "7"}]
    yield send_tx(n, keys, "bank", "multi-send", "dev1", a, b, "9stake", "--split")
    assert js((yield run("q", "bank", "balance", a, "stake", n, "-o", "json")))["balance"]["amount"] == "11"

    # An external ERC-20 (dev 1's), registered by the authority, converted both ways.
    failed((yield run("tx", "erc20", "register-erc20", token, "--from", "dev1", FEE, "-y", n, *keys)),
           f"invalid authority; expected {GOV_B32} or {DEV0_B32}")
    yield send_tx(n, keys, "erc20", "register-erc20", token, "--from", "dev0")
    denom = f"erc20/{token}"
    assert js((yield run("q", "erc20", "token-pair", token, n, "-o", "json")))["token_pair"]["denom"] == denom
    dev1 = "0x" + node.dev_keys[1].address.hex()
    yield send_tx(n, keys, "erc20", "convert-erc20", token, "5000", "--from", "dev1")
    assert js((yield run("q", "bank", "balance", dev1, denom, n, "-o", "json")))["balance"]["amount"] == "5000"
    receiver = "0x" + "77" * 20
    yield send_tx(n, keys, "erc20", "convert-coin", f"2000{denom}", receiver, "--from", "dev1")
    assert js((yield run("q", "bank", "balance", dev1, denom, n, "-o", "json")))["balance"]["amount"] == "3000"
    held = yield in_thread(lambda: web3.eth.call({"to": token, "data": "0x70a08231" + "00" * 12 + "77" * 20}))
    assert int.from_bytes(held, "big") == 2000

    # register-erc20 and toggle-conversion are the authority's (dev 0); anyone else gets the node's refusal.
    failed((yield run("tx", "erc20", "toggle-conversion", "stake", "--from", "dev1", FEE, "-y", n, *keys)),
           "invalid authority")
    yield send_tx(n, keys, "erc20", "toggle-conversion", token, "--from", "dev0")
    assert js((yield run("q", "erc20", "token-pair", token, n, "-o", "json")))["token_pair"]["enabled"] is False
    refused = js((yield run("tx", "erc20", "convert-erc20", token, "1", "--from", "dev1", FEE, "-y", "-o", "json", n,
                            *keys)))
    found = yield committed(n, refused["txhash"])
    assert found["code"] != 0 and "disabled" in found["raw_log"]


# -- multisig, sign-batch, validate-signatures -----------------------------------------------------------

@pytest_twisted.inlineCallbacks
def test_multisig_two_of_three_sends_and_one_signature_is_refused(node, tmp_path):
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    ok((yield run("keys", "import-hex", "dev0", node.dev_keys[0].private_key.hex(), *keys)))
    for name in ("k1", "k2", "k3"):
        ok((yield run("keys", "add", name, *keys)))
    shown = js((yield run("keys", "add", "msig", "--multisig", "k1,k2,k3", "--multisig-threshold", "2", *keys,
                          "-o", "json")))
    assert shown["type"] == "multi"
    pubkey = json.loads(shown["pubkey"])
    assert pubkey["@type"] == "/cosmos.crypto.multisig.LegacyAminoPubKey" and pubkey["threshold"] == 2
    assert len(pubkey["public_keys"]) == 3
    msig = shown["address"]
    failed((yield run("keys", "add", "bad", "--multisig", "k1,k2", "--multisig-threshold", "3", *keys)),
           "threshold k of n multisignature: 2 < 3")
    failed((yield run("keys", "unsafe-export-eth-key", "msig", "-y", *keys)), "is a multisig key")
    yield send_tx(n, keys, "bank", "send", "dev0", msig, f"{CHAIN}achain")

    to = js((yield run("keys", "add", "to", *keys, "-o", "json")))["address"]
    unsigned = ok((yield run("tx", "bank", "send", "msig", to, "777achain", FEE, "--gas", "300000",
                             "--generate-only", n, *keys))).stdout
    (tmp_path / "unsigned.json").write_text(unsigned)
    failed((yield run("tx", "bank", "send", "msig", to, "1achain", FEE, "-y", n, *keys)),
           "msig is a multisig key: build the tx with --generate-only")
    for member in ("k1", "k3"):
        ok((yield run("tx", "sign", tmp_path / "unsigned.json", "--from", member, "--multisig", "msig", "--sign-mode",
                      "direct", "--multisig-signers", "k1,k3", "--output-document", tmp_path / f"{member}.json", n,
                      *keys)))
    signature = json.loads((tmp_path / "k1.json").read_text())["signatures"][0]
    assert signature["data"]["single"]["mode"] == "SIGN_MODE_DIRECT" and signature["sequence"] == "0"
    failed((yield run("tx", "sign", tmp_path / "unsigned.json", "--from", "dev0", "--multisig", "msig",
                      "--sign-mode", "direct", "--multisig-signers", "k1,k3", n, *keys)),
           "dev0 is not a member of the multisig msig")
    failed((yield run("tx", "sign", tmp_path / "unsigned.json", "--from", "k2", "--multisig", "msig",
                      "--sign-mode", "direct", n, *keys)), "--multisig --sign-mode direct needs --multisig-signers")
    # One signature is not enough, nor a signature made for another choice of signers.
    failed((yield run("tx", "multisign", tmp_path / "unsigned.json", "msig", tmp_path / "k1.json", n, *keys)),
           "1 signatures; the multisig needs 2")
    ok((yield run("tx", "sign", tmp_path / "unsigned.json", "--from", "k2", "--multisig", "msig", "--sign-mode",
                  "direct", "--multisig-signers", "k1,k2", "--output-document", tmp_path / "k2.json", n, *keys)))
    failed((yield run("tx", "multisign", tmp_path / "unsigned.json", "msig", tmp_path / "k1.json",
                      tmp_path / "k2.json", n, *keys)), "the signature of member")

    signed = ok((yield run("tx", "multisign", tmp_path / "unsigned.json", "msig", tmp_path / "k1.json",
                           tmp_path / "k3.json", n, *keys))).stdout
    (tmp_path / "signed.json").write_text(signed)
    info = json.loads(signed)["auth_info"]["signer_infos"][0]
    assert info["public_key"]["@type"] == "/cosmos.crypto.multisig.LegacyAminoPubKey"
    assert len(info["mode_info"]["multi"]["mode_infos"]) == 2
    checked = ok((yield run("tx", "validate-signatures", tmp_path / "signed.json", n, *keys))).stdout
    assert f"Signers:\n  0: {msig}\n" in checked and "[OK]" in checked

    # A 1-signature tx, put together by hand, is refused by the node.
    one = json.loads(signed)
    parts = multisig_pb2.MultiSignature.FromString(base64.b64decode(one["signatures"][0])).signatures
    one["signatures"] = [base64.b64encode(multisig_pb2.MultiSignature(signatures=parts[:1]).SerializeToString())
                         .decode()]
    (tmp_path / "one.json").write_text(json.dumps(one))
    failed((yield run("tx", "validate-signatures", tmp_path / "one.json", n, *keys)), "signatures validation failed")
    failed((yield run("tx", "broadcast", tmp_path / "one.json", n)), "signature size is incorrect 1")

    sent = js((yield run("tx", "broadcast", tmp_path / "signed.json", n, "-o", "json")))
    found = yield committed(n, sent["txhash"])
    assert found["code"] == 0, found["raw_log"]
    assert js((yield run("q", "bank", "balances", to, n, "-o", "json")))["balances"] == [
        {"denom": "achain", "amount": "777"}]


@pytest_twisted.inlineCallbacks
def test_multisig_members_sign_amino_json_without_naming_the_signers(node, tmp_path):
    """amino-json is --multisig's default, as in the SDK: the doc holds no signer choice, so any two members'
    signatures join; the node checks each member's LEGACY_AMINO_JSON signature."""
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    ok((yield run("keys", "import-hex", "dev0", node.dev_keys[0].private_key.hex(), *keys)))
    for name in ("k1", "k2", "k3"):
        ok((yield run("keys", "add", name, *keys)))
    msig = js((yield run("keys", "add", "msig", "--multisig", "k1,k2,k3", "--multisig-threshold", "2", *keys,
                         "-o", "json")))["address"]
    yield send_tx(n, keys, "bank", "send", "dev0", msig, f"{CHAIN}achain")
    to = js((yield run("keys", "add", "to", *keys, "-o", "json")))["address"]
    unsigned = ok((yield run("tx", "bank", "send", "msig", to, "555achain", FEE, "--gas", "300000",
                             "--generate-only", "--note", "two of three", n, *keys))).stdout
    (tmp_path / "unsigned.json").write_text(unsigned)
    for member in ("k2", "k3"):
        ok((yield run("tx", "sign", tmp_path / "unsigned.json", "--from", member, "--multisig", "msig",
                      "--output-document", tmp_path / f"{member}.json", n, *keys)))
    signature = json.loads((tmp_path / "k2.json").read_text())["signatures"][0]
    assert signature["data"]["single"]["mode"] == "SIGN_MODE_LEGACY_AMINO_JSON"
    failed((yield run("tx", "sign", tmp_path / "unsigned.json", "--from", "k1", "--multisig", "msig",
                      "--multisig-signers", "k1,k2", n, *keys)), "--multisig-signers is for --sign-mode direct")
    signed = ok((yield run("tx", "multisign", tmp_path / "unsigned.json", "msig", tmp_path / "k2.json",
                           tmp_path / "k3.json", n, *keys))).stdout
    (tmp_path / "signed.json").write_text(signed)
    modes = json.loads(signed)["auth_info"]["signer_infos"][0]["mode_info"]["multi"]["mode_infos"]
    assert [m["single"]["mode"] for m in modes] == ["SIGN_MODE_LEGACY_AMINO_JSON"] * 2
    assert "[OK]" in ok((yield run("tx", "validate-signatures", tmp_path / "signed.json", n, *keys))).stdout
    sent = js((yield run("tx", "broadcast", tmp_path / "signed.json", n, "-o", "json")))
    found = yield committed(n, sent["txhash"])
    assert found["code"] == 0, found["raw_log"]
    assert js((yield run("q", "bank", "balances", to, n, "-o", "json")))["balances"] == [
        {"denom": "achain", "amount": "555"}]


@pytest_twisted.inlineCallbacks
def test_sign_mode_amino_json_on_tx_commands_and_offline_sign(node, tmp_path):
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    ok((yield run("keys", "import-hex", "dev0", node.dev_keys[0].private_key.hex(), *keys)))
    to = js((yield run("keys", "add", "to", *keys, "-o", "json")))["address"]
    sent = js((yield run("tx", "bank", "send", "dev0", to, "3achain", FEE, "--sign-mode", "amino-json", "-y",
                         "-o", "json", n, *keys)))
    found = yield committed(n, sent["txhash"])
    assert found["code"] == 0, found["raw_log"]
    assert found["tx"]["auth_info"]["signer_infos"][0]["mode_info"]["single"]["mode"] == \
        "SIGN_MODE_LEGACY_AMINO_JSON"
    # tx sign --offline: chain id, account number and sequence from the flags, not the node.
    unsigned = ok((yield run("tx", "bank", "send", "dev0", to, "4achain", FEE, "--generate-only", n, *keys))).stdout
    (tmp_path / "unsigned.json").write_text(unsigned)
    account = node.app.view()
    number = node.app.keepers["auth"].account(account, node.dev_keys[0].address)[0]
    sequence = account.accounts.get_nonce(node.dev_keys[0].address)
    signed = ok((yield run("tx", "sign", tmp_path / "unsigned.json", "--from", "dev0", "--offline", "--sign-mode",
                           "amino-json", "--chain-id", node.genesis.chain_id, "--account-number", str(number),
                           "--sequence", str(sequence), "--node", "127.0.0.1:1", *keys))).stdout
    (tmp_path / "signed.json").write_text(signed)
    sent = js((yield run("tx", "broadcast", tmp_path / "signed.json", n, "-o", "json")))
    assert (yield committed(n, sent["txhash"]))["code"] == 0


@pytest_twisted.inlineCallbacks
def test_sign_batch_signs_consecutive_sequences(node, tmp_path):
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    ok((yield run("keys", "import-hex", "dev0", node.dev_keys[0].private_key.hex(), *keys)))
    lines = []
    for amount in (1, 2, 3):
        lines.append(ok((yield run("tx", "bank", "send", DEV0_B32, "chain1gv4f8d987c8cjzn2u6xxe4s9yxjeedfm4dst73",
                                   f"{amount}achain", FEE, "--generate-only", n, *keys))).stdout.strip())
    (tmp_path / "batch.json").write_text("\n".join(lines) + "\n")
    signed = ok((yield run("tx", "sign-batch", tmp_path / "batch.json", "--from", "dev0", n, *keys))).stdout
    txs = [json.loads(line) for line in signed.splitlines()]
    assert [t["auth_info"]["signer_infos"][0]["sequence"] for t in txs] == ["0", "1", "2"]
    hashes = []
    for i, doc in enumerate(txs):
        (tmp_path / f"s{i}.json").write_text(json.dumps(doc))
        if i == 0:
            checked = ok((yield run("tx", "validate-signatures", tmp_path / "s0.json", n, *keys))).stdout
            assert f"  0: {DEV0_B32}" in checked and "[OK]" in checked and "MISMATCH" not in checked
        hashes.append(js((yield run("tx", "broadcast", tmp_path / f"s{i}.json", n, "-o", "json")))["txhash"])
    for txhash in hashes:
        assert (yield committed(n, txhash))["code"] == 0
    failed((yield run("tx", "sign-batch", tmp_path / "nothing.json", "--from", "dev0", n, *keys)), "cannot read")


def test_register_coin_says_how_native_coins_are_paired():
    result = cli("tx", "erc20", "register-coin", "uatom", "--from", "dev0")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: there is no coin registration message") and "genesis" in result.stderr
