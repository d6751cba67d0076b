"""The `chaind` client commands (keys, query, tx, debug, config) through the real entry point against a real node."""

import json
import os
import re
import subprocess
import sys

import pytest
import pytest_twisted

from chaind.cli import yamlout
from chaind.cli.main import main
from cli_driver import DEV0_B32, DEV_MNEMONIC, FEE, cli, failed, node_flag, ok
from evm_client import DEV0, DEV0_KEY
from helpers import in_thread, until_tx

OTHER_B32 = "chain1gv4f8d987c8cjzn2u6xxe4s9yxjeedfm4dst73"


# -- YAML as go-yaml prints it ---------------------------------------------------------------------

def test_yaml_matches_the_sdks_text_output():
    value = {"pagination": {"total": "1", "next_key": None},
             "balances": [{"denom": "aevmos", "amount": "1000000000000000000"}]}
    assert yamlout.dump(value) == ('balances:\n- amount: "1000000000000000000"\n  denom: aevmos\n'
                                   'pagination:\n  next_key: null\n  total: "1"\n')
    assert yamlout.dump({"token_pair": {"contract_owner": "OWNER_MODULE", "enabled": True, "denom": "aevmos",
                                        "erc20_address": "0xD4949664cD82660AaE99bEdc034a0deA8A0bd517"}}) == (
        "token_pair:\n  contract_owner: OWNER_MODULE\n  denom: aevmos\n  enabled: true\n"
        "  erc20_address: 0xD4949664cD82660AaE99bEdc034a0deA8A0bd517\n")
    # Strings that would read back as other types are quoted; indicators get single quotes.
    assert yamlout.dump({"a": "", "b": "true", "c": "1e5", "d": "2024-10-21T12:00:00Z", "e": "x: y", "f": "no",
                         "@type": "/x.Y", "g": [], "h": {}, "i": "it's", "j": "-x", "k": "a\tb"}) == (
        "'@type': /x.Y\na: \"\"\nb: \"true\"\nc: \"1e5\"\nd: \"2024-10-21T12:00:00Z\"\ne: 'x: y'\nf: \"no\"\n"
        "g: []\nh: {}\ni: it's\nj: -x\nk: \"a\\tb\"\n")
    # go-yaml folds a long plain scalar at the first space past column 80.
    long = "insufficient funds " * 6
    folded = yamlout.dump({"raw_log": long.strip()})
    assert folded.splitlines() == ["raw_log: " + " ".join(["insufficient funds"] * 4),
                                   "  insufficient funds insufficient funds"]


def test_help_lists_each_command_whole_never_cut_mid_phrase():
    groups = [[], ["tx"], ["q"], ["keys"], ["genesis"], ["debug"], ["config"]]
    groups += [["q", name] for name in ("bank", "staking", "gov", "distribution", "erc20", "evm")]
    groups += [["tx", name] for name in ("bank", "staking", "gov", "distribution", "erc20")]
    for group in groups:
        shown = ok(cli(*group, "--help")).stdout
        rows = {}
        for line in shown.split("\nCommands:\n", 1)[1].splitlines():
            if line.startswith("  ") and not line.startswith("   "):
                name, _, text = line.strip().partition(" ")
                rows[name] = text.strip()
            elif line.strip():
                rows[name] += " " + line.strip()
        for name, text in rows.items():
            command = main.get_command(None, group[0]) if group else main
            for part in group[1:] + [name]:
                command = command.get_command(None, part)
            # Whole: the command's own words (wrapping aside), ending where a sentence or its first paragraph ends.
            shown_text = re.sub(r"\s", "", text)
            paragraph = re.sub(r"\s", "", command.help.split("\n\n")[0])
            assert paragraph.startswith(shown_text) and (text.endswith(".") or shown_text == paragraph), \
                (group, name, text)
    assert "collect and validate them." in ok(cli("--help")).stdout
    assert "Send AMOUNT (e.g. " in ok(cli("tx", "bank", "--help")).stdout


# -- keys (no node) ----------------------------------------------------------------------------------

def test_keys_test_backend_add_recover_show_list_delete(tmp_path):
    home = ("--home", tmp_path, "--keyring-backend", "test")
    added = ok(cli("keys", "add", "alice", *home))
    words = added.stderr.strip().splitlines()[-1].split()
    assert len(words) == 24 and "**Important** write this mnemonic phrase" in added.stderr
    assert added.stdout.startswith("- address: chain1") and "  type: local\n" in added.stdout
    recovered = ok(cli("keys", "add", "dev0", "--recover", *home, "-o", "json", stdin=DEV_MNEMONIC + "\n"))
    doc = json.loads(recovered.stdout)
    assert doc["address"] == DEV0_B32 and doc["name"] == "dev0" and "mnemonic" not in doc
    assert json.loads(doc["pubkey"])["@type"] == "/cosmos.evm.crypto.v1.ethsecp256k1.PubKey"
    # The same mnemonic under another name derives the same account.
    again = ok(cli("keys", "add", "alice2", "--recover", *home, stdin=" ".join(words) + "\n"))
    assert again.stdout.splitlines()[0] == added.stdout.splitlines()[0]
    assert ok(cli("keys", "show", "dev0", "-a", *home)).stdout == DEV0_B32 + "\n"
    assert ok(cli("keys", "show", DEV0, "-a", *home)).stdout == DEV0_B32 + "\n"
    assert ok(cli("keys", "show", "dev0", "-a", "--bech", "val", *home)).stdout.startswith("chainvaloper1")
    listed = json.loads(ok(cli("keys", "list", *home, "-o", "json")).stdout)
    assert [k["name"] for k in listed] == ["alice", "alice2", "dev0"]
    assert ok(cli("keys", "unsafe-export-eth-key", "dev0", "-y", *home)).stdout.strip() == DEV0_KEY[2:].upper()
    failed(cli("keys", "add", "dev0", *home), "already exists")
    failed(cli("keys", "add", "bad", "--recover", *home, stdin="not a mnemonic\n"), "invalid mnemonic")
    ok(cli("keys", "delete", "alice2", "-y", *home))
    failed(cli("keys", "show", "alice2", *home), "alice2.info: key not found in the test keyring")
    # The default (file) keyring says where a key it lacks is, as users of the SDK's CLI expect.
    failed(cli("keys", "show", "dev0", "--home", tmp_path),
           "dev0.info: key not found in the file keyring; the test keyring has it: give --keyring-backend test")
    failed(cli("keys", "show", "nobody", "--home", tmp_path),
           "nobody.info: key not found in the file keyring (the default); give --keyring-backend test for the "
           "test keyring")
    failed(cli("keys", "show", "0x0000000000000000000000000000000000000001", *home), "no key with address")
    failed(cli("keys", "import-hex", "x", "1234", *home), "invalid private key")


@pytest.mark.slow
def test_keys_file_backend_is_encrypted_with_one_passphrase(tmp_path):
    home = ("--home", tmp_path, "--keyring-backend", "file")
    ok(cli("keys", "import-hex", "dev0", DEV0_KEY, *home, stdin="s3cret\ns3cret\n"))
    stored = (tmp_path / "keyring-file" / "dev0.json").read_text()
    assert DEV0_KEY[2:] not in stored and '"kdf": "scrypt"' in stored
    failed(cli("keys", "import-hex", "two", DEV0_KEY, *home, stdin="other\n"), "wrong keyring passphrase")
    failed(cli("keys", "unsafe-export-eth-key", "dev0", "-y", *home, stdin="nope\n"), "wrong keyring passphrase")
    assert ok(cli("keys", "unsafe-export-eth-key", "dev0", "-y", *home, stdin="s3cret\n")).stdout.strip() == \
        DEV0_KEY[2:].upper()
    failed(cli("keys", "add", "new", "--home", tmp_path / "b", "--keyring-backend", "file", stdin="a\nb\n"),
           "keyring passphrases don't match")
    # export writes a keystore another passphrase opens; import takes it back.
    exported = ok(cli("keys", "export", "dev0", *home, stdin="s3cret\nexp\nexp\n")).stdout
    (tmp_path / "dev0.keystore").write_text(exported)
    other = ("--home", tmp_path / "c", "--keyring-backend", "test")
    ok(cli("keys", "import", "back", tmp_path / "dev0.keystore", *other, stdin="exp\n"))
    assert ok(cli("keys", "show", "back", "-a", *other)).stdout.strip() == DEV0_B32


def test_dash_h_is_help_everywhere():
    for args in ([], ["tx", "bank", "send"], ["q", "bank", "balances"], ["keys", "add"]):
        shown = ok(cli(*args, "-h")).stdout
        assert shown.startswith("Usage: ") and "-h, --help" in shown, args


def test_debug_and_config_and_version(tmp_path):
    shown = ok(cli("debug", "addr", "0x7cB61D4117AE31a12E393a1Cfa3BaC666481D02E")).stdout
    assert "Address (EIP-55): 0x7cB61D4117AE31a12E393a1Cfa3BaC666481D02E" in shown
    assert "Bech32 Acc: chain10jmp6sgh4cc6zt3e8gw05wavvejgr5pw9sya8e" in shown
    assert "Address (hex): 7CB61D4117AE31A12E393A1CFA3BAC666481D02E" in ok(
        cli("debug", "addr", "chain10jmp6sgh4cc6zt3e8gw05wavvejgr5pw9sya8e")).stdout
    failed(cli("debug", "addr", "0x7cb61D4117AE31a12E393a1Cfa3BaC666481D02E"), "bad EIP-55 checksum")
    failed(cli("debug", "addr", "chain1nope"), "invalid address")
    assert ok(cli("debug", "raw-bytes", "[10 21 13 255]")).stdout == "0A150DFF\n"
    assert f"Address (EIP-55): {DEV0}" in ok(
        cli("debug", "pubkey", "A4MYU1tUEF1Keq5gwI/EX5aHGBtP38YlvRp1P6c5f+11")).stdout
    import chaind
    assert ok(cli("version")).stdout == chaind.__version__ + "\n"
    ok(cli("config", "set", "output", "json", "--home", tmp_path))
    assert ok(cli("config", "get", "output", "--home", tmp_path)).stdout == "json\n"
    failed(cli("config", "set", "output", "xml", "--home", tmp_path), "invalid output")
    failed(cli("config", "set", "colour", "x", "--home", tmp_path), "unknown setting")
    assert "_CHAIND_COMPLETE" in ok(cli("completion", "bash")).stdout


def test_the_cli_home_default_is_the_nodes():
    from chaind.cli.common import DEFAULT_HOME
    from chaind.home import DEFAULT_HOME as node_home
    assert os.path.expanduser(DEFAULT_HOME) == str(node_home)


def test_an_unreachable_node_is_one_clear_line():
    failed(cli("query", "bank", "balances", DEV0_B32, "--node", "tcp://127.0.0.1:9"),
           "could not reach node tcp://127.0.0.1:9")


def test_the_installed_entry_point_prints_no_traceback(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    run = subprocess.run([sys.executable, "-c", "from chaind.cli.main import main; main()", "query", "bank",
                          "balances", "nope", "--node", "tcp://127.0.0.1:9"], capture_output=True, text=True,
                         env=env)
    assert run.returncode == 1
    assert run.stderr == "Error: invalid address 'nope': neither bech32 nor 0x hex\n"


# -- against a node ----------------------------------------------------------------------------------

def run(*args, stdin=None):
    """The CLI blocks on HTTP, so it runs off the reactor like a real client."""
    return in_thread(lambda: cli(*args, stdin=stdin))


@pytest_twisted.inlineCallbacks
def test_queries_text_and_json(node):
    n = node_flag(node)
    text = ok((yield run("query", "bank", "balances", DEV0_B32, n))).stdout
    assert text.startswith('balances:\n- amount: "100000000000000000000000000"\n  denom: achain\n')
    assert text.endswith("pagination:\n  next_key: null\n  total: \"0\"\n")
    doc = json.loads(ok((yield run("q", "bank", "balances", DEV0, n, "-o", "json", "--count-total"))).stdout)
    assert doc["balances"][0] == {"denom": "achain", "amount": "100000000000000000000000000"}
    assert doc["pagination"] == {"next_key": None, "total": "3"}
    one = json.loads(ok((yield run("q", "bank", "balances", DEV0, n, "-o", "json", "--limit", "1"))).stdout)
    assert len(one["balances"]) == 1
    second = json.loads(ok((yield run("q", "bank", "balances", DEV0, n, "-o", "json", "--limit", "1",
                                      "--page-key", one["pagination"]["next_key"]))).stdout)
    assert second["balances"][0]["denom"].startswith("ibc/")
    assert json.loads(ok((yield run("q", "bank", "balances", DEV0, n, "-o", "json", "--limit", "1",
                                    "--page", "3"))).stdout)["balances"][0]["denom"] == "stake"
    assert json.loads(ok((yield run("q", "bank", "balances", DEV0, n, "-o", "json", "--denom", "stake"))).stdout) \
        == {"balance": {"denom": "stake", "amount": "1000000000000000000000"}}
    total = json.loads(ok((yield run("q", "bank", "total", n, "-o", "json"))).stdout)
    assert {c["denom"] for c in total["supply"]} >= {"achain", "stake"}
    meta = ok((yield run("q", "bank", "denom-metadata", "--denom", "achain", n))).stdout
    assert "  base: achain\n" in meta and "  display: chain\n" in meta
    account = json.loads(ok((yield run("q", "account", DEV0, n, "-o", "json"))).stdout)["account"]
    assert account["@type"] == "/cosmos.auth.v1beta1.BaseAccount" and account["address"] == DEV0_B32
    assert ok((yield run("q", "auth", "account", DEV0_B32, n))).stdout.startswith("account:\n  '@type': ")
    vals = json.loads(ok((yield run("q", "tendermint-validator-set", n, "-o", "json"))).stdout)
    assert vals["validators"][0]["address"].startswith("chainvalcons1")
    assert vals["validators"][0]["pub_key"]["@type"] == "/cosmos.crypto.ed25519.PubKey"
    assert vals["pagination"] == {"next_key": None, "total": "1"}
    block = json.loads(ok((yield run("q", "block", "1", n, "-o", "json"))).stdout)
    assert block["header"]["height"] == "1" and block["header"]["chain_id"] == "chain_9000-1"
    failed((yield run("q", "bank", "balances", "cosmos1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqnrql8a", n)),
           "hrp does not match bech32 prefix: expected 'chain' got 'cosmos'")
    failed((yield run("q", "bank", "denom-metadata", "--denom", "nothere", n)),
           "Error: rpc error: code = NotFound desc = client metadata for denom nothere")
    failed((yield run("q", "bank", "balances", DEV0, n, "--height", "99")),
           "height 99 must be less than or equal to the current blockchain height")
    failed((yield run("q", "tx", "00" * 32, n)), f"tx ({'00' * 32}) not found")
    failed((yield run("q", "block", "abc", n)), "is not a positive height")


@pytest_twisted.inlineCallbacks
def test_pruned_height_is_a_clear_error(node_factory, tmp_path):
    node = node_factory(storage={"pruning": 2, "prune_interval": 1})
    n = node_flag(node)
    keys_home = tmp_path / "cli"
    ok((yield run("keys", "import-hex", "dev0", DEV0_KEY, "--home", keys_home, "--keyring-backend", "test")))
    for _ in range(4):
        sent = ok((yield run("tx", "bank", "send", "dev0", OTHER_B32, "1achain", FEE, "-y", n, "--home", keys_home,
                             "--keyring-backend", "test", "-o", "json")))
        yield until_tx(node, json.loads(sent.stdout)["txhash"])
    assert node.app.height >= 5
    result = failed((yield run("q", "bank", "balances", DEV0_B32, n, "--height", "2")),
                    "failed to load state at height 2")
    assert "rpc error: code = InvalidArgument" in result.stderr


@pytest_twisted.inlineCallbacks
def test_flow_keys_send_query_tx_and_balances_at_two_heights(node, tmp_path):
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    ok((yield run("keys", "add", "dev0", "--recover", *keys, stdin=DEV_MNEMONIC + "\n")))
    bob = json.loads(ok((yield run("keys", "add", "bob", *keys, "-o", "json"))).stdout)["address"]
    before = node.app.height
    sent = ok((yield run("tx", "bank", "send", "dev0", bob, "1234achain", FEE, "--note", "hi", "-y", n, *keys,
                         "-o", "json")))
    txhash = json.loads(sent.stdout)["txhash"]
    yield until_tx(node, txhash)
    found = json.loads(ok((yield run("q", "tx", txhash, n, "-o", "json"))).stdout)
    assert found["code"] == 0 and found["height"] != "0" and found["tx"]["body"]["memo"] == "hi"
    message = found["tx"]["body"]["messages"][0]
    assert message == {"@type": "/cosmos.bank.v1beta1.MsgSend", "from_address": DEV0_B32, "to_address": bob,
                       "amount": [{"denom": "achain", "amount": "1234"}]}
    assert found["timestamp"].endswith("Z") and int(found["gas_used"]) > 0
    # The account now has the key it signed with, shown as `keys show` shows it.
    account = json.loads(ok((yield run("q", "account", DEV0_B32, n, "-o", "json"))).stdout)["account"]
    shown = json.loads(ok((yield run("keys", "show", "dev0", *keys, "-o", "json"))).stdout)
    assert account["pub_key"] == json.loads(shown["pubkey"])
    by_seq = json.loads(ok((yield run("q", "tx", "--type", "acc_seq", f"{DEV0_B32}/0", n, "-o", "json"))).stdout)
    assert by_seq["txhash"] == txhash
    signature = found["tx"]["signatures"][0]
    by_sig = json.loads(ok((yield run("q", "tx", "--type", "signature", signature, n, "-o", "json"))).stdout)
    assert by_sig["txhash"] == txhash
    height = int(found["height"])
    old = json.loads(ok((yield run("q", "bank", "balances", bob, n, "--height", before, "-o", "json"))).stdout)
    new = json.loads(ok((yield run("q", "bank", "balances", bob, n, "--height", height, "-o", "json"))).stdout)
    assert old["balances"] == [] and new["balances"] == [{"denom": "achain", "amount": "1234"}]
    searched = json.loads(ok((yield run("q", "txs", "--query", f"message.sender='{DEV0_B32}'", n,
                                        "-o", "json"))).stdout)
    assert searched["total_count"] == "1" and searched["txs"][0]["txhash"] == txhash
    # The older --events takes the same search, quoting the values itself.
    by_events = json.loads(ok((yield run("q", "txs", "--events", f"message.sender={DEV0_B32}&tx.height={height}",
                                         n, "-o", "json"))).stdout)
    assert [t["txhash"] for t in by_events["txs"]] == [txhash]
    failed((yield run("q", "txs", "--events", "message.sender", n)),
           "invalid event; event message.sender should be of the format: {eventType}.{eventAttribute}={value}")
    failed((yield run("q", "txs", n)), "give one of --query and --events")
    # An unquoted value: the node says where its parse stopped, the CLI says what to do.
    failed((yield run("q", "txs", "--query", f"message.sender={DEV0_B32}", n)),
           "put string values in single quotes")
    # Without -y the tx is shown and the answer decides.
    declined = ok((yield run("tx", "bank", "send", "dev0", bob, "1achain", FEE, n, *keys, stdin="n\n")))
    assert "canceled transaction" in declined.stderr and '"@type":"/cosmos.bank.v1beta1.MsgSend"' in declined.stderr
    # A failed check prints the response and fails the command.
    failed((yield run("tx", "bank", "send", "dev0", bob, "1achain", n, *keys, "-y")), "insufficient fees")
    failed((yield run("tx", "bank", "send", "nobody", bob, "1achain", n, *keys, "-y")), "nobody.info: key not found")
    failed((yield run("tx", "bank", "send", "dev0", "chain1bad", "1achain", n, *keys, "-y")), "invalid address")
    failed((yield run("tx", "bank", "send", "dev0", bob, "1achain", "--fees", "1achain", "--gas-prices", "1achain",
                      n, *keys, "-y")), "cannot provide both fees and gas prices")


@pytest_twisted.inlineCallbacks
def test_generate_only_sign_encode_decode_broadcast(node, tmp_path):
    n = node_flag(node)
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    ok((yield run("keys", "import-hex", "dev0", DEV0_KEY, *keys)))
    unsigned = ok((yield run("tx", "bank", "send", DEV0_B32, OTHER_B32, "5achain", "--generate-only",
                             "--gas-prices", "1000000000000.5achain", n, *keys))).stdout
    doc = json.loads(unsigned)
    assert doc["signatures"] == [] and doc["auth_info"]["signer_infos"] == []
    assert doc["auth_info"]["fee"] == {"amount": [{"denom": "achain", "amount": "200000000000100000"}],
                                       "gas_limit": "200000", "payer": "", "granter": ""}
    (tmp_path / "unsigned.json").write_text(unsigned)
    signed = ok((yield run("tx", "sign", tmp_path / "unsigned.json", "--from", "dev0", n, *keys))).stdout
    assert len(json.loads(signed)["signatures"]) == 1
    (tmp_path / "signed.json").write_text(signed)
    encoded = ok((yield run("tx", "encode", tmp_path / "signed.json"))).stdout.strip()
    assert json.loads(ok((yield run("tx", "decode", encoded))).stdout) == json.loads(signed)
    sent = json.loads(ok((yield run("tx", "broadcast", tmp_path / "signed.json", n, "-o", "json"))).stdout)
    assert sent["code"] == 0
    yield until_tx(node, sent["txhash"])
    found = json.loads(ok((yield run("q", "tx", sent["txhash"], n, "-o", "json"))).stdout)
    assert found["code"] == 0
    # Offline signing needs what the node would have said.
    failed((yield run("tx", "sign", tmp_path / "unsigned.json", "--from", "dev0", "--offline", *keys)),
           "--offline needs --chain-id")
    failed((yield run("tx", "broadcast", tmp_path / "unsigned.json", n)), "the tx is not signed")
    failed((yield run("tx", "decode", "!!")), "cannot decode the tx")


@pytest_twisted.inlineCallbacks
def test_gas_auto_simulates_through_the_node(node, tmp_path):
    keys = ("--home", tmp_path, "--keyring-backend", "test")
    n = node_flag(node)
    ok((yield run("keys", "import-hex", "dev0", DEV0_KEY, *keys)))
    result = ok((yield run("tx", "bank", "send", "dev0", OTHER_B32, "1achain", "--gas", "auto",
                           "--gas-adjustment", "1.5", FEE, "-y", "-o", "json", n, *keys)))
    estimated = int(result.stderr.split("estimated gas: ")[1].split()[0])
    sent = json.loads(result.stdout)
    assert sent["code"] == 0 and 20000 < estimated < 200000
    yield until_tx(node, sent["txhash"])
    found = json.loads(ok((yield run("q", "tx", sent["txhash"], n, "-o", "json"))).stdout)
    assert int(found["gas_wanted"]) == estimated and int(found["gas_used"]) <= estimated


@pytest_twisted.inlineCallbacks
def test_evm_raw_broadcasts_a_signed_ethereum_tx(node):
    from evm_client import sign

    signed = sign({"to": "0x" + "11" * 20, "value": 77, "nonce": 0, "maxFeePerGas": 10 ** 12})
    raw = signed.raw_transaction.hex()
    result = ok((yield run("tx", "evm", "raw", raw, node_flag(node), "-o", "json")))
    sent = json.loads(result.stdout)
    assert sent["code"] == 0
    assert f"evm hash: {signed.hash.to_0x_hex()}\n" in result.stderr
    yield until_tx(node, sent["txhash"])
    found = json.loads(ok((yield run("q", "tx", sent["txhash"], node_flag(node), "-o", "json"))).stdout)
    assert found["tx"]["body"]["messages"][0]["@type"] == "/ethermint.evm.v1.MsgEthereumTx"
    by_evm_hash = json.loads(ok((yield run("q", "tx", signed.hash.to_0x_hex(), node_flag(node), "-o",
                                           "json"))).stdout)
    assert by_evm_hash["txhash"] == sent["txhash"]
    failed((yield run("tx", "evm", "raw", "0xzz", node_flag(node))), "TX_HEX is not hex")


def test_init_dev_makes_a_dev_home_anywhere(tmp_path):
    from chaind.config import load
    from chaind.home import Home
    from chaind.node import open_node

    result = cli("init", "devbox", "--home", tmp_path / "dev", "--dev")
    ok(result)
    assert "a dev chain" in result.output
    home = Home(tmp_path / "dev")
    assert home.dev_keys() and home.dev_keys()[0].address.hex() == DEV0[2:].lower()
    assert "dev" in load(home.config_file).json_rpc.api.split(",")
    ok(cli("init", "plain", "--home", tmp_path / "plain"))
    assert Home(tmp_path / "plain").dev_keys() == []
    # twistd on an empty directory says how to make a home there.
    try:
        open_node(str(tmp_path / "empty"))
    except SystemExit as e:
        message = str(e)
    assert f"chaind init MONIKER --home {tmp_path / 'empty'}" in message and "--dev" in message
