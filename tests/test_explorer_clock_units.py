"""The explorer in Chromium: "ago" counted on the chain's clock (a dev chain's evm_increaseTime moves it), and
amounts of every denom with metadata in its display unit."""

import json
import urllib.request

import pytest_twisted

from browser_driver import By
from cli_driver import DEV0_B32
from evm_client import DEV0
from explorer_pages import BROWSER_MARKS, base, units, visit
from helpers import in_thread, rest, until_height, url

pytestmark = BROWSER_MARKS


def _post(node, method, *params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}).encode()
    request = urllib.request.Request(url(node), data=body, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())["result"]


def _cell(table, heading):
    return table.find_element(By.XPATH, f".//th[text()='{heading}']/following-sibling::td").text


@pytest_twisted.inlineCallbacks
def test_ago_counts_on_the_chain_clock(explorer, browser):  # noqa: F811 (the fixture imported above)
    before = explorer.app.height
    yield in_thread(_post, explorer, "evm_increaseTime", 7200)
    yield in_thread(_post, explorer, "evm_mine")
    yield until_height(explorer, before + 1)
    # The block made before the jump is two hours old on the chain's clock (on the browser's: seconds).
    summary = yield in_thread(visit, browser, base(explorer) + f"#/block/{before}", "table.kv", "block-ago", "Time")
    assert _cell(summary, "Time").endswith("(2 h ago)"), _cell(summary, "Time")
    row = yield in_thread(visit, browser, base(explorer), f'#latest-blocks tr[data-height="{before}"]', "home-ago")
    assert row.find_elements(By.TAG_NAME, "td")[2].text.endswith("· 120 min ago"), row.text
    latest = browser.find_element(By.CSS_SELECTOR, f'#latest-blocks tr[data-height="{before + 1}"]')
    assert latest.find_elements(By.TAG_NAME, "td")[2].text.endswith(" s ago"), latest.text


@pytest_twisted.inlineCallbacks
def test_amounts_of_every_denom_with_metadata_are_in_its_display_unit(explorer, browser):  # noqa: F811
    _, _, body = yield rest(explorer, f"/cosmos/bank/v1beta1/balances/{DEV0_B32}")
    balances = {c["denom"]: c["amount"] for c in body["balances"]}
    card = yield in_thread(visit, browser, base(explorer) + f"#/address/{DEV0}", "section.card", "balances",
                           "Balances")
    shown = {}
    for row in card.find_elements(By.CSS_SELECTOR, "tbody tr"):
        denom, amount = row.find_elements(By.TAG_NAME, "td")
        shown[denom.find_element(By.CSS_SELECTOR, "span").get_attribute("title")] = amount.text
    voucher = "ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2"
    assert shown["achain"] == f"{units(int(balances['achain']))} CHAIN"
    assert shown["stake"] == f"{units(int(balances['stake']))} STK"
    assert shown[voucher] == f"{units(int(balances[voucher]), 6)} ATOM"
