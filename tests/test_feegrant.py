"""x/feegrant on an App: allowances granted, used by a tx's fee granter (an account with no balance pays
through its granter), spend and period limits, the allowed-message filter, expiry and pruning, revocation."""

import pytest
from google.protobuf import duration_pb2, timestamp_pb2

from chaind.chain import errors, txs
from chaind.chain.modules.feegrant import allowances
from chaind.crypto.keys import AccountKey
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.feegrant.v1beta1 import feegrant_pb2
from chaind.pb.cosmos.feegrant.v1beta1 import tx_pb2 as feegrant_tx
from native_txs import build_native, build_signed

GRANT = "/cosmos.feegrant.v1beta1.MsgGrantAllowance"
REVOKE = "/cosmos.feegrant.v1beta1.MsgRevokeAllowance"
PRUNE = "/cosmos.feegrant.v1beta1.MsgPruneAllowances"
GAS = 200000


class Grantee:
    """A fresh account (a key of its own, no balance at all): its fees can come only from a granter."""

    def __init__(self, chain):
        self.key = AccountKey(b"\x42" * 32)
        self.address = self.key.address


def fee(chain):
    return chain.app.next_base_fee() * GAS


def coins(chain, amount):
    return [coin_pb2.Coin(denom=chain.genesis.base_denom, amount=str(amount))]


def grant(chain, grantee, allowance, granter=2):
    msg = feegrant_tx.MsgGrantAllowance(granter=chain.b32(chain.keys[granter].address), grantee=chain.b32(grantee),
                                        allowance=allowances.pack(allowance))
    return chain.block([chain.native(chain.keys[granter], [(GRANT, msg)])]).results[0]


def prune(chain, who):
    """A message that costs nothing to run: what an account with no balance can send."""
    return PRUNE, feegrant_tx.MsgPruneAllowances(pruner=chain.b32(who))


def granted(chain, grantee, messages=None, granter=2):
    """A tx of the grantee's whose fee its granter pays."""
    return chain.native(grantee.key, messages or [prune(chain, grantee.address)], gas=GAS,
                        granter=chain.b32(chain.keys[granter].address))


def base(chain, address):
    return chain.app.keepers["bank"].balance(chain.app.view(), address, chain.genesis.base_denom)


def attributes(result, kind):
    return [{k: v for k, v, _ in e.attributes} for e in result.events if e.type == kind]


def refused(chain, raw, code, text, codespace="feegrant"):
    with pytest.raises(errors.TxError) as caught:
        chain.app.check_tx(raw)
    assert (caught.value.codespace, caught.value.code) == (codespace, code), caught.value.log
    assert text in caught.value.log
    return caught.value


def test_an_account_with_no_balance_pays_its_fee_through_its_granter(chain):
    grantee = Grantee(chain)
    result = grant(chain, grantee.address, feegrant_pb2.BasicAllowance(spend_limit=coins(chain, 10**18)))
    assert attributes(result, "set_feegrant") == [{"granter": chain.b32(chain.keys[2].address),
                                                   "grantee": chain.b32(grantee.address)}]
    granter_before = base(chain, chain.keys[2].address)
    raw = granted(chain, grantee)
    paid = sum(a for _, a in chain.app.check_tx(raw).fee)
    result = chain.block([raw]).results[0]
    assert base(chain, grantee.address) == 0
    assert base(chain, chain.keys[2].address) == granter_before - paid
    assert attributes(result, "use_feegrant") == [{"granter": chain.b32(chain.keys[2].address),
                                                   "grantee": chain.b32(grantee.address)}]
    assert attributes(result, "update_feegrant")
    assert [a["fee_payer"] for a in attributes(result, "tx") if "fee_payer" in a] == \
        [chain.b32(chain.keys[2].address)]
    left = chain.app.keepers["feegrant"].grant(chain.app.view(), chain.keys[2].address, grantee.address)
    assert allowances.coins_of(allowances.unpack(left.allowance).spend_limit) == \
        [(chain.genesis.base_denom, 10**18 - paid)]


def test_the_spend_limit_is_enforced_and_a_used_up_grant_goes(chain):
    grantee = Grantee(chain)
    exact = fee(chain)
    grant(chain, grantee.address, feegrant_pb2.BasicAllowance(spend_limit=coins(chain, exact // 2)))
    refused(chain, granted(chain, grantee), 2, "basic allowance: fee limit exceeded")
    view = chain.app.view()
    before = (base(chain, chain.keys[2].address), view.accounts.get_nonce(grantee.address))
    block = chain.app.finalize_block([granted(chain, grantee)], chain.genesis.genesis_time_ns + 10**12, b"\1" * 20)[0]
    assert (block.results[0].codespace, block.results[0].code) == ("feegrant", 2)
    assert (base(chain, chain.keys[2].address), chain.app.view().accounts.get_nonce(grantee.address)) == before
    # Revoke, and grant what one fee takes: the tx paying exactly that uses it up, and the grant goes.
    chain.block([chain.native(chain.keys[2], [(REVOKE, feegrant_tx.MsgRevokeAllowance(
        granter=chain.b32(chain.keys[2].address), grantee=chain.b32(grantee.address)))])])
    grant(chain, grantee.address, feegrant_pb2.BasicAllowance(spend_limit=coins(chain, exact)))
    view = chain.app.view()
    raw = build_native([prune(chain, grantee.address)], grantee.key, chain.genesis.chain_id,
                       chain.app.keepers["auth"].account(view, grantee.address)[0],
                       view.accounts.get_nonce(grantee.address),
                       [(chain.genesis.base_denom, exact)], exact // chain.app.next_base_fee(),
                       granter=chain.b32(chain.keys[2].address))
    result = chain.block([raw]).results[0]
    assert attributes(result, "revoke_feegrant") and attributes(result, "use_feegrant")
    assert chain.app.keepers["feegrant"].grant(chain.app.view(), chain.keys[2].address, grantee.address) is None
    refused(chain, granted(chain, grantee), 5, "allowance does not exist: fee-grant not found")


def test_a_periodic_allowance_resets_each_period(chain):
    grantee = Grantee(chain)
    per_tx = fee(chain) * 3 // 2      # one fee, not two (the base fee falls a little in empty blocks)
    grant(chain, grantee.address, feegrant_pb2.PeriodicAllowance(
        basic=feegrant_pb2.BasicAllowance(), period=duration_pb2.Duration(seconds=5),
        period_spend_limit=coins(chain, per_tx), period_can_spend=coins(chain, per_tx)))
    chain.block([granted(chain, grantee)])
    refused(chain, granted(chain, grantee), 2, "period limit: fee limit exceeded")
    for _ in range(5):                       # blocks are 1 s apart: the period ends
        chain.block([])
    chain.block([granted(chain, grantee)])


def test_an_allowed_message_allowance_pays_only_for_its_messages(chain):
    grantee = Grantee(chain)
    grant(chain, grantee.address, feegrant_pb2.AllowedMsgAllowance(
        allowance=allowances.pack(feegrant_pb2.BasicAllowance()), allowed_messages=[PRUNE]))
    chain.block([granted(chain, grantee)])
    other = chain.b32(chain.keys[3].address)
    revoke = REVOKE, feegrant_tx.MsgRevokeAllowance(granter=chain.b32(grantee.address), grantee=other)
    refused(chain, granted(chain, grantee, [revoke]), 7, "message does not exist in allowed messages: "
            "message not allowed")


def test_an_expired_allowance_is_refused_then_pruned(chain):
    grantee = Grantee(chain)
    expires = chain.genesis.genesis_time_ns + (chain.app.height + 3) * 10**9
    grant(chain, grantee.address, feegrant_pb2.BasicAllowance(
        expiration=timestamp_pb2.Timestamp(seconds=expires // 10**9)))
    chain.block([granted(chain, grantee)])
    chain.block([])
    chain.block([])
    # The grant expired with the last block's time: check_tx (at the head's time) refuses it; the end block of
    # the block at its expiry removed it.
    assert chain.app.keepers["feegrant"].grant(chain.app.view(), chain.keys[2].address, grantee.address) is None
    refused(chain, granted(chain, grantee), 5, "fee-grant not found")


def test_grant_and_revoke_refusals(chain):
    grantee = Grantee(chain)
    basic = feegrant_pb2.BasicAllowance()
    grant(chain, grantee.address, basic)
    raw = chain.native(chain.keys[2], [(GRANT, feegrant_tx.MsgGrantAllowance(
        granter=chain.b32(chain.keys[2].address), grantee=chain.b32(grantee.address),
        allowance=allowances.pack(basic)))])
    result = chain.app.finalize_block([raw], chain.genesis.genesis_time_ns + 10**12, b"\1" * 20)[0].results[0]
    assert (result.code, "fee allowance already exists" in result.log) == (18, True)
    self_grant = chain.native(chain.keys[2], [(GRANT, feegrant_tx.MsgGrantAllowance(
        granter=chain.b32(chain.keys[2].address), grantee=chain.b32(chain.keys[2].address),
        allowance=allowances.pack(basic)))])
    result = chain.app.finalize_block([self_grant], chain.genesis.genesis_time_ns + 10**12, b"\1" * 20)[0].results[0]
    assert (result.code, "cannot self-grant fee authorization" in result.log) == (7, True)
    missing = chain.native(chain.keys[2], [(REVOKE, feegrant_tx.MsgRevokeAllowance(
        granter=chain.b32(chain.keys[2].address), grantee=chain.b32(chain.keys[4].address)))])
    result = chain.app.finalize_block([missing], chain.genesis.genesis_time_ns + 10**12, b"\1" * 20)[0].results[0]
    assert (result.codespace, result.code) == ("feegrant", 5)
    bad_limit = feegrant_pb2.BasicAllowance(spend_limit=coins(chain, 0))
    raw = chain.native(chain.keys[2], [(GRANT, feegrant_tx.MsgGrantAllowance(
        granter=chain.b32(chain.keys[2].address), grantee=chain.b32(chain.keys[5].address),
        allowance=allowances.pack(bad_limit)))])
    result = chain.app.finalize_block([raw], chain.genesis.genesis_time_ns + 10**12, b"\1" * 20)[0].results[0]
    assert result.code == 10 and "spend limit must be positive" in result.log


def test_a_grant_signed_in_amino_json(chain):
    """MsgGrantAllowance's allowance travels in amino JSON as {"type": "cosmos-sdk/BasicAllowance", ...}."""
    grantee = Grantee(chain)
    msg = feegrant_tx.MsgGrantAllowance(
        granter=chain.b32(chain.keys[2].address), grantee=chain.b32(grantee.address),
        allowance=allowances.pack(feegrant_pb2.PeriodicAllowance(
            basic=feegrant_pb2.BasicAllowance(spend_limit=coins(chain, 10**18),
                                              expiration=timestamp_pb2.Timestamp(seconds=4102444800)),
            period=duration_pb2.Duration(seconds=60), period_spend_limit=coins(chain, 10**17),
            period_can_spend=coins(chain, 10**17), period_reset=timestamp_pb2.Timestamp(seconds=1800000000))))
    named = chain.app.amino.named(msg)
    allowance = named["value"]["allowance"]
    assert named["type"] == "cosmos-sdk/MsgGrantAllowance"
    assert allowance["type"] == "cosmos-sdk/PeriodicAllowance"
    assert allowance["value"]["period"] == "60000000000"
    assert allowance["value"]["basic"]["expiration"] == "2100-01-01T00:00:00Z"
    raw = chain.native(chain.keys[2], [(GRANT, msg)], amino_encoder=chain.app.amino)
    assert chain.block([raw]).results[0].code == 0


def test_a_replay_from_genesis_reproduces_feegrant_and_multi_signer_blocks(chain, tmp_path):
    """The feegrant store is in the app hash; a replay of grants, granted fees, a two-signer tx with a fee payer
    and an expiry pruned at end block gives every block's app hash again."""
    from chaind.chain.replay import replay_chain

    grantee = Grantee(chain)
    expires = chain.genesis.genesis_time_ns + (chain.app.height + 4) * 10**9
    grant(chain, grantee.address, feegrant_pb2.BasicAllowance(
        spend_limit=coins(chain, 10**18), expiration=timestamp_pb2.Timestamp(seconds=expires // 10**9)))
    before = chain.app.store_version().root_of("feegrant")
    chain.block([granted(chain, grantee)])
    assert chain.app.store_version().root_of("feegrant") not in (None, before)
    view = chain.app.view()
    signers = [(chain.keys[w], chain.app.keepers["auth"].account(view, chain.keys[w].address)[0],
                view.accounts.get_nonce(chain.keys[w].address), txs.ETH_PUBKEY) for w in (3, 4)]
    messages = [prune(chain, chain.keys[3].address)]
    chain.block([build_signed(messages, signers, chain.genesis.chain_id, [(chain.genesis.base_denom, fee(chain))],
                              GAS, payer=chain.b32(chain.keys[4].address), amino_encoder=chain.app.amino)])
    for _ in range(3):
        chain.block([])
    assert chain.app.keepers["feegrant"].grant(chain.app.view(), chain.keys[2].address, grantee.address) is None
    report = replay_chain(chain.app, tmp_path / "replayed.db", chain.app.options.vote_key,
                          chain.app.options.validator_address)
    assert report.ok and report.last_height == chain.app.height
