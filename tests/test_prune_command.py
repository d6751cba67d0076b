"""`chaind prune [pruning-method]` as the SDK v0.50's: a stopped node's state below its recent heights deleted
(blocks kept), the kept heights read as before; bad options refused with the SDK's words, nothing deleted."""

import pytest

from chain_driver import PROPOSER, RECIPIENTS, Chain
from chaind.chain.view import PrunedError
from chaind.store import keys
from cli_driver import cli, failed, ok

S = 10**9


def _count(db, prefix):
    return sum(1 for _ in db.keys(prefix))


@pytest.fixture
def archive(tmp_path):
    """A dev chain of six blocks, each sending to a recipient, keeping every height (the node stopped)."""
    chain = Chain(tmp_path, "home/data/chain.db")
    for i in range(6):
        nonce = chain.app.view().accounts.get_nonce(chain.keys[0].address)
        raw = chain.evm(0, nonce, to=RECIPIENTS[0], value=1000 + i)
        block, puts = chain.app.finalize_block([raw], chain.genesis.genesis_time_ns + (i + 1) * S, PROPOSER)
        chain.app.commit(block, puts)
    chain.balances = {h: chain.app.view(h).accounts.get_balance(RECIPIENTS[0]) for h in range(7)}
    chain.close()
    return chain


def test_prune_custom_keeps_the_recent_heights_and_the_blocks(archive):
    chain = archive
    chain.open()
    versions = _count(chain.db, keys.VERSIONED)
    chain.close()
    out = ok(cli("prune", "custom", "--pruning-keep-recent", 2, "--pruning-interval", 10,
                 "--home", chain.home.path)).stdout
    assert out == ("get pruning options from command flags, strategy: custom, keep-recent: 2\n"
                   "pruning heights up to 4\nsuccessfully pruned the application root multi stores\n")
    chain.open()
    try:
        assert _count(chain.db, keys.VERSIONED) < versions
        with pytest.raises(PrunedError, match="state at height 4 is pruned"):
            chain.app.view(4)
        for h in (5, 6):
            assert chain.app.view(h).accounts.get_balance(RECIPIENTS[0]) == chain.balances[h]
        assert chain.app.block_at(1) is not None and chain.app.tx_at(1, 0) is not None
    finally:
        chain.close()
    # Again: nothing more to delete.
    ok(cli("prune", "custom", "--pruning-keep-recent", 2, "--home", chain.home.path))


def test_prune_nothing_and_default_keep_every_height(archive):
    chain = archive
    assert ok(cli("prune", "nothing", "--home", chain.home.path)).stdout == \
        "get pruning options from command flags, strategy: nothing, keep-recent: 0\n"
    assert "strategy: default, keep-recent: 362880\n" in ok(cli("prune", "--home", chain.home.path)).stdout
    chain.open()
    try:
        assert chain.app.view(0).accounts.get_balance(RECIPIENTS[0]) == chain.balances[0]
        assert chain.app.view(1).accounts.get_balance(RECIPIENTS[0]) == chain.balances[1]
    finally:
        chain.close()
    ok(cli("prune", "everything", "--home", chain.home.path))
    chain.open()
    try:
        with pytest.raises(PrunedError):
            chain.app.view(4)
        assert chain.app.view(5).accounts.get_balance(RECIPIENTS[0]) == chain.balances[5]
    finally:
        chain.close()


def test_prune_refuses_bad_options_a_running_node_and_an_empty_chain(archive, tmp_path):
    home = archive.home.path
    failed(cli("prune", "sometimes", "--home", home), "unknown pruning strategy sometimes")
    failed(cli("prune", "custom", "--pruning-keep-recent", 5, "--pruning-interval", 0, "--home", home),
           "invalid custom pruning options: 'pruning-interval' must not be 0")
    failed(cli("prune", "custom", "--pruning-keep-recent", 5, "--pruning-interval", 9, "--home", home),
           "'pruning-interval' must not be less than 10")
    failed(cli("prune", "custom", "--pruning-keep-recent", 1, "--home", home),
           "'pruning-keep-recent' must not be less than 2")
    archive.open()
    try:
        failed(cli("prune", "everything", "--home", home), "is the node still running?")
        assert archive.app.view(1) is not None
    finally:
        archive.close()
    empty = Chain(tmp_path / "empty", "home/data/chain.db")
    empty.close()
    failed(cli("prune", "everything", "--home", empty.home.path),
           "the database has no valid heights to prune, the latest height: 0")
