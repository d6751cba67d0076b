"""The explorer in a real browser (Debian's chromium + chromium-driver, driven by selenium) against a real node.

Screenshots of every page go to the test's temp dir (pytest's basetemp; see README.rst "Explorer").
"""

import base64
import json
import urllib.request

import pytest_twisted
from eth_utils import keccak

from browser_driver import By
from chaind.chain import txs
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from contracts import FORWARDER_INIT, token_init
from evm_client import DEV0, OTHER, send, w3
from explorer_pages import BROWSER_MARKS, base, units, visit, wait
from helpers import in_thread
from native_txs import build_native

pytestmark = BROWSER_MARKS


def selector(signature):
    return keccak(signature.encode())[:4]


def deploy(web3, init, nonce):
    receipt = send(web3, {"data": init, "nonce": nonce, "gas": 1_000_000})
    assert receipt.status == 1
    return receipt.contractAddress


def transfer_data(to, amount):
    return selector("transfer(address,uint256)") + bytes.fromhex(to[2:]).rjust(32, b"\0") + amount.to_bytes(32, "big")


def native_send_with_memo(node, memo):
    """A bank send by dev account 2 with `memo`, broadcast on 26657; its native hash (upper hex)."""
    key = node.dev_keys[2]
    prefix = node.genesis.bech32_prefix
    sender = to_bech32(prefix, key.address)
    rest = f"http://127.0.0.1:{node.port_of('rest')}/cosmos/auth/v1beta1/accounts/{sender}"
    account = json.loads(urllib.request.urlopen(rest, timeout=10).read())["account"]
    account = account.get("base_account", account)
    msg = bank_tx.MsgSend(from_address=sender, to_address=to_bech32(prefix, bytes.fromhex(OTHER[2:])),
                          amount=[coin_pb2.Coin(denom=node.genesis.base_denom, amount="1")])
    gas = 200_000
    raw = build_native([(txs.MSG_SEND, msg)], key, node.genesis.chain_id, int(account["account_number"]),
                       int(account.get("sequence", 0)), [(node.genesis.base_denom, 10**10 * gas)], gas, memo=memo)
    request = urllib.request.Request(
        f"http://127.0.0.1:{node.port_of('cometbft')}/", headers={"content-type": "application/json"},
        data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "broadcast_tx_commit",
                         "params": {"tx": base64.b64encode(raw).decode()}}).encode())
    result = json.loads(urllib.request.urlopen(request, timeout=20).read())["result"]
    assert result["check_tx"]["code"] == 0 and result["tx_result"]["code"] == 0, result
    return result["hash"]


@pytest_twisted.inlineCallbacks
def test_the_home_page_lists_the_latest_block_and_new_ones_live(explorer, browser):
    head = explorer.app.height
    yield in_thread(visit, browser, base(explorer), f'#latest-blocks tr[data-height="{head}"]')
    yield in_thread(wait, browser, ".chip.live")
    receipt = yield in_thread(send, w3(explorer), {"to": OTHER, "value": 7, "nonce": 0})
    # The new block arrives through the EVM WebSocket, without reloading the page.
    yield in_thread(wait, browser, f'#latest-blocks tr[data-height="{receipt.blockNumber}"]')
    yield in_thread(wait, browser, "#latest-txs a", "home", receipt.transactionHash.to_0x_hex()[:10])


@pytest_twisted.inlineCallbacks
def test_a_tx_page_after_a_token_transfer_shows_the_transfer_decoded(explorer, browser):
    web3 = w3(explorer)
    token = yield in_thread(deploy, web3, token_init(10**21), 0)
    receipt = yield in_thread(send, web3, {"to": token, "data": transfer_data(OTHER, 25 * 10**17), "nonce": 1,
                                           "gas": 200_000})
    assert receipt.status == 1
    tx_hash = receipt.transactionHash.to_0x_hex()
    decoded = yield in_thread(visit, browser, base(explorer) + f"#/tx/{tx_hash}", "#logs .decoded", "tx-transfer")
    assert decoded.text.startswith("Transfer 2.5 TT from ")
    assert DEV0.lower() in decoded.text.lower() and OTHER.lower() in decoded.text.lower()
    evm_hash = yield in_thread(lambda: browser.find_element(By.ID, "evm-hash").text)
    native_hash = yield in_thread(lambda: browser.find_element(By.ID, "native-hash").text)
    assert evm_hash == tx_hash and len(native_hash) == 64
    # The same page by its native hash; and the token contract's account page.
    yield in_thread(visit, browser, base(explorer) + f"#/tx/{native_hash}", "#evm-hash", None, tx_hash)
    yield in_thread(visit, browser, base(explorer) + f"#/address/{token}", "h1", "address", "Contract")


@pytest_twisted.inlineCallbacks
def test_a_trace_page_shows_the_call_tree_with_the_nested_reverted_call_marked(explorer, browser):
    web3 = w3(explorer)
    token = yield in_thread(deploy, web3, token_init(10**21), 0)
    forwarder = yield in_thread(deploy, web3, FORWARDER_INIT, 1)
    # The forwarder calls the token's transfer for more than the forwarder holds: the inner call reverts,
    # and the forwarder reverts after it.
    data = bytes(32) + bytes.fromhex(token[2:]).rjust(32, b"\0") + transfer_data(OTHER, 1)
    receipt = yield in_thread(send, web3, {"to": forwarder, "data": data, "nonce": 2, "gas": 300_000})
    assert receipt.status == 0
    tx_hash = receipt.transactionHash.to_0x_hex()
    tree = yield in_thread(visit, browser, base(explorer) + f"#/trace/{tx_hash}", "#call-tree #frame-1", "trace")
    classes = yield in_thread(lambda: (browser.find_element(By.ID, "frame-0").get_attribute("class"),
                                       browser.find_element(By.ID, "frame-1").get_attribute("class")))
    assert classes == ("frame reverted", "frame reverted")
    assert "reverted" in tree.text and token.lower() in tree.text.lower()
    bars = yield in_thread(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#flame .bar.reverted")))
    assert bars == 2
    # The inner frame's struct log, a page at a time, made by a JavaScript tracer on the node.
    yield in_thread(lambda: browser.find_element(By.CSS_SELECTOR, "#frame-1 > .detail button").click())
    steps = yield in_thread(wait, browser, "#struct-log table", "trace-struct-log", "REVERT")
    assert "Frame 1: CALL to" in (yield in_thread(lambda: browser.find_element(By.ID, "struct-log").text))
    assert steps.text.count("\n") >= 2


@pytest_twisted.inlineCallbacks
def test_search_by_evm_hash_lands_on_the_tx(explorer, browser):
    receipt = yield in_thread(send, w3(explorer), {"to": OTHER, "value": 3, "nonce": 0})
    tx_hash = receipt.transactionHash.to_0x_hex()

    def search():
        visit(browser, base(explorer), "#latest-blocks tr")
        box = browser.find_element(By.ID, "search-input")
        box.send_keys(tx_hash)
        box.submit()
        return wait(browser, "#evm-hash", "search", tx_hash)

    yield in_thread(search)
    assert "#/tx/" in browser.current_url


@pytest_twisted.inlineCallbacks
def test_a_memo_with_markup_is_shown_as_text(explorer, browser):
    memo = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"><b>bold?</b>'
    native_hash = yield in_thread(native_send_with_memo, explorer, memo)
    shown = yield in_thread(visit, browser, base(explorer) + f"#/tx/{native_hash}", "#memo", "tx-memo")
    assert shown.text == memo
    assert (yield in_thread(lambda: browser.execute_script("return window.pwned === undefined")))
    assert (yield in_thread(lambda: shown.find_elements(By.CSS_SELECTOR, "*"))) == []


@pytest_twisted.inlineCallbacks
def test_unknown_heights_hashes_and_addresses_get_a_page_that_says_so(explorer, browser):
    for path, words, shot in ((f"#/block/{10**6}", "No block at height 1000000", "unknown-block"),
                              ("#/tx/0x" + "ab" * 32, "Transaction not found", "unknown-tx"),
                              ("#/address/chain1notanaddress", "Not an address", "bad-address"),
                              ("#/search/hello", "Nothing matches", None)):
        yield in_thread(visit, browser, base(explorer) + path, "#not-found", shot, words)
    # A well-formed address the chain never saw: its page, with a notice.
    yield in_thread(visit, browser, base(explorer) + "#/address/0x" + "77" * 20, "#unknown-address")


@pytest_twisted.inlineCallbacks
def test_an_evm_txs_fee_is_gas_used_times_the_effective_gas_price(explorer, browser):
    receipt = yield in_thread(send, w3(explorer), {"to": OTHER, "value": 3, "nonce": 0, "gas": 100_000,
                                                   "maxFeePerGas": 10**12, "maxPriorityFeePerGas": 10**9})
    assert receipt.gasUsed < 100_000 and receipt.effectiveGasPrice < 10**12
    display = explorer.genesis.base_denom[1:].upper()
    summary = yield in_thread(visit, browser, base(explorer) + f"#/tx/{receipt.transactionHash.to_0x_hex()}",
                              "table.kv", "evm-fee", "Fee")
    fee = summary.find_element(By.XPATH, ".//th[text()='Fee']/following-sibling::td")
    assert fee.text == f"{units(receipt.gasUsed * receipt.effectiveGasPrice)} {display}"
    assert fee.text != f"{units(100_000 * 10**12)} {display}"
