"""A chain of one's own (`chaind init` without --dev, then the genesis commands) runs on the SDK's and Evmos'
defaults: the SDK's governance periods and deposits, no metadata or ERC-20 pairs for the dev chain's coins."""

import pytest
import pytest_twisted
from twisted.internet import reactor, task

from helpers import in_thread, make_node, rest
from test_genesis_commands import make_chain


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_a_chain_of_ones_own_has_the_sdks_governance_and_no_dev_coins(tmp_path):
    home = tmp_path / "home"
    yield in_thread(make_chain, home)
    node = make_node(home)
    node.startService()
    try:
        while node.app.height < 1:
            yield task.deferLater(reactor, 0.01, lambda: None)
        params = (yield rest(node, "/cosmos/gov/v1/params/voting"))[2]["params"]
        assert (params["voting_period"], params["expedited_voting_period"]) == ("172800s", "86400s")
        assert params["min_deposit"] == [{"denom": "achain", "amount": "10000000"}]
        assert params["expedited_min_deposit"] == [{"denom": "achain", "amount": "50000000"}]
        metadata = (yield rest(node, "/cosmos/bank/v1beta1/denoms_metadata"))[2]["metadatas"]
        assert [m["base"] for m in metadata] == ["achain"]
        assert (yield rest(node, "/evmos/erc20/v1/token_pairs"))[2]["token_pairs"] == []
    finally:
        yield node.stopService()
