"""The accounts a block wrote are remembered under the EVM state root it made (store/account_records.py): reads at the
head take them without a trie walk, and each one is what the stored trie holds under that root."""

import pytest_twisted
from eth_utils import to_canonical_address

from chaind.chain import view as view_module
from chaind.store import account_records, evm_state
from chaind.store.evm_accounts import account_key
from evm_client import DEV0, OTHER, send, w3
from helpers import in_thread


@pytest_twisted.inlineCallbacks
def test_a_blocks_accounts_are_read_at_its_root_without_the_trie(node, monkeypatch):
    web3 = w3(node)
    for value in (1, 2, 3):
        receipt = yield in_thread(send, web3, {"to": OTHER, "value": value, "nonce": value - 1})
        assert receipt.status == 1
    root = node.app.head[1].evm_state_root
    sender, recipient = to_canonical_address(DEV0), to_canonical_address(OTHER)
    written = {address: account_records.get(root, address) for address in (sender, recipient)}
    # Each record is the stored trie's under the head's root.
    for address, encoded in written.items():
        assert encoded, address
        assert encoded == evm_state.trie_get(node.app.db, root, account_key(address))
    # A record of another root is not taken for this one.
    assert account_records.get(b"\x01" * 32, sender) is None

    def walked(*args, **kwargs):
        raise AssertionError("the head's view walked the account trie for an account its block wrote")

    monkeypatch.setattr(view_module, "trie_get", walked)
    view_module._account_items.cache_clear()
    accounts = node.app.view().accounts
    assert accounts.get_nonce(sender) == 3 and accounts.get_balance(recipient) >= 6
    # eth_getBalance at the head answers the same.
    assert (yield in_thread(web3.eth.get_balance, OTHER)) == accounts.get_balance(recipient)
