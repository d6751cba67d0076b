"""cosmos/evm's precompile and revert-case suites (tests/solidity/suites/{precompiles,revert_cases}) and its
evm-tools-compatibility suites (hardhat with ethers, viem, web3.js, foundry, foundry-uniswap-v3), as our own
equivalents of their cases in tests/reference_suites, run by Hardhat 2 and Foundry (npm, unmodified) against a dev
node process made as `chaind init --dev` makes one, with only the chain's constants (keys, prefix, denom, validator)
changed.

cosmos/evm's suites are not ours to commit, and the registries this repo installs from do not carry them: each
upstream case is written here again, and where one cannot hold on this chain the case says why."""

import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest
import pytest_twisted
from eth_account import Account

from chaind.crypto.addresses import module_address, to_bech32
from chaind.home import Home
from cosmjs_driver import install, install_path
from evm_client import DEV0, DEV0_KEY
from helpers import in_thread
from node_process import NodeProcess

SUITE = pathlib.Path(__file__).parent / "reference_suites"
# cosmos/evm's signers are two plain accounts and, last, its genesis validator's operator: dev 1, dev 2, dev 0.
KEYS = ["0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
        "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a", DEV0_KEY]

RECIPIENT = "0x40a0cb1C63e026A81B55EE1308586E21eec1eFa9"      # cosmos/evm's foundry .env's ACCOUNT_2

pytestmark = [pytest.mark.external, pytest.mark.slow]


@pytest.fixture(scope="module")
def hardhat():
    """(npx, node_modules) with tests/reference_suites' npm packages installed once under ~/.cache."""
    node, npm, npx = shutil.which("node"), shutil.which("npm"), shutil.which("npx")
    if not (node and npm and npx):
        message = "node and npm are needed to run Hardhat; install Node.js to run this test"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    path = install_path(node, SUITE / "package.json", "reference-suites")
    error = install(path, npm, SUITE / "package.json")
    if error:
        message = f"cannot install Hardhat at {path}: {error}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return npx, path / "node_modules"


def _dev_home(tmp_path):
    """A home as `chaind init --dev` writes it, every face on a free port."""
    home = tmp_path / "home"
    Home(home).init("test", dev=True)
    config = home / "config" / "chaind.toml"
    text = re.sub(r'(address|ws-address|prometheus-listen-addr) = "127\.0\.0\.1:\d+"', r'\1 = "127.0.0.1:0"',
                  config.read_text())
    config.write_text(text)
    return home, config


def _project(tmp_path, node_modules):
    """Our suite's files beside its installed packages: Hardhat writes its cache and artifacts here, not in
    the repository."""
    project = tmp_path / "project"
    shutil.copytree(SUITE, project)
    (project / "node_modules").symlink_to(node_modules)
    return project


def _chain_constants(home):
    genesis = json.loads((home / "config" / "genesis.json").read_text())
    evm_denom = genesis["app_state"]["evm"]["params"]["evm_denom"]
    metadata = next(m for m in genesis["app_state"]["bank"]["denom_metadata"] if m["base"] == evm_denom)
    operator = bytes.fromhex(DEV0[2:])
    assert Account.from_key(KEYS[-1]).address == DEV0
    return {"CHAIND_PREFIX": "chain", "CHAIND_DENOM": evm_denom,
            "CHAIND_VALIDATOR": to_bech32("chainvaloper", operator),
            "CHAIND_TOKEN_NAME": metadata["name"], "CHAIND_TOKEN_SYMBOL": metadata["symbol"],
            "CHAIND_GOV_MODULE": to_bech32("chain", module_address("gov"))}


def _run(args, cwd, env):
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL)


@pytest_twisted.inlineCallbacks
def test_cosmos_evm_precompile_revert_and_tool_suites_pass_on_a_dev_node(tmp_path, hardhat):
    npx, node_modules = hardhat
    home, config = _dev_home(tmp_path)
    project = _project(tmp_path, node_modules)
    node = NodeProcess(home, config, tmp_path)
    ports = yield in_thread(node.start)
    try:
        env = {**os.environ, **_chain_constants(home), "CHAIND_RPC": f"http://127.0.0.1:{ports['json-rpc']}",
               "CHAIND_CHAIN_ID": "9000", "CHAIND_KEYS": ",".join(KEYS)}
        run = yield in_thread(_run, [npx, "hardhat", "test", "--network", "chaind"], project, env)
    finally:
        yield in_thread(node.stop)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-6000:]
    # Every case ran and passed: none skipped, none left out.
    cases = sum(len(re.findall(r"^\s+it\(", f.read_text(), re.M)) for f in (SUITE / "test").glob("*.js"))
    assert re.search(rf"^\s+{cases} passing", output, re.M) and not re.search(r"failing|pending", output), output


def _foundry(project, **variables):
    """npm's forge (compiling with npm's solc through foundry/solc.js) and cast, the environment they run in (with
    `variables`) and a runner of theirs that wants success."""
    tools = project / "node_modules" / "@foundry-rs"
    forge = [str(tools / "forge-linux-amd64" / "bin" / "forge")]
    cast = str(tools / "cast-linux-amd64" / "bin" / "cast")
    solc = ["--use", str(project / "foundry" / "solc.js"), "--offline"]
    env = {**os.environ, "FOUNDRY_DISABLE_NIGHTLY_WARNING": "1", **variables}

    def ok(args, **extra):
        run = _run(args, project, {**env, **extra})
        assert run.returncode == 0, f"{args}:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
        return run.stdout

    return forge, cast, solc, env, ok


def _foundry_steps(project, rpc):
    """cosmos/evm's foundry cases in its order: a script broadcast, forge test in forge's EVM and forked from the
    node, cast's reads, a cast send, and one that the node's gas estimate refuses with the revert's data."""
    forge, cast, solc, env, ok = _foundry(project, PRIVATE_KEY=KEYS[0], RECIPIENT=RECIPIENT)

    ok([*forge, "script", "foundry/script/Deploy.s.sol", "--rpc-url", rpc, "--broadcast", *solc])
    broadcast = json.loads((project / "foundry-broadcast" / "Deploy.s.sol" / "9000" / "run-latest.json").read_text())
    token = next(t["contractAddress"] for t in broadcast["transactions"] if t["transactionType"] == "CREATE")
    assert [r["status"] for r in broadcast["receipts"]] == ["0x1"] * 3
    assert "3 passed; 0 failed; 0 skipped" in ok([*forge, "test", "--fork-url", rpc, *solc], TOKEN=token)
    assert "2 passed; 0 failed; 0 skipped" in ok([*forge, "test", "--no-match-test", "Fork", *solc])
    assert ok([cast, "chain-id", "--rpc-url", rpc]).strip() == "9000"
    assert ok([cast, "rpc", "--rpc-url", rpc, "eth_protocolVersion"]).strip() == '"0x41"'
    assert ok([cast, "call", "--rpc-url", rpc, token, "name()(string)"]).strip() == '"Token Example"'
    balance = ok([cast, "call", "--rpc-url", rpc, token, "balanceOf(address)(uint256)", RECIPIENT])
    assert balance.split()[0] == str(100 * 10**18)
    sent = json.loads(ok([cast, "send", "--rpc-url", rpc, "--private-key", KEYS[0], token,
                          "transfer(address,uint256)", RECIPIENT, "1", "--json"]))
    assert sent["status"] == "0x1"
    refused = _run([cast, "send", "--rpc-url", rpc, "--private-key", KEYS[0], token, "transfer(address,uint256)",
                    RECIPIENT, str(10**24)], project, env)
    assert refused.returncode != 0
    assert "execution reverted" in refused.stderr and "InsufficientBalance" in refused.stderr, refused.stderr


def _on_a_dev_node(tmp_path, hardhat, steps):
    """`steps(project, rpc)` in a thread, against a dev node process of its own and a copy of the suite's project."""
    _, node_modules = hardhat
    home, config = _dev_home(tmp_path)
    project = _project(tmp_path, node_modules)
    node = NodeProcess(home, config, tmp_path)
    ports = yield in_thread(node.start)
    try:
        yield in_thread(steps, project, f"http://127.0.0.1:{ports['json-rpc']}")
    finally:
        yield in_thread(node.stop)


@pytest_twisted.inlineCallbacks
def test_cosmos_evm_foundry_suite_passes_on_a_dev_node(tmp_path, hardhat):
    yield from _on_a_dev_node(tmp_path, hardhat, _foundry_steps)


# cosmos/evm's foundry-uniswap-v3 .env signs with its dev3; here a dev account that sent nothing yet, so that the
# library's address is its first contract's, as the .env's LIBRARY_CONTRACT is.
UNISWAP_KEY = KEYS[1]
WERC20 = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE"


def _uniswap_steps(project, rpc):
    """cosmos/evm's foundry-uniswap-v3 case: forge broadcasts Uniswap v3's NFTDescriptor library, then (with --slow,
    each receipt awaited before the next tx is sent) the factory, two tokens, the position descriptor linked to that
    library, the position manager, the swap router and a pool; each is then read back from the node."""
    forge, cast, solc, env, ok = _foundry(project, PRIVATE_KEY=UNISWAP_KEY, WETH9=WERC20)
    broadcasts = project / "foundry-broadcast"
    common = ["--rpc-url", rpc, "--chain-id", "9000", "--broadcast", *solc]

    def broadcast(script):
        return json.loads((broadcasts / script / "9000" / "run-latest.json").read_text())

    assert "ONCHAIN EXECUTION COMPLETE & SUCCESSFUL" in ok([*forge, "script", "foundry/script/UniswapLibrary.s.sol",
                                                            *common])
    first = broadcast("UniswapLibrary.s.sol")
    assert [r["status"] for r in first["receipts"]] == ["0x1"]
    library = first["receipts"][0]["contractAddress"]
    signer = Account.from_key(UNISWAP_KEY).address
    assert ok([cast, "compute-address", signer, "--nonce", "0"]).split()[-1].lower() == library.lower()

    assert "ONCHAIN EXECUTION COMPLETE & SUCCESSFUL" in ok([*forge, "script", "foundry/script/UniswapV3.s.sol",
                                                            *common, "--slow"], LIBRARY=library)
    second = broadcast("UniswapV3.s.sol")
    assert [t["transactionType"] for t in second["transactions"]] == ["CREATE"] * 6 + ["CALL"]
    assert [r["status"] for r in second["receipts"]] == ["0x1"] * 7
    # --slow: each tx in a block of its own, after the one before.
    blocks = [int(r["blockNumber"], 16) for r in second["receipts"]]
    assert blocks == sorted(set(blocks)), blocks
    factory, token_a, token_b, descriptor, manager, router = (r["contractAddress"] for r in second["receipts"][:6])

    def call(to, signature, *args):
        return ok([cast, "call", "--rpc-url", rpc, to, signature, *args]).strip()

    assert library[2:].lower() in ok([cast, "code", "--rpc-url", rpc, descriptor])
    assert call(descriptor, "WETH9()(address)") == WERC20
    assert call(manager, "factory()(address)").lower() == factory.lower()
    assert call(manager, "WETH9()(address)") == call(router, "WETH9()(address)") == WERC20
    pool = call(factory, "getPool(address,address,uint24)(address)", token_a, token_b, "3000")
    assert pool == call(factory, "getPool(address,address,uint24)(address)", token_b, token_a, "3000")
    pool_artifact = project / "node_modules/@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json"
    code = ok([cast, "code", "--rpc-url", rpc, pool]).strip()
    assert len(code) == len(json.loads(pool_artifact.read_text())["deployedBytecode"])
    assert call(pool, "factory()(address)").lower() == factory.lower()
    assert call(pool, "fee()(uint24)") == "3000"
    tokens = sorted(t.lower() for t in (token_a, token_b))
    assert [call(pool, f"token{i}()(address)").lower() for i in (0, 1)] == tokens


@pytest_twisted.inlineCallbacks
def test_cosmos_evm_foundry_uniswap_v3_suite_passes_on_a_dev_node(tmp_path, hardhat):
    yield from _on_a_dev_node(tmp_path, hardhat, _uniswap_steps)
