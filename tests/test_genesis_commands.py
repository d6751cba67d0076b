"""A chain of one's own, the SDK's way: `chaind init` (not --dev), then `chaind genesis add-genesis-account`,
`gentx`, `collect-gentxs` and `validate` through the real entry point; the node starts with the gentx's
validator bonded at height 1 and makes blocks with it."""

import hashlib
import json

import pytest
import pytest_twisted
from click.testing import CliRunner

from chaind.chain import authority
from chaind.chain.genesis import Genesis
from chaind.cli.main import main
from chaind.crypto.addresses import parse, to_bech32
from chaind.home import Home
from chaind.pb.cosmos.staking.v1beta1 import query_pb2 as sq
from chaind.pb.cosmos.staking.v1beta1 import query_pb2_grpc as sq_grpc
from helpers import call, chaind_process, in_thread, make_node, rest, until_height

STAKE = 1_000_000_000_000_000_000_000       # 1000 chain, bonded by the gentx
FUNDS = 1_000_000 * 10**18


def run(*args, input=None):
    """A `chaind` command that must succeed: its CompletedProcess."""
    result = chaind_process(*args, input=input)
    assert result.returncode == 0, (args, result.stdout, result.stderr)
    return result


def fails(text, *args):
    """A `chaind` command (in this process) that must fail with one line holding `text`."""
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code != 0, (args, result.stdout)
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("Error: ") and text in lines[-1], result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def ok(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, (args, result.stdout, result.stderr, result.exception)
    return result


def keyring(home):
    return ("--home", home, "--keyring-backend", "test")


def make_chain(home):
    """A home initialised as a user would: one key funded, its gentx collected. Returns the key's address."""
    out = run("init", "mine", "--home", home, "--chain-id", "mine_7777-1")
    assert "chaind genesis add-genesis-account" in out.stdout
    added = json.loads(run("keys", "add", "val", "--output", "json", *keyring(home)).stdout)
    run("genesis", "add-genesis-account", "val", f"{FUNDS}achain", *keyring(home))
    written = run("genesis", "gentx", "val", f"{STAKE}achain", "--chain-id", "mine_7777-1",
                  "--commission-rate", "0.05", *keyring(home))
    assert written.stderr.startswith('Genesis transaction written to "') and "/config/gentx/gentx-" in written.stderr
    collected = run("genesis", "collect-gentxs", "--home", home)
    info = json.loads(collected.stderr)
    assert (info["chain_id"], info["moniker"]) == ("mine_7777-1", "mine") and info["app_message"]["genutil"]
    assert run("genesis", "validate", "--home", home).stdout.strip() == \
        f"File at {Home(home).genesis_file} is a valid genesis file"
    assert run("genesis", "validate-genesis", "--home", home).returncode == 0
    return added["address"]


@pytest.mark.slow
def test_init_without_dev_funds_no_one_and_names_gov_the_only_authority(tmp_path):
    home = tmp_path / "home"
    run("init", "mine", "--home", home)
    genesis = Genesis.load(Home(home).genesis_file)
    assert genesis.balances == () and genesis.validators == () and genesis.gen_txs == ()
    assert genesis.erc20_authority in (b"", authority.GOV)
    assert not (Home(home).config_dir / "dev-mnemonic.txt").exists()
    assert 'moniker = "mine"' in Home(home).config_file.read_text()
    # A dev home says what it funds and who else is an authority.
    dev = run("init", "devnode", "--home", tmp_path / "dev", "--dev").stdout
    assert "dev-mnemonic.txt" in dev and "dev account 0" in dev and "erc20" in dev
    assert Genesis.load(Home(tmp_path / "dev").genesis_file).erc20_authority not in (b"", authority.GOV)


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_a_chain_made_with_the_genesis_commands_starts_with_the_gentx_validator(tmp_path):
    home = tmp_path / "home"
    address = yield in_thread(make_chain, home)
    genesis = Genesis.load(Home(home).genesis_file)
    assert genesis.validators == () and len(genesis.gen_txs) == 1
    node = make_node(home, chain={"block_interval": 0.05, "empty_blocks": True})
    node.startService()
    try:
        yield until_height(node, 3)
        assert node.app.height >= 3
        consensus_key = Home(home).validator_public_key()
        # The gentx's validator signs from height 1: the proposer of every block, the one member of the set.
        for height in range(1, 4):
            header, _ = node.app.block_at(height)
            assert header.proposer_address == hashlib.sha256(consensus_key).digest()[:20]
            assert [v.pubkey for v in node.app.validator_set(height)] == [consensus_key]
        operator = to_bech32("chainvaloper", parse(address, "chain"))
        request = sq.QueryValidatorRequest(validator_addr=operator)
        response, _ = yield call(node, sq_grpc.QueryStub, "Validator", request)
        validator = response.validator
        assert (validator.status, validator.tokens, validator.description.moniker) == (3, str(STAKE), "mine")
        assert validator.commission.commission_rates.rate == "50000000000000000"
    finally:
        yield node.stopService()


def test_the_genesis_commands_refuse_as_the_sdk_does(tmp_path):
    home = tmp_path / "home"
    ok("init", "mine", "--home", home)
    ok("keys", "add", "val", *keyring(home))
    ok("keys", "add", "poor", *keyring(home))
    fails("failed to get genesis app state from config: there must be at least one genesis tx",
          "genesis", "collect-gentxs", "--home", home)
    fails("failed to validate account in genesis: account", "genesis", "gentx", "val", "1achain", *keyring(home))
    ok("genesis", "add-genesis-account", "val", f"{FUNDS}achain", *keyring(home))
    address = json.loads(ok("keys", "show", "val", "--output", "json", *keyring(home)).stdout)["address"]
    fails(f"cannot add account at existing address {address}",
          "genesis", "add-genesis-account", address, "1achain", *keyring(home))
    ok("genesis", "add-genesis-account", address, "5stake", "--append", *keyring(home))
    balances = Genesis.load(Home(home).genesis_file).balances
    assert balances[0][1] == (("achain", FUNDS), ("stake", 5))
    # As the SDK writes it: the account in auth's genesis (once), its coins in bank's.
    assert json.loads(Home(home).genesis_file.read_text())["app_state"]["auth"]["accounts"] == [
        {"@type": "/cosmos.auth.v1beta1.BaseAccount", "address": address, "pub_key": None, "account_number": "0",
         "sequence": "0"}]
    fails("failed to get address from Keyring: nobody.info: key not found",
          "genesis", "add-genesis-account", "nobody", "1achain", *keyring(home))
    fails("failed to parse coins", "genesis", "add-genesis-account", "poor", "ten-achain", *keyring(home))
    ok("genesis", "add-genesis-account", "poor", "10achain", *keyring(home))
    fails("has a balance in genesis, but it only has 10achain available to stake, not 11achain",
          "genesis", "gentx", "poor", "11achain", *keyring(home))
    fails("--chain-id other_1-1 is not the genesis' chain id chain_9000-1",
          "genesis", "gentx", "val", f"{STAKE}achain", "--chain-id", "other_1-1", *keyring(home))
    ok("genesis", "gentx", "val", f"{STAKE}achain", *keyring(home))
    fails("file exists", "genesis", "gentx", "val", f"{STAKE}achain", *keyring(home))
    # A genesis without a validator cannot start a chain, and the node says so in one line.
    with pytest.raises(SystemExit, match="validator set is empty after InitGenesis"):
        make_node(home)
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    fails(f"error unmarshalling genesis doc {broken}", "genesis", "validate", broken)
    doc = json.loads(Home(home).genesis_file.read_text())
    doc["app_state"]["genutil"]["gen_txs"] = [{"body": {"messages": []}}]
    broken.write_text(json.dumps(doc))
    fails("must provide genesis transaction with at least one message", "genesis", "validate", broken)


def test_vesting_accounts_declared_in_genesis(tmp_path):
    """add-genesis-account --vesting-amount/--vesting-start-time/--vesting-end-time writes the SDK's vesting account
    types into app_state.auth.accounts; the chain starts with them locked as their schedule says."""
    home = tmp_path / "home"
    ok("init", "mine", "--home", home, "--dev")
    for name in ("cont", "delay", "bad"):
        ok("keys", "add", name, *keyring(home))
    genesis_time = Genesis.load(Home(home).genesis_file).genesis_time_ns // 10**9
    start, end = genesis_time - 100, genesis_time + 100
    ok("genesis", "add-genesis-account", "cont", "1000achain", "--vesting-amount", "400achain",
       "--vesting-start-time", start, "--vesting-end-time", end, *keyring(home))
    ok("genesis", "add-genesis-account", "delay", "1000achain", "--vesting-amount", "1000achain",
       "--vesting-end-time", end, *keyring(home))
    fails("vesting amount cannot be greater than total amount", "genesis", "add-genesis-account", "bad",
          "10achain", "--vesting-amount", "11achain", "--vesting-end-time", end, *keyring(home))
    fails("invalid vesting parameters; must supply start and end time or end time", "genesis",
          "add-genesis-account", "bad", "10achain", "--vesting-amount", "1achain", *keyring(home))
    fails("vesting start-time cannot be before end-time", "genesis", "add-genesis-account", "bad", "10achain",
          "--vesting-amount", "1achain", "--vesting-start-time", end, "--vesting-end-time", start, *keyring(home))
    doc = json.loads(Home(home).genesis_file.read_text())
    declared = doc["app_state"]["auth"]["accounts"]
    assert [a["@type"] for a in declared] == ["/cosmos.vesting.v1beta1.ContinuousVestingAccount",
                                              "/cosmos.vesting.v1beta1.DelayedVestingAccount"]
    cont = json.loads(ok("keys", "show", "cont", "--output", "json", *keyring(home)).stdout)["address"]
    assert declared[0] == {"@type": "/cosmos.vesting.v1beta1.ContinuousVestingAccount", "base_vesting_account": {
        "base_account": {"address": cont, "pub_key": None, "account_number": "0", "sequence": "0"},
        "original_vesting": [{"denom": "achain", "amount": "400"}], "delegated_free": [], "delegated_vesting": [],
        "end_time": str(end)}, "start_time": str(start)}
    assert "is a valid genesis file" in ok("genesis", "validate", "--home", home).stdout
    node = make_node(home)
    try:
        view = node.app.view()
        delay = json.loads(ok("keys", "show", "delay", "--output", "json", *keyring(home)).stdout)["address"]
        url, account = node.app.keepers["auth"].vesting_account(view, parse(cont, "chain"))
        assert url.endswith("ContinuousVestingAccount") and account.start_time == start
        # Halfway through at genesis: 200 of the 400 still locked; the delayed account is locked whole.
        assert node.app.keepers["auth"].locked_coins(view, parse(cont, "chain"), genesis_time) == {"achain": 200}
        assert node.app.keepers["auth"].locked_coins(view, parse(delay, "chain"), genesis_time) == {"achain": 1000}
        assert node.app.keepers["auth"].locked_coins(view, parse(delay, "chain"), end) == {}
    finally:
        node.db.close()
    doc["app_state"]["auth"]["accounts"].append(dict(declared[0]))
    broken = tmp_path / "twice.json"
    broken.write_text(json.dumps(doc))
    fails("duplicate account found in genesis state; address: " + cont, "genesis", "validate", broken)


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_a_chain_of_ones_own_has_the_sdks_governance_and_no_dev_coins(tmp_path):
    home = tmp_path / "home"
    yield in_thread(make_chain, home)
    node = make_node(home)
    node.startService()
    try:
        yield until_height(node, 1)
        params = (yield rest(node, "/cosmos/gov/v1/params/voting"))[2]["params"]
        assert (params["voting_period"], params["expedited_voting_period"]) == ("172800s", "86400s")
        assert params["min_deposit"] == [{"denom": "achain", "amount": "10000000"}]
        assert params["expedited_min_deposit"] == [{"denom": "achain", "amount": "50000000"}]
        metadata = (yield rest(node, "/cosmos/bank/v1beta1/denoms_metadata"))[2]["metadatas"]
        assert [m["base"] for m in metadata] == ["achain"]
        assert (yield rest(node, "/evmos/erc20/v1/token_pairs"))[2]["token_pairs"] == []
    finally:
        yield node.stopService()
