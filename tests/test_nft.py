"""x/nft: classes and NFTs from genesis, MsgSend with the SDK's checks and events, every query over gRPC, REST,
abci_query and the CLI on a running node, and replay of a chain that sent NFTs."""

import base64
import json

import pytest
import pytest_twisted

from chain_driver import Chain
from chaind.chain.genesis import GenesisError
from chaind.chain.replay import replay_chain
from chaind.crypto.addresses import to_bech32
from chaind.home import Home
from chaind.pb.cosmos.nft.v1beta1 import query_pb2, query_pb2_grpc, tx_pb2
from cli_driver import cli, committed, js, node_flag, ok, run, send_tx
from gov_driver import address
from gov_driver import run as run_block
from helpers import call, comet, in_thread, rest

SEND = "/cosmos.nft.v1beta1.MsgSend"


def nft_genesis(tmp_path, owner_index=1, **extra):
    """A dev home whose genesis has class "kitty" (two NFTs of dev account `owner_index`) and class "empty"."""
    home = Home(tmp_path / "home")
    home.init("test", dev=True)
    doc = json.loads(home.genesis_file.read_text())
    owner = to_bech32(doc.get("bech32_prefix", "chain"), home.dev_keys()[owner_index].address)
    doc["app_state"]["nft"] = {
        "classes": [{"id": "kitty", "name": "Kitties", "symbol": "KIT", "uri": "ipfs://k"}, {"id": "empty"}],
        "entries": [{"owner": owner, "nfts": [{"class_id": "kitty", "id": "kit1", "uri": "ipfs://k/1"},
                                              {"class_id": "kitty", "id": "kit2"}]}], **extra}
    home.genesis_file.write_text(json.dumps(doc))
    return home


def chain_of(tmp_path):
    chain = Chain(tmp_path, "db")
    chain.prefix, chain.clock = chain.genesis.bech32_prefix, chain.genesis.genesis_time_ns
    run_block(chain, [])
    return chain


def send(chain, who, class_id, nft_id, to):
    return SEND, tx_pb2.MsgSend(class_id=class_id, id=nft_id, sender=chain.b32(address(chain, who)),
                                receiver=chain.b32(to))


def test_genesis_nfts_are_sent_with_the_sdks_checks_and_replay(tmp_path):
    nft_genesis(tmp_path)
    chain = chain_of(tmp_path)
    keeper = chain.app.keepers["nft"]
    try:
        view = chain.app.view()
        me, other = address(chain, 1), address(chain, 2)
        assert keeper.owner(view, "kitty", "kit1") == me and keeper.supply(view, "kitty") == 2
        assert keeper.balance(view, me, "kitty") == 2 and keeper.get_class(view, "kitty").symbol == "KIT"
        block = run_block(chain, [(1, [send(chain, 1, "kitty", "kit1", other)])])
        r = block.results[0]
        assert r.code == 0, r.log
        assert [dict((k, v) for k, v, _ in e.attributes) for e in r.events
                if e.type == "cosmos.nft.v1beta1.EventSend"] == [{
                    "class_id": '"kitty"', "id": '"kit1"', "receiver": json.dumps(chain.b32(other)),
                    "sender": json.dumps(chain.b32(me))}]
        view = chain.app.view()
        assert keeper.owner(view, "kitty", "kit1") == other
        assert keeper.balance(view, me, "kitty") == 1 and keeper.balance(view, other, "kitty") == 1
        # Not the owner, no such NFT or class, empty ids: refused, nothing moves.
        cases = [(send(chain, 1, "kitty", "kit1", me), ("sdk", 4, "is not the owner of nft kit1")),
                 (send(chain, 1, "kitty", "nope", other), ("sdk", 4, "is not the owner of nft nope")),
                 (send(chain, 1, "", "kit2", other), ("nft", 7, "empty class id")),
                 (send(chain, 1, "kitty", "", other), ("nft", 8, "empty nft id"))]
        for message, (codespace, code, text) in cases:
            r = run_block(chain, [(1, [message])]).results[0]
            assert (r.codespace, r.code) == (codespace, code) and text in r.log, r.log
        assert keeper.owner(chain.app.view(), "kitty", "kit2") == me
        assert "nft" in dict(chain.app.store_version().roots)
        report = replay_chain(chain.app, tmp_path / "replayed.db", chain.app.options.vote_key,
                              chain.app.options.validator_address)
        assert report.ok and report.last_height == chain.app.height, str(report.mismatch)
    finally:
        chain.close()


def test_bad_nft_genesis_is_refused(tmp_path):
    home = nft_genesis(tmp_path)
    doc = json.loads(home.genesis_file.read_text())
    doc["app_state"]["nft"]["entries"][0]["nfts"].append({"class_id": "nothere", "id": "abc"})
    home.genesis_file.write_text(json.dumps(doc))
    with pytest.raises(GenesisError, match="app_state.nft: nothere: nft class does not exist"):
        Chain(tmp_path, "db").close()
    # `chaind genesis validate` says so too.
    refused = cli("genesis", "validate", "--home", tmp_path / "home")
    assert refused.exit_code != 0 and "nft class does not exist" in refused.output


@pytest_twisted.inlineCallbacks
def test_nft_send_and_queries_on_a_node(node_factory, tmp_path):
    nft_genesis(tmp_path)
    node = node_factory(chain={"block_interval": 0.05, "empty_blocks": True})
    n = node_flag(node)
    keys = ("--home", tmp_path / "cli", "--keyring-backend", "test")
    ok((yield run("keys", "import-hex", "dev1", node.dev_keys[1].private_key.hex(), *keys)))
    prefix = node.genesis.bech32_prefix
    me, other = (to_bech32(prefix, node.dev_keys[i].address) for i in (1, 2))

    classes = js((yield run("q", "nft", "classes", n, "-o", "json")))
    assert [c["id"] for c in classes["classes"]] == ["empty", "kitty"]
    shown = js((yield run("q", "nft", "class", "kitty", n, "-o", "json")))
    assert shown["class"]["name"] == "Kitties"
    assert js((yield run("q", "nft", "supply", "kitty", n, "-o", "json")))["amount"] == "2"
    assert js((yield run("q", "nft", "balance", me, "kitty", n, "-o", "json")))["amount"] == "2"

    found = yield send_tx(n, keys, "nft", "send", "kitty", "kit1", other, "--from", "dev1")
    assert any(e["type"] == "cosmos.nft.v1beta1.EventSend" for e in found["events"])
    assert js((yield run("q", "nft", "owner", "kitty", "kit1", n, "-o", "json")))["owner"] == other
    mine = js((yield run("q", "nft", "nfts", "--owner", me, n, "-o", "json")))
    assert [t["id"] for t in mine["nfts"]] == ["kit2"]
    of_class = js((yield run("q", "nft", "nfts", "--class-id", "kitty", n, "-o", "json")))
    assert [t["id"] for t in of_class["nfts"]] == ["kit1", "kit2"]
    one = js((yield run("q", "nft", "nft", "kitty", "kit1", n, "-o", "json")))
    assert one["nft"]["uri"] == "ipfs://k/1"

    reply, _ = yield call(node, query_pb2_grpc.QueryStub, "Balance",
                          query_pb2.QueryBalanceRequest(class_id="kitty", owner=other))
    assert reply.amount == 1
    status, _, body = yield rest(node, "/cosmos/nft/v1beta1/owner/kitty/kit2")
    assert status == 200 and body["owner"] == me, body
    status, _, body = yield rest(node, f"/cosmos/nft/v1beta1/nfts?owner={other}")
    assert status == 200 and [t["id"] for t in body["nfts"]] == ["kit1"], body
    status, _, body = yield rest(node, "/cosmos/nft/v1beta1/classes/nothere")
    assert status != 200 and "nft class does not exist" in json.dumps(body)
    data = query_pb2.QuerySupplyRequest(class_id="kitty").SerializeToString().hex()
    answer = yield in_thread(comet, node, "abci_query", path="/cosmos.nft.v1beta1.Query/Supply", data=data)
    assert query_pb2.QuerySupplyResponse.FromString(
        base64.b64decode(answer["result"]["response"]["value"])).amount == 2

    # Sending an NFT one does not own fails in its block.
    sent = js((yield run("tx", "nft", "send", "kitty", "kit1", me, "--from", "dev1", "--fees",
                         "4000000000000000achain", "--gas", "400000", "-y", "-o", "json", n, *keys)))
    result = yield committed(n, sent["txhash"])
    assert result["code"] == 4 and "is not the owner of nft kit1" in result["raw_log"]
    yield node.stopService()
    done = yield run("replay", "--home", tmp_path / "home")
    assert "every block hash and app hash matches" in ok(done).stdout
