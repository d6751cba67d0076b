"""x/authz on a real App block by block: send grants spent within their limit and refused beyond it with nothing
changed, a spent grant deleted, generic grants running a delegation as the granter, stake allow/deny lists and
max tokens, revoke, expiry and the begin blocker's pruning, the queries, amino JSON and replay."""

import json

import pytest
from google.protobuf import any_pb2

import staking_msgs
from chain_driver import PROPOSER, LatestQueryContext, balance, ok
from chaind.chain.modules.authz import keeper
from chaind.chain.modules.authz.query import AuthzQuery
from chaind.chain.replay import replay_chain
from chaind.crypto.addresses import to_bech32
from chaind.pb.cosmos.authz.v1beta1 import authz_pb2, query_pb2
from chaind.pb.cosmos.authz.v1beta1 import tx_pb2 as authz_tx
from chaind.pb.cosmos.bank.v1beta1 import authz_pb2 as bank_authz
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.abci.v1beta1 import abci_pb2
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.staking.v1beta1 import authz_pb2 as staking_authz
from gov_driver import address, attrs, make_chain, run

S = 10**9
GRANT, REVOKE, EXEC = ("/cosmos.authz.v1beta1.MsgGrant", "/cosmos.authz.v1beta1.MsgRevoke",
                       "/cosmos.authz.v1beta1.MsgExec")
SEND_AUTH = "/cosmos.bank.v1beta1.SendAuthorization"
SEND = "/cosmos.bank.v1beta1.MsgSend"


def pack(type_url, message):
    return any_pb2.Any(type_url=type_url, value=message.SerializeToString())


def coins(amount, denom="achain"):
    return [coin_pb2.Coin(denom=denom, amount=str(amount))]


def grant(chain, granter, grantee, authorization, expiration_ns=None):
    g = authz_pb2.Grant(authorization=pack("/" + authorization.DESCRIPTOR.full_name, authorization))
    if expiration_ns is not None:
        g.expiration.FromNanoseconds(expiration_ns)
    return GRANT, authz_tx.MsgGrant(granter=chain.b32(address(chain, granter)),
                                    grantee=chain.b32(address(chain, grantee)), grant=g)


def send_msg(chain, sender, to, amount):
    return bank_tx.MsgSend(from_address=chain.b32(sender), to_address=chain.b32(to), amount=coins(amount))


def exec_(chain, grantee, *messages):
    return EXEC, authz_tx.MsgExec(grantee=chain.b32(address(chain, grantee)),
                                  msgs=[pack(url, m) for url, m in messages])


def stored(chain, granter, grantee, url):
    return chain.app.keepers["authz"].grant(chain.app.view(), address(chain, granter), address(chain, grantee), url)


def test_a_grantee_sends_within_its_limit_and_is_refused_beyond_it(chain):
    granter, grantee = address(chain, 1), address(chain, 2)
    target = b"\x77" * 20
    block = ok(run(chain, [(1, [grant(chain, 1, 2, bank_authz.SendAuthorization(spend_limit=coins(100)))])]))
    assert attrs(block.results[0].events, "cosmos.authz.v1beta1.EventGrant") == [{
        "grantee": json.dumps(chain.b32(grantee)), "granter": json.dumps(chain.b32(granter)),
        "msg_type_url": json.dumps("/cosmos.bank.v1beta1.MsgSend")}]
    before = balance(chain, granter)
    block = ok(run(chain, [(2, [exec_(chain, 2, (SEND, send_msg(chain, granter, target, 60)))])]))
    assert balance(chain, target) == 60 and balance(chain, granter) == before - 60
    transfer = [t for t in attrs(block.results[0].events, "transfer") if "authz_msg_index" in t]
    assert transfer == [{"recipient": chain.b32(target), "sender": chain.b32(granter), "amount": "60achain",
                         "authz_msg_index": "0"}]
    left = bank_authz.SendAuthorization.FromString(stored(chain, 1, 2, SEND).authorization.value)
    assert left.spend_limit == coins(40)
    # Beyond the limit: refused with the SDK's code, nothing moves, the grant stays as it was.
    view = chain.app.view()
    block = run(chain, [(2, [exec_(chain, 2, (SEND, send_msg(chain, granter, target, 41)))])])
    result = block.results[0]
    assert (result.codespace, result.code) == ("sdk", 5)
    assert "requested amount is more than spend limit: insufficient funds" in result.log
    assert balance(chain, target) == 60 and balance(chain, granter) == before - 60
    assert chain.app.keepers["authz"].grant(view, granter, grantee, "/cosmos.bank.v1beta1.MsgSend") == \
        stored(chain, 1, 2, SEND)
    # Spending the rest deletes the grant (EventRevoke).
    block = ok(run(chain, [(2, [exec_(chain, 2, (SEND, send_msg(chain, granter, target, 40)))])]))
    assert attrs(block.results[0].events, "cosmos.authz.v1beta1.EventRevoke")
    assert stored(chain, 1, 2, SEND) is None
    block = run(chain, [(2, [exec_(chain, 2, (SEND, send_msg(chain, granter, target, 1)))])])
    assert (block.results[0].codespace, block.results[0].code) == ("authz", 2)
    assert "authorization not found" in block.results[0].log


def test_a_send_allow_list_refuses_other_recipients(chain):
    granter = address(chain, 1)
    allowed, other = b"\x71" * 20, b"\x72" * 20
    ok(run(chain, [(1, [grant(chain, 1, 2, bank_authz.SendAuthorization(
        spend_limit=coins(100), allow_list=[chain.b32(allowed)]))])]))
    block = run(chain, [(2, [exec_(chain, 2, (SEND, send_msg(chain, granter, other, 5)))])])
    assert (block.results[0].codespace, block.results[0].code) == ("sdk", 4)
    assert f"cannot send to {chain.b32(other)} address" in block.results[0].log
    ok(run(chain, [(2, [exec_(chain, 2, (SEND, send_msg(chain, granter, allowed, 5)))])]))
    assert balance(chain, allowed) == 5


def test_each_allow_list_entry_looked_at_costs_gas_as_in_the_sdk(chain):
    """SendAuthorization.Accept walks its allow list up to the receiver at 10 gas an entry (gasCostPerIteration);
    a tx whose gas covers everything but that walk runs out of gas there."""
    target = b"\x73" * 20
    listed = [chain.b32(b"\x71" * 20), chain.b32(b"\x72" * 20), chain.b32(target)]
    ok(run(chain, [(1, [grant(chain, 1, 2, bank_authz.SendAuthorization(spend_limit=coins(100), allow_list=listed))]),
                   (3, [grant(chain, 3, 4, bank_authz.SendAuthorization(spend_limit=coins(100)))])]))
    block = ok(run(chain, [(2, [exec_(chain, 2, (SEND, send_msg(chain, address(chain, 1), target, 1)))]),
                           (4, [exec_(chain, 4, (SEND, send_msg(chain, address(chain, 3), target, 1)))])]))
    with_list, without = (r.gas_used for r in block.results)
    assert with_list - without == 30
    raw = chain.native(chain.keys[2], [exec_(chain, 2, (SEND, send_msg(chain, address(chain, 1), target, 1)))],
                       gas=with_list - 5)
    chain.clock += 10**9
    committed, puts = chain.app.finalize_block([raw], chain.clock, PROPOSER)
    chain.app.commit(committed, puts)
    result = committed.results[0]
    assert (result.codespace, result.code) == ("sdk", 11)
    assert f"out of gas in location: send authorization; gasWanted: {with_list - 5}, gasUsed: " in result.log
    assert balance(chain, target) == 2


def test_a_generic_grant_runs_a_delegation_as_the_granter_and_revoke_ends_it(chain):
    granter = address(chain, 1)
    operator = chain.genesis.validators[0].operator
    ok(run(chain, [(1, [grant(chain, 1, 2, authz_pb2.GenericAuthorization(msg=staking_msgs.DELEGATE))])]))
    block = ok(run(chain, [(2, [exec_(chain, 2, staking_msgs.delegate(chain.prefix, granter, operator, 7 * 10**18))])]))
    assert attrs(block.results[0].events, "delegate")[0]["delegator"] == chain.b32(granter)
    response = authz_tx.MsgExecResponse.FromString(
        abci_pb2.TxMsgData.FromString(block.results[0].data).msg_responses[0].value)
    assert len(response.results) == 1
    # A generic grant is not used up.
    assert stored(chain, 1, 2, staking_msgs.DELEGATE) is not None
    block = ok(run(chain, [(1, [(REVOKE, authz_tx.MsgRevoke(granter=chain.b32(granter),
                                                             grantee=chain.b32(address(chain, 2)),
                                                             msg_type_url=staking_msgs.DELEGATE))])]))
    assert attrs(block.results[0].events, "cosmos.authz.v1beta1.EventRevoke")
    block = run(chain, [(2, [exec_(chain, 2, staking_msgs.delegate(chain.prefix, granter, operator, 10**18))])])
    assert (block.results[0].codespace, block.results[0].code) == ("authz", 2)
    # Revoking again: not found.
    block = run(chain, [(1, [(REVOKE, authz_tx.MsgRevoke(granter=chain.b32(granter),
                                                          grantee=chain.b32(address(chain, 2)),
                                                          msg_type_url=staking_msgs.DELEGATE))])])
    assert (block.results[0].codespace, block.results[0].code) == ("authz", 2)


def test_a_stake_authorization_keeps_to_its_validators_and_max_tokens(chain):
    granter = address(chain, 1)
    operator = chain.genesis.validators[0].operator
    valoper = staking_msgs.valoper(chain.prefix, operator)
    denied = staking_authz.StakeAuthorization(authorization_type=staking_authz.AUTHORIZATION_TYPE_DELEGATE)
    denied.deny_list.address.append(valoper)
    ok(run(chain, [(1, [grant(chain, 1, 2, denied)])]))
    block = run(chain, [(2, [exec_(chain, 2, staking_msgs.delegate(chain.prefix, granter, operator, 10))])])
    assert (block.results[0].codespace, block.results[0].code) == ("sdk", 4)
    assert f"cannot delegate/undelegate to {valoper} validator" in block.results[0].log
    allowed = staking_authz.StakeAuthorization(authorization_type=staking_authz.AUTHORIZATION_TYPE_DELEGATE,
                                               max_tokens=coin_pb2.Coin(denom="achain", amount="30"))
    allowed.allow_list.address.append(valoper)
    ok(run(chain, [(1, [grant(chain, 1, 2, allowed)])]))     # replaces the deny-list grant
    ok(run(chain, [(2, [exec_(chain, 2, staking_msgs.delegate(chain.prefix, granter, operator, 20))])]))
    left = staking_authz.StakeAuthorization.FromString(stored(chain, 1, 2, staking_msgs.DELEGATE).authorization.value)
    assert left.max_tokens.amount == "10" and list(left.allow_list.address) == [valoper]
    block = run(chain, [(2, [exec_(chain, 2, staking_msgs.delegate(chain.prefix, granter, operator, 11))])])
    assert block.results[0].code != 0
    ok(run(chain, [(2, [exec_(chain, 2, staking_msgs.delegate(chain.prefix, granter, operator, 10))])]))
    assert stored(chain, 1, 2, staking_msgs.DELEGATE) is None


def test_an_expired_grant_is_refused_then_pruned(chain):
    granter = address(chain, 1)
    expires = chain.clock + 3 * S
    ok(run(chain, [(1, [grant(chain, 1, 2, bank_authz.SendAuthorization(spend_limit=coins(100)), expires)])]))
    assert stored(chain, 1, 2, SEND).expiration.ToNanoseconds() == expires
    # A grant that would expire before the block is refused.
    block = run(chain, [(1, [grant(chain, 1, 3, bank_authz.SendAuthorization(spend_limit=coins(1)), chain.clock)])])
    assert (block.results[0].codespace, block.results[0].code) == ("authz", 3)
    # Past its expiration, the begin blocker has deleted it: not found.
    block = run(chain, [(2, [exec_(chain, 2, ("/cosmos.bank.v1beta1.MsgSend",
                                              send_msg(chain, granter, b"\x55" * 20, 1)))])], after_s=4)
    assert (block.results[0].codespace, block.results[0].code) == ("authz", 2)
    assert stored(chain, 1, 2, SEND) is None
    assert list(chain.app.view().store.iterate(keeper._QUEUE)) == []


def test_an_expired_grant_not_yet_pruned_is_refused_as_expired(chain):
    granter, grantee = address(chain, 1), address(chain, 2)
    # Written straight into state, as a grant the begin blocker has not reached yet would be.
    ctx = chain.app._context(chain.app.height + 1, chain.clock, b"", 0, chain.app.head[1].evm_state_root)
    any_ = pack(SEND_AUTH, bank_authz.SendAuthorization(spend_limit=coins(5)))
    g = authz_pb2.Grant(authorization=any_)
    g.expiration.FromNanoseconds(chain.clock - S)
    ctx.store.set(keeper.grant_key(granter, grantee, "/cosmos.bank.v1beta1.MsgSend"), g.SerializeToString())
    from chaind.chain.errors import TxError
    from chaind.chain.modules.authz.msgs import _authorize

    with pytest.raises(TxError) as e:
        _authorize(chain.app, ctx, granter, grantee, "/cosmos.bank.v1beta1.MsgSend", None)
    assert (e.value.codespace, e.value.code, e.value.log) == ("authz", 6, "authorization expired")


def test_bad_grants_are_refused_with_the_sdks_codes(chain):
    me = chain.b32(address(chain, 1))
    self_grant = authz_tx.MsgGrant(granter=me, grantee=me, grant=authz_pb2.Grant(
        authorization=pack(SEND_AUTH, bank_authz.SendAuthorization(spend_limit=coins(1)))))
    with pytest.raises(Exception) as e:
        chain.app.check_tx(chain.native(chain.keys[1], [(GRANT, self_grant)]))
    assert (e.value.codespace, e.value.code) == ("authz", 7)
    cases = [
        (bank_authz.SendAuthorization(), ("sdk", 10, "spend limit cannot be nil: invalid coins")),
        (authz_pb2.GenericAuthorization(msg="/no.such.Msg"), ("sdk", 29, "/no.such.Msg doesn't exist.: invalid type")),
        (staking_authz.StakeAuthorization(), ("authz", 4, "unknown authorization type")),
    ]
    for authorization, (codespace, code, log) in cases:
        block = run(chain, [(1, [grant(chain, 1, 2, authorization)])])
        r = block.results[0]
        assert (r.codespace, r.code) == (codespace, code) and log in r.log, r.log
    assert chain.app.keepers["authz"].all_grants(chain.app.view()) == []


def test_queries_list_grants_by_pair_granter_and_grantee(chain):
    ok(run(chain, [(1, [grant(chain, 1, 2, bank_authz.SendAuthorization(spend_limit=coins(9))),
                        grant(chain, 1, 3, authz_pb2.GenericAuthorization(msg=staking_msgs.DELEGATE))]),
                   (3, [grant(chain, 3, 2, authz_pb2.GenericAuthorization(msg=staking_msgs.UNDELEGATE))])]))
    q, ctx = AuthzQuery(chain.app), LatestQueryContext()
    b = [chain.b32(address(chain, i)) for i in range(4)]
    pair = q.Grants(query_pb2.QueryGrantsRequest(granter=b[1], grantee=b[2]), ctx)
    assert [g.authorization.type_url for g in pair.grants] == [SEND_AUTH]
    one = q.Grants(query_pb2.QueryGrantsRequest(granter=b[1], grantee=b[3], msg_type_url=staking_msgs.DELEGATE), ctx)
    assert len(one.grants) == 1
    with pytest.raises(Exception, match="authorization not found"):
        q.Grants(query_pb2.QueryGrantsRequest(granter=b[1], grantee=b[2], msg_type_url="/x.Y"), ctx)
    by_granter = q.GranterGrants(query_pb2.QueryGranterGrantsRequest(granter=b[1]), ctx)
    assert sorted(g.grantee for g in by_granter.grants) == sorted([b[2], b[3]])
    by_grantee = q.GranteeGrants(query_pb2.QueryGranteeGrantsRequest(grantee=b[2]), ctx)
    assert sorted(g.granter for g in by_grantee.grants) == sorted([b[1], b[3]])
    assert by_grantee.pagination.total == 2


def test_amino_json_of_a_grant_and_an_exec(chain):
    encoder = chain.app.amino
    stake = staking_authz.StakeAuthorization(authorization_type=staking_authz.AUTHORIZATION_TYPE_DELEGATE)
    stake.allow_list.address.append("evmosvaloper1x")
    _, msg = grant(chain, 1, 2, stake, expiration_ns=1_700_000_000 * S)
    value = encoder.named(msg)
    assert value["type"] == "cosmos-sdk/MsgGrant"
    assert value["value"]["grant"] == {
        "authorization": {"type": "cosmos-sdk/StakeAuthorization", "value": {
            "Validators": {"type": "cosmos-sdk/StakeAuthorization/AllowList",
                           "value": {"allow_list": {"address": ["evmosvaloper1x"]}}},
            "authorization_type": 1}},
        "expiration": "2023-11-14T22:13:20Z"}
    _, send_grant = grant(chain, 1, 2, bank_authz.SendAuthorization(spend_limit=coins(3)))
    assert encoder.named(send_grant)["value"]["grant"]["authorization"] == {
        "type": "cosmos-sdk/SendAuthorization", "value": {"spend_limit": [{"amount": "3", "denom": "achain"}]}}
    _, e = exec_(chain, 2, (SEND, send_msg(chain, address(chain, 1), address(chain, 3), 1)))
    assert encoder.named(e)["value"]["msgs"][0]["type"] == "cosmos-sdk/MsgSend"
    # Txs signed in amino JSON carrying a grant and an exec are accepted and run.
    granter = address(chain, 1)
    ok(run_amino(chain, 1, [grant(chain, 1, 2, bank_authz.SendAuthorization(spend_limit=coins(5)))]))
    ok(run_amino(chain, 2, [exec_(chain, 2, (SEND, send_msg(chain, granter, b"\x66" * 20, 5)))]))
    assert balance(chain, b"\x66" * 20) == 5


def run_amino(chain, who, messages):
    raw = chain.native(chain.keys[who], messages, gas=400000, amino_encoder=chain.app.amino)
    chain.clock += S
    block, puts = chain.app.finalize_block([raw], chain.clock, PROPOSER)
    chain.app.commit(block, puts)
    return block


def test_replay_reproduces_the_app_hashes(tmp_path):
    chain = make_chain(tmp_path)
    granter = address(chain, 1)
    limit = bank_authz.SendAuthorization(spend_limit=coins(100))
    ok(run(chain, [(1, [grant(chain, 1, 2, limit, chain.clock + 5 * S)])]))
    ok(run(chain, [(2, [exec_(chain, 2, (SEND, send_msg(chain, granter, b"\x44" * 20, 9)))])]))
    run(chain, [], after_s=6)
    assert "authz" in dict(chain.app.store_version().roots)
    report = replay_chain(chain.app, tmp_path / "replayed.db", chain.app.options.vote_key,
                          chain.app.options.validator_address)
    assert report.ok and report.last_height == chain.app.height, str(report.mismatch)
    chain.close()


def test_genesis_grants(tmp_path):
    from chain_driver import Chain
    from chaind.home import Home

    home = Home(tmp_path / "home")
    home.init("test", dev=True)
    doc = json.loads(home.genesis_file.read_text())
    keys = home.dev_keys()
    b = [to_bech32("chain", k.address) for k in keys]
    send_limit = {"@type": SEND_AUTH, "spend_limit": [{"denom": "achain", "amount": "7"}]}
    doc["app_state"]["authz"] = {"authorization": [
        {"granter": b[1], "grantee": b[2], "authorization": send_limit},
        {"granter": b[1], "grantee": b[3], "authorization": send_limit, "expiration": "2000-01-01T00:00:00Z"}]}
    home.genesis_file.write_text(json.dumps(doc))
    chain = Chain(tmp_path, "db")
    try:
        view = chain.app.view()
        authz = chain.app.keepers["authz"]
        assert authz.grant(view, keys[1].address, keys[2].address, SEND) is not None
        assert authz.grant(view, keys[1].address, keys[3].address, SEND) is None     # expired at genesis
    finally:
        chain.close()


def test_the_begin_blocker_prunes_at_most_its_limit_a_block_and_reads_the_queue_only_when_due(chain):
    ctx = chain.app._context(chain.app.height + 1, chain.clock, b"", 0, chain.app.head[1].evm_state_root)
    any_ = pack(SEND_AUTH, bank_authz.SendAuthorization(spend_limit=coins(5)))
    granter = address(chain, 1)
    authz = chain.app.keepers["authz"]
    for i in range(5):
        authz.save_grant(ctx, granter, bytes([i + 1]) * 20, any_, SEND, 1000 + i)
    assert ctx.store.get(keeper._NEXT) == b"1000"
    authz.prune_expired(ctx, 999)
    assert len(authz.grants_of_granter(ctx, granter)) == 5
    authz.prune_expired(ctx, 2000, limit=2)
    assert len(authz.grants_of_granter(ctx, granter)) == 3 and ctx.store.get(keeper._NEXT) == b"1002"
    authz.prune_expired(ctx, 1003)
    assert len(authz.grants_of_granter(ctx, granter)) == 1 and ctx.store.get(keeper._NEXT) == b"1004"
    authz.prune_expired(ctx, 1004)
    assert authz.grants_of_granter(ctx, granter) == [] and ctx.store.get(keeper._NEXT) is None
