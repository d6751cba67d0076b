"""CLI habits of the SDK v0.50 and Evmos binaries: `q auth accounts` / `module-accounts` (and account-info,
module-account), `--dry-run`, `--timeout-height`, `keys unsafe-import-eth-key`, `tx gov submit-legacy-proposal`
and the interactive `tx gov draft-proposal`."""

import json
import os

import pytest_twisted

from chaind.crypto import addresses
from cli_driver import DEV0_B32, FEE, committed, failed, js, node_flag, ok, run
from evm_client import DEV0_KEY, OTHER

OTHER_B32 = addresses.to_bech32("chain", bytes.fromhex(OTHER[2:]))
GOV_B32 = addresses.to_bech32("chain", addresses.module_address("gov"))


def _keys(tmp_path):
    return ("--home", tmp_path / "cli", "--keyring-backend", "test")


@pytest_twisted.inlineCallbacks
def test_auth_lists_accounts_and_module_accounts(node):
    n = node_flag(node)
    listed = js((yield run("q", "auth", "accounts", n, "-o", "json", "--limit", "3", "--count-total")))
    assert len(listed["accounts"]) == 3 and int(listed["pagination"]["total"]) >= 10
    assert listed["pagination"]["next_key"]
    every = js((yield run("q", "auth", "accounts", n, "-o", "json", "--limit", "1000")))["accounts"]
    plain = [a for a in every if a["@type"] == "/cosmos.auth.v1beta1.BaseAccount"]
    assert DEV0_B32 in [a["address"] for a in plain]
    modules = js((yield run("q", "auth", "module-accounts", n, "-o", "json")))["accounts"]
    assert all(a["@type"] == "/cosmos.auth.v1beta1.ModuleAccount" for a in modules)
    gov = next(a for a in modules if a["name"] == "gov")
    assert gov["base_account"]["address"] == GOV_B32 and gov["permissions"] == ["burner"]
    assert [a["name"] for a in modules] == sorted(a["name"] for a in modules)
    one = js((yield run("q", "auth", "module-account", "gov", n, "-o", "json")))["account"]
    assert one == gov
    info = js((yield run("q", "auth", "account-info", DEV0_B32, n, "-o", "json")))["info"]
    assert info["address"] == DEV0_B32 and info["account_number"] == "0"
    failed((yield run("q", "auth", "module-account", "nosuch", n)), "account nosuch not found")


@pytest_twisted.inlineCallbacks
def test_dry_run_prints_the_gas_estimate_and_sends_nothing(node, tmp_path):
    n, keys = node_flag(node), _keys(tmp_path)
    ok((yield run("keys", "unsafe-import-eth-key", "dev0", DEV0_KEY, *keys)))

    def dry_run(sender):
        return run("tx", "bank", "send", sender, OTHER_B32, "1achain", FEE, "--dry-run", n, *keys)

    def estimated(result):
        estimate = ok(result).stderr.strip().splitlines()[-1]
        assert estimate.startswith("gas estimate: ") and result.stdout == "", (result.stdout, result.stderr)
        return int(estimate.split(": ")[1])

    assert estimated((yield dry_run("dev0"))) > 21000
    account = js((yield run("q", "auth", "account", DEV0_B32, n, "-o", "json")))["account"]
    assert account["sequence"] == "0"
    assert js((yield run("q", "bank", "balances", OTHER_B32, n, "-o", "json")))["balances"] == []
    # From an address, with no key: the key the node holds for the account, once it has one.
    failed((yield dry_run(DEV0_B32)), f"{DEV0_B32} has no public key on chain yet (it has signed no tx) and its key "
                                      "is not in the keyring: simulate with the key's name as --from")
    sent = js((yield run("tx", "bank", "send", "dev0", OTHER_B32, "1achain", FEE, "-y", "-o", "json", n, *keys)))
    assert (yield committed(n, sent["txhash"]))["code"] == 0
    assert estimated((yield dry_run(DEV0_B32))) > 21000
    assert js((yield run("q", "bank", "balances", OTHER_B32, n, "-o", "json")))["balances"] == [
        {"denom": "achain", "amount": "1"}]
    failed((yield run("tx", "bank", "send", DEV0_B32, OTHER_B32, "1achain", FEE, "--dry-run", "--offline",
                      "--chain-id", "chain_9000-1", "--account-number", "0", "--sequence", "1", *keys)),
           "cannot estimate gas in offline mode")


@pytest_twisted.inlineCallbacks
def test_timeout_height_is_signed_and_a_passed_one_is_refused(node, tmp_path):
    n, keys = node_flag(node), _keys(tmp_path)
    ok((yield run("keys", "unsafe-import-eth-key", "dev0", DEV0_KEY, *keys)))
    unsigned = js((yield run("tx", "bank", "send", "dev0", OTHER_B32, "1achain", FEE, "--generate-only",
                             "--timeout-height", "99", n, *keys)))
    assert unsigned["body"]["timeout_height"] == "99"
    height = node.app.height
    failed((yield run("tx", "bank", "send", "dev0", OTHER_B32, "1achain", FEE, "-y", "--timeout-height", "1", n,
                      *keys)), f"code 30 (sdk): block height: {height + 1}, timeout height: 1: tx timeout height")
    sent = js((yield run("tx", "bank", "send", "dev0", OTHER_B32, "1achain", FEE, "-y", "-o", "json",
                         "--timeout-height", str(height + 100), n, *keys)))
    found = yield committed(n, sent["txhash"])
    assert found["code"] == 0 and found["tx"]["body"]["timeout_height"] == str(height + 100)


@pytest_twisted.inlineCallbacks
def test_unsafe_import_eth_key_stores_the_key_as_import_hex_does(tmp_path):
    keys = _keys(tmp_path)
    ok((yield run("keys", "unsafe-import-eth-key", "mine", "0x" + DEV0_KEY.removeprefix("0x"), *keys)))
    assert js((yield run("keys", "show", "mine", "-o", "json", *keys)))["address"] == DEV0_B32
    failed((yield run("keys", "unsafe-import-eth-key", "mine", DEV0_KEY, *keys)), "already exists")
    failed((yield run("keys", "unsafe-import-eth-key", "bad", "12", *keys)), "invalid private key")


@pytest_twisted.inlineCallbacks
def test_submit_legacy_proposal_from_flags_or_a_file(node, tmp_path):
    n, keys = node_flag(node), _keys(tmp_path)
    ok((yield run("keys", "unsafe-import-eth-key", "dev0", DEV0_KEY, *keys)))

    def submit(*args):
        return run("tx", "gov", "submit-legacy-proposal", *args, "--from", "dev0", FEE, "--gas", "400000", "-y",
                   "-o", "json", n, *keys)

    sent = js((yield submit("--title", "Test Proposal", "--description", "My awesome proposal", "--type", "text",
                            "--deposit", "10achain")))
    found = yield committed(n, sent["txhash"])
    assert found["code"] == 0, found["raw_log"]
    message = found["tx"]["body"]["messages"][0]
    assert message["@type"] == "/cosmos.gov.v1beta1.MsgSubmitProposal"
    assert message["content"] == {"@type": "/cosmos.gov.v1beta1.TextProposal", "title": "Test Proposal",
                                  "description": "My awesome proposal"}
    shown = js((yield run("q", "gov", "proposal", "1", n, "-o", "json")))["proposal"]
    assert shown["title"] == "Test Proposal" and shown["summary"] == "My awesome proposal"

    path = tmp_path / "proposal.json"
    path.write_text(json.dumps({"title": "From a file", "description": "d", "type": "Text", "deposit": "10achain"}))
    found = yield committed(n, js((yield submit("--proposal", path)))["txhash"])
    assert found["code"] == 0, found["raw_log"]
    assert js((yield run("q", "gov", "proposal", "2", n, "-o", "json")))["proposal"]["title"] == "From a file"
    failed((yield submit("--proposal", path, "--title", "x")),
           "failed to parse proposal: --title flag provided alongside --proposal, which is a noop")
    failed((yield submit("--title", "t", "--description", "d")), "failed to parse proposal: proposal type is required")
    failed((yield submit("--title", "t", "--description", "d", "--type", "Upgrade")),
           "failed to create proposal content: unknown proposal type Upgrade")


@pytest_twisted.inlineCallbacks
def test_draft_proposal_asks_as_the_sdks_does(tmp_path):
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        answers = "software-upgrade\nUpgrade v2\nme\nTo v2\nDetails\nhttps://forum\nyes: upgrade\nnot coins\n" \
                  "10achain\n\n"
        result = ok((yield run("tx", "gov", "draft-proposal", stdin=answers)))
    finally:
        os.chdir(here)
    assert "The draft proposal has successfully been generated." in result.stdout
    assert "Enter proposal vote option context" in result.stdout and "Enter msg authority" in result.stdout
    draft = json.loads((tmp_path / "draft_proposal.json").read_text())
    assert draft == {"messages": [{"@type": "/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade", "authority": GOV_B32,
                                   "plan": None}],
                     "metadata": "ipfs://CID", "deposit": "10achain", "title": "Upgrade v2", "summary": "To v2",
                     "expedited": False}
    assert json.loads((tmp_path / "draft_metadata.json").read_text()) == {
        "title": "Upgrade v2", "authors": ["me"], "summary": "To v2", "details": "Details",
        "proposal_forum_url": "https://forum", "vote_option_context": "yes: upgrade"}
    assert (tmp_path / "draft_proposal.json").stat().st_mode & 0o777 == 0o600
    # A text proposal with --skip-metadata: title and summary alone, no messages, no metadata file.
    out = tmp_path / "text" / "p.json"
    out.parent.mkdir()
    ok((yield run("tx", "gov", "draft-proposal", "--skip-metadata", "--output", out, stdin="text\nT\nS\n5achain\n")))
    assert json.loads(out.read_text()) == {"metadata": "ipfs://CID", "deposit": "5achain", "title": "T",
                                           "summary": "S", "expedited": False}
    assert not (out.parent / "draft_metadata.json").exists()
