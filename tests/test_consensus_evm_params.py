"""MsgUpdateParams of x/consensus and x/evm through gov proposals: the params live in state, a change holds from
the block after the proposal's on (max gas and bytes, the header's consensus_hash, CometBFT's per-height params),
the evm params take effect (unprotected txs, static precompiles), and bad params are refused with CometBFT's,
the SDK's and Evmos' texts and codes, leaving the state as it was."""

import json

import pytest
import pytest_twisted
from click.testing import CliRunner
from eth_abi import encode
from eth_account import Account
from eth_utils import keccak
from google.protobuf import any_pb2, json_format

import gov_msgs as g
from chaind.api import calls
from chaind.chain import errors, txs
from chaind.chain.genesis import Genesis, GenesisError
from chaind.chain.modules.consensus import params as cp
from chaind.chain.modules.evm import params as evm_params
from chaind.cli.main import main
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.consensus.v1 import query_pb2 as cq
from chaind.pb.cosmos.consensus.v1 import query_pb2_grpc as cq_grpc
from chaind.pb.cosmos.consensus.v1 import tx_pb2 as consensus_tx
from chaind.pb.cosmos.gov.v1 import gov_pb2
from chaind.pb.ethermint.evm.v1 import evm_pb2
from chaind.pb.ethermint.evm.v1 import query_pb2 as eq
from chaind.pb.ethermint.evm.v1 import query_pb2_grpc as eq_grpc
from chaind.pb.ethermint.evm.v1 import tx_pb2 as evm_tx
from chaind.pb.tendermint.types import params_pb2
from cli_driver import node_flag, ok, run, send_tx
from evm_client import OTHER, sign, w3
from gov_driver import (
    address,
    make_chain,  # noqa: F401 (conftest's `chain` fixture makes this module's chain with it)
    through_gov,
)
from gov_driver import run as block
from gov_proposals import gov_home, until_ended
from helpers import call, comet, in_thread, rest, until_height

CONSENSUS = "/cosmos.consensus.v1.MsgUpdateParams"
EVM = "/ethermint.evm.v1.MsgUpdateParams"


def consensus_msg(chain, max_gas=500_000, max_bytes=2_000_000, authority=None, **sections):
    current = chain.app.consensus_params(chain.app.height + 1)
    msg = consensus_tx.MsgUpdateParams(authority=authority or chain.b32(g.GOV),
                                       block=params_pb2.BlockParams(max_bytes=max_bytes, max_gas=max_gas),
                                       evidence=current.evidence, validator=current.validator)
    for name, value in sections.items():
        if value is None:
            msg.ClearField(name)
        else:
            getattr(msg, name).CopyFrom(value)
    return msg


def wrap(type_url, msg):
    return any_pb2.Any(type_url=type_url, value=msg.SerializeToString())


def evm_msg(chain, authority=None, **changes):
    params = evm_pb2.Params()
    params.CopyFrom(chain.app.keepers["evm"].params(chain.app.view()))
    for name, value in changes.items():
        if isinstance(value, (list, tuple)):
            getattr(params, name)[:] = value
        else:
            setattr(params, name, value)
    return evm_tx.MsgUpdateParams(authority=authority or chain.b32(g.GOV), params=params)


def eth_tx(chain, who=2, gas=21000, protected=True, to=b"\x55" * 20, data=b""):
    nonce = chain.app.view().accounts.get_nonce(address(chain, who))
    tx = {"gas": gas, "gasPrice": 10**10, "nonce": nonce, "to": "0x" + to.hex(), "value": 1, "data": data}
    if protected:
        tx["chainId"] = 9000
    signed = Account.sign_transaction(tx, chain.keys[who].private_key)
    return txs.wrap_evm(signed.raw_transaction, 9000, chain.genesis.base_denom)


def test_the_genesis_consensus_params_are_in_state(chain):
    view = chain.app.view()
    assert cp.decoded(chain.app.keepers["consensus"].stored(view)) == cp.of_document(chain.genesis.document)
    assert chain.app.consensus_params(view.height + 1) == cp.of_document(chain.genesis.document)
    # The SDK's layout: the consensus store's "Consensus" item holds the ConsensusParams.
    value, _ = chain.app.stores.read(chain.app.store_version(), "consensus", b"Consensus", prove=False)
    assert value == cp.of_document(chain.genesis.document).SerializeToString()


def test_a_passed_proposal_changes_max_gas_and_bytes_from_the_next_block_on(chain):
    before = chain.app.consensus_params(chain.app.height + 1)
    assert chain.app.check_decoded(eth_tx(chain, gas=600_000))
    msg = consensus_msg(chain, max_gas=500_000, max_bytes=2_000_000)
    ended = through_gov(chain, wrap(CONSENSUS, msg))
    assert ended["proposal_result"] == "proposal_passed"
    h = chain.app.height
    # The block that executed it still ran with the old params; the next one runs with the new.
    assert chain.app.consensus_params(h) == before
    after = chain.app.consensus_params(h + 1)
    assert (after.block.max_gas, after.block.max_bytes) == (500_000, 2_000_000)
    assert after.evidence == before.evidence and after.version == params_pb2.VersionParams()
    assert cp.decoded(chain.app.keepers["consensus"].stored(chain.app.view())) == after
    assert chain.app.block_at(h)[0].consensus_hash == cp.hash_of(before)
    nxt = block(chain, [])
    assert nxt.header.consensus_hash == cp.hash_of(after) != cp.hash_of(before)
    assert nxt.meta.gas_limit == 500_000
    # A tx above the new block gas limit is refused.
    with pytest.raises(errors.TxError) as refused:
        chain.app.check_decoded(eth_tx(chain, gas=600_000))
    # Evmos' CheckGasWanted: ErrOutOfGas.
    assert (refused.value.codespace, refused.value.code, refused.value.log) == (
        "sdk", 11, "tx gas (600000) exceeds block gas limit (500000): out of gas")
    assert chain.app.check_decoded(eth_tx(chain, gas=400_000))
    # The past stays as it was.
    assert chain.app.consensus_params(h - 1) == before


def test_the_params_carried_from_block_to_block_stay_few_and_right(chain):
    """A commit carries the block's params to the next height (no store seek for the next check_tx) and keeps no
    more: a cache that grew by a height a block would slow every commit down."""
    genesis = cp.of_document(chain.genesis.document)
    for _ in range(70):
        block(chain, [])
        assert chain.app.consensus_params(chain.app.height + 1) == genesis
        assert len(chain.app.consensus_state._params) <= 2


def test_the_update_event_and_no_gas_limit(chain):
    # -1 is no limit: the EVM sees MaxUint64 (Evmos' BlockGasLimit).
    msg = consensus_msg(chain, max_gas=-1)
    ended = through_gov(chain, wrap(CONSENSUS, msg))
    assert ended["proposal_result"] == "proposal_passed"
    assert chain.app.block_gas_limit(chain.app.height + 1) == 2**64 - 1
    assert chain.app.check_decoded(eth_tx(chain, gas=50_000_000))


def test_consensus_params_refusals_change_nothing(chain):
    before = chain.app.keepers["consensus"].stored(chain.app.view())
    # Not the authority: gov's ErrInvalidSigner.
    direct = consensus_msg(chain, authority=chain.b32(address(chain, 1)))
    result = block(chain, [(1, [(CONSENSUS, direct)])]).results[0]
    assert (result.codespace, result.code) == ("gov", 13) and "invalid authority; expected " in result.log
    cases = [
        (consensus_msg(chain, validator=None), "all parameters must be present"),
        (consensus_msg(chain, max_bytes=0), "block.MaxBytes cannot be 0"),
        (consensus_msg(chain, max_bytes=-5), "block.MaxBytes must be -1 or greater than 0. Got -5"),
        (consensus_msg(chain, max_bytes=104857601), "block.MaxBytes is too big. 104857601 > 104857600"),
        (consensus_msg(chain, max_gas=-2), "block.MaxGas must be greater or equal to -1. Got -2"),
        (consensus_msg(chain, validator=params_pb2.ValidatorParams(pub_key_types=["sr25519"])),
         "params.Validator.PubKeyTypes[0], sr25519, is an unknown pubkey type"),
        (consensus_msg(chain, validator=params_pb2.ValidatorParams()),
         "len(Validator.PubKeyTypes) must be greater than 0"),
        (consensus_msg(chain, evidence=params_pb2.EvidenceParams(max_age_num_blocks=0)),
         "evidence.MaxAgeNumBlocks must be greater than 0. Got 0"),
        (consensus_msg(chain, abci=params_pb2.ABCIParams(vote_extensions_enable_height=1)),
         "vote extensions cannot be updated to a past or current height, enable height: 1, current height "),
    ]
    for msg, text in cases:
        ended = through_gov(chain, wrap(CONSENSUS, msg))
        assert ended["proposal_result"] == "proposal_failed", text
        assert text in ended["proposal_log"], (text, ended["proposal_log"])
        assert chain.app.keepers["consensus"].stored(chain.app.view()) == before
    evidence = params_pb2.EvidenceParams(max_age_num_blocks=5, max_bytes=5)
    evidence.max_age_duration.FromSeconds(-1)
    ended = through_gov(chain, wrap(CONSENSUS, consensus_msg(chain, evidence=evidence)))
    assert ended["proposal_log"].endswith("evidence.MaxAgeDuration must be grater than 0 if provided, Got -1s")


def test_the_event_names_the_params_in_gogoproto_text(chain):
    msg = consensus_msg(chain, max_gas=7_000_000, max_bytes=2_000_000,
                        abci=params_pb2.ABCIParams(vote_extensions_enable_height=0))
    block(chain, [(1, [(g.SUBMIT, g.submit(chain.prefix, address(chain, 1), [wrap(CONSENSUS, msg)]))])])
    pid = chain.app.keepers["gov"].next_proposal_id(chain.app.view()) - 1
    block(chain, [(0, [(g.VOTE, g.vote(chain.prefix, address(chain, 0), pid, g.YES))])])
    ended = block(chain, [], after_s=20)
    found = [dict((k, v) for k, v, _ in e.attributes) for e in ended.events if e.type == "update_consensus_params"]
    assert found == [{"authority": chain.b32(g.GOV), "parameters":
                      "block:<max_bytes:2000000 max_gas:7000000 > evidence:<max_age_num_blocks:100000 "
                      "max_age_duration:<seconds:172800 > max_bytes:1048576 > validator:<pub_key_types:\"ed25519\" > "
                      "version:<> abci:<> "}]


def test_allow_unprotected_txs(chain):
    chain.reopen(allow_unprotected=True)        # the node's RPC setting; the chain's param decides
    unprotected = eth_tx(chain, protected=False)
    with pytest.raises(errors.TxError) as refused:
        chain.app.check_decoded(unprotected)
    assert (refused.value.codespace, refused.value.code) == ("sdk", 37)
    assert refused.value.log.startswith("rejected unprotected Ethereum transaction. Please EIP155 sign")
    # A block refuses it too (the ante runs in delivery as well).
    chain.clock += 10**9
    committed, _ = chain.app.finalize_block([unprotected.raw], chain.clock, b"\x01" * 20)
    assert (committed.results[0].codespace, committed.results[0].code) == ("sdk", 37)
    ended = through_gov(chain, wrap(EVM, evm_msg(chain, allow_unprotected_txs=True)))
    assert ended["proposal_result"] == "proposal_passed"
    assert chain.app.keepers["evm"].params(chain.app.view()).allow_unprotected_txs
    tx = eth_tx(chain, protected=False)
    assert chain.app.check_decoded(tx)
    chain.clock += 10**9
    committed, puts = chain.app.finalize_block([tx.raw], chain.clock, b"\x01" * 20)
    assert committed.results[0].code == 0, committed.results[0].log
    chain.app.commit(committed, puts)
    # A node restarted without the RPC setting still refuses them over eth_sendRawTransaction.
    chain.reopen(allow_unprotected=False)
    with pytest.raises(errors.TxError) as rpc:
        chain.app.check_eth_tx(Account.sign_transaction(
            {"gas": 21000, "gasPrice": 10**10, "nonce": 9, "to": "0x" + "55" * 20, "value": 1},
            chain.keys[3].private_key).raw_transaction)
    assert "only replay-protected (EIP-155) transactions allowed over RPC" in rpc.value.log


def test_an_inactive_static_precompile_is_a_plain_account(chain):
    bech32 = "0x" + (0x400).to_bytes(20, "big").hex()
    # hexToBech32(address, string): a call the bech32 precompile answers.
    data = keccak(b"hexToBech32(address,string)")[:4] + encode(["address", "string"], ["0x" + "11" * 20, "chain"])
    runner = calls.CallRunner(chain.app, 0, 5)
    call = {"to": bech32, "data": "0x" + data.hex()}
    computation, _ = runner.run(call, chain.app.view())
    assert not computation.is_error and computation.output
    active = [a for a in evm_params.static_precompiles(chain.app.precompiles) if a != bech32]
    # Evmos' ValidateBasic wants them sorted.
    with pytest.raises(errors.TxError) as unsorted:
        chain.app.handlers[EVM].validate(chain.app, evm_msg(chain, active_static_precompiles=list(reversed(active))))
    assert unsorted.value.log.startswith("precompiles need to be sorted: [")
    ended = through_gov(chain, wrap(EVM, evm_msg(chain, active_static_precompiles=active)))
    assert ended["proposal_result"] == "proposal_passed"
    assert list(chain.app.keepers["evm"].params(chain.app.view()).active_static_precompiles) == active
    computation, _ = runner.run(call, chain.app.view())
    assert not computation.is_error and computation.output == b""


def test_evm_params_refusals_change_nothing(chain):
    before = chain.app.keepers["evm"].stored(chain.app.view())
    direct = evm_msg(chain, authority=chain.b32(address(chain, 1)), allow_unprotected_txs=True)
    result = block(chain, [(1, [(EVM, direct)])]).results[0]
    assert (result.codespace, result.code) == ("gov", 13)
    # Params.Validate runs in ValidateBasic: the tx is refused before any block, with Evmos' text.
    for changes, code, text in [
        ({"extra_eips": ["ethereum_9999"]}, ("undefined", 1), "EIP ethereum_9999 is not activateable, valid EIPs "
         "are: [ethereum_1344 ethereum_1884 ethereum_2200 ethereum_2929 ethereum_3198 ethereum_3529 ethereum_3855]"),
        ({"extra_eips": ["ethereum_3855", "ethereum_3855"]}, ("undefined", 1), "found duplicate EIP: ethereum_3855"),
        ({"evm_denom": "1bad"}, ("undefined", 1), "invalid denom: 1bad"),
        ({"evm_channels": ["ch"]}, ("channel", 18), "identifier ch has invalid length: 2, must be between 8-64 "
         "characters: invalid identifier: invalid channel identifier"),
    ]:
        with pytest.raises(errors.TxError) as refused:
            chain.app.handlers[EVM].validate(chain.app, evm_msg(chain, **changes))
        assert (refused.value.codespace, refused.value.code) == code
        assert refused.value.log == text
    # What Evmos accepts but this chain cannot run fails the proposal, with the reason.
    for changes, text in [
        ({"evm_denom": "aother"}, "evm_denom cannot change from achain"),
        ({"extra_eips": ["ethereum_2929"]}, "EIP ethereum_2929 cannot be activated here"),
        ({"active_static_precompiles": ["0x" + "00" * 19 + "99"]}, "no static precompile at 0x"),
    ]:
        ended = through_gov(chain, wrap(EVM, evm_msg(chain, **changes)))
        assert ended["proposal_result"] == "proposal_failed" and text in ended["proposal_log"], ended
        assert chain.app.keepers["evm"].stored(chain.app.view()) == before
    # EIPs already in py-evm's Prague are accepted.
    ended = through_gov(chain, wrap(EVM, evm_msg(chain, extra_eips=["ethereum_3855", "ethereum_1344"])))
    assert ended["proposal_result"] == "proposal_passed"


@pytest.mark.slow
@pytest_twisted.inlineCallbacks
def test_a_proposal_of_both_messages_on_a_node(node_factory, tmp_path):
    """Through the CLI: the change shows over gRPC, REST, the CLI and CometBFT's RPC, the node behaves by it, and
    `chaind replay` gives every block and app hash again."""
    gov_home(tmp_path)
    node = node_factory(chain={"block_interval": 0.05, "empty_blocks": True}, json_rpc={"allow_unprotected_txs": True})
    n = node_flag(node)
    keys = ("--home", tmp_path / "cli", "--keyring-backend", "test")
    for i in (0, 1):
        ok((yield run("keys", "import-hex", f"dev{i}", node.dev_keys[i].private_key.hex(), *keys)))
    web3 = w3(node)
    unprotected = Account.sign_transaction({"gas": 21000, "gasPrice": 10**10, "nonce": 0, "to": OTHER, "value": 1},
                                           node.dev_keys[3].private_key).raw_transaction
    with pytest.raises(Exception, match="rejected unprotected Ethereum transaction"):
        yield in_thread(web3.eth.send_raw_transaction, unprotected)
    consensus_now, _ = yield call(node, cq_grpc.QueryStub, "Params", cq.QueryParamsRequest())
    evm_now, _ = yield call(node, eq_grpc.QueryStub, "Params", eq.QueryParamsRequest())
    authority = to_bech32(node.genesis.bech32_prefix, g.GOV)
    evm_new = json_format.MessageToDict(evm_now.params, preserving_proto_field_name=True)
    evm_new["allow_unprotected_txs"] = True
    proposal = tmp_path / "params.json"
    proposal.write_text(json.dumps({
        "messages": [
            {"@type": CONSENSUS, "authority": authority, "block": {"max_bytes": "2000000", "max_gas": "500000"},
             "evidence": json_format.MessageToDict(consensus_now.params.evidence, preserving_proto_field_name=True),
             "validator": {"pub_key_types": ["ed25519"]}},
            {"@type": EVM, "authority": authority, "params": evm_new}],
        "deposit": "10achain", "title": "Params", "summary": "Smaller blocks, unprotected txs"}))
    yield send_tx(n, keys, "gov", "submit-proposal", proposal, "--from", "dev1")
    yield send_tx(n, keys, "gov", "vote", "1", "yes", "--from", "dev0")
    ended = yield until_ended(node, 1)
    assert ended.status == gov_pb2.PROPOSAL_STATUS_PASSED, ended.failed_reason
    # gRPC, REST and the CLI.
    answer, _ = yield call(node, cq_grpc.QueryStub, "Params", cq.QueryParamsRequest())
    assert (answer.params.block.max_gas, answer.params.block.max_bytes) == (500_000, 2_000_000)
    status, _, body = yield rest(node, "/cosmos/consensus/v1/params")
    assert status == 200 and body["params"]["block"] == {"max_bytes": "2000000", "max_gas": "500000"}
    shown = json.loads(ok((yield run("q", "consensus", "params", n, "-o", "json"))).stdout)
    assert shown["params"]["block"] == {"max_bytes": "2000000", "max_gas": "500000"}
    answer, _ = yield call(node, eq_grpc.QueryStub, "Params", eq.QueryParamsRequest())
    assert answer.params.allow_unprotected_txs is True
    status, _, body = yield rest(node, "/evmos/evm/v1/params")
    assert status == 200 and body["params"]["allow_unprotected_txs"] is True
    shown = json.loads(ok((yield run("q", "evm", "params", n, "-o", "json"))).stdout)
    assert shown["params"]["allow_unprotected_txs"] is True
    # CometBFT's RPC: the params of each height, the header's consensus_hash and the block's param updates.
    passed_at = node.app.height
    yield until_height(node, passed_at + 2)
    head = node.app.height
    heights = {}
    for h in range(1, head + 1):
        reply = yield in_thread(comet, node, "consensus_params", height=str(h))
        heights[h] = reply["result"]["consensus_params"]["block"]["max_gas"]
    changed = min(h for h, gas in heights.items() if gas == "500000")
    assert heights[changed - 1] == "30000000" and all(heights[h] == "500000" for h in range(changed, head + 1))
    before = yield in_thread(comet, node, "block", height=str(changed - 1))
    after = yield in_thread(comet, node, "block", height=str(changed))
    assert before["result"]["block"]["header"]["consensus_hash"] != after["result"]["block"]["header"]["consensus_hash"]
    results = yield in_thread(comet, node, "block_results", height=str(changed - 1))
    assert results["result"]["consensus_param_updates"]["block"]["max_gas"] == "500000"
    # Behaviour: a tx above the new max gas is refused; an unprotected one now runs.
    with pytest.raises(Exception, match="exceeds block gas limit"):
        yield in_thread(web3.eth.send_raw_transaction, sign({"to": OTHER, "value": 1, "nonce": 0, "gas": 600_000},
                                                          node.dev_keys[4].private_key).raw_transaction)
    tx_hash = yield in_thread(web3.eth.send_raw_transaction, unprotected)
    receipt = yield in_thread(web3.eth.wait_for_transaction_receipt, tx_hash, timeout=10, poll_latency=0.05)
    assert receipt.status == 1
    block_gas = yield in_thread(web3.eth.get_block, "latest")
    assert block_gas.gasLimit == 500_000
    yield node.stopService()
    result = CliRunner().invoke(main, ["replay", "--home", str(node.home.path)])
    assert result.exit_code == 0 and "every block hash and app hash matches" in result.output, result.output


def test_a_genesis_with_bad_consensus_params_is_refused(chain):
    doc = json.loads(json.dumps(chain.genesis.document))
    doc["consensus_params"]["block"]["max_gas"] = "-2"
    with pytest.raises(GenesisError, match="consensus_params: block.MaxGas must be greater or equal to -1. Got -2"):
        Genesis.from_document(doc)
