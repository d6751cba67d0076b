"""Vouchers that are ERC-20s at once (Evmos v20's erc20 IBC middleware on ICS-20), between two chaind chains without
a node: a new single-hop voucher gets its token pair and ERC-20 precompile on receive, balanceOf and transfer move
its bank balance, it goes home over IBC, and the exceptions (a voucher of several hops, a sender that is its own
receiver on a channel that is not an EVM channel) register nothing."""

from eth_abi import decode

from chaind.chain.modules import erc20
from chaind.chain.modules.transfer import ibc_denom, parse_trace
from chaind.crypto.addresses import checksum_address
from gov_driver import attrs
from ibc_channel_msgs import ok
from ibc_evm import calldata, eth_call, evm_block
from ibc_transfer_msgs import (
    SUCCESS,
    address,
    b32,
    open_transfer_channel,
    recv_on,
    relay,
    sent_packets,
    signed_block,
    transfer,
    written_ack,
)

STAKE_ON_B = ibc_denom(parse_trace("transfer/channel-0/stake"))
TOKEN = erc20.pair_address(STAKE_ON_B)
DEV_VOUCHER = ibc_denom(parse_trace("transfer/channel-0/uatom"))


def balance_of(chain, token, owner):
    return decode(["uint256"], eth_call(chain, token, calldata("balanceOf(address)", owner)))[0]


def bank(chain, owner, denom):
    return chain.app.keepers["bank"].balance(chain.app.view(), owner, denom)


def test_a_new_voucher_is_an_erc20_at_once_and_goes_home(transfer_pair):
    a, b = transfer_pair.a, transfer_pair.b
    keeper = b.app.keepers["erc20"]
    assert keeper.pair_of(b.app.view(), STAKE_ON_B) is None
    sent = ok(signed_block(transfer_pair, a, [transfer(a, "stake", 1000, b32(b))]))
    [packet] = sent_packets(sent)
    received = ok(recv_on(transfer_pair, a, b, packet))
    assert written_ack(received) == SUCCESS
    assert attrs(received.events, "register_erc20_extension") == [
        {"source_channel": "channel-0", "erc20_token": checksum_address(TOKEN), "cosmos_coin": STAKE_ON_B}]
    view = b.app.view()
    found = keeper.pair_of(view, STAKE_ON_B)
    assert (found.erc20_address, found.denom, found.enabled, found.contract_owner) == (
        checksum_address(TOKEN), STAKE_ON_B, True, erc20.OWNER_MODULE)
    params = keeper.params(view)
    assert checksum_address(TOKEN) in params.dynamic_precompiles
    assert list(params.dynamic_precompiles) == sorted(params.dynamic_precompiles)
    assert view.accounts.get_code(TOKEN) == erc20.PRECOMPILE_CODE

    # The ERC-20 is the bank balance: balanceOf reads it, transfer moves it.
    user, other = address(b), b.chain.keys[3].address
    assert balance_of(b, TOKEN, user) == bank(b, user, STAKE_ON_B) == 1000
    moved = evm_block(transfer_pair, b, 2, calldata("transfer(address,uint256)", other, 300), checksum_address(TOKEN))
    assert moved.receipt.status == 1, moved.receipt.vm_error
    assert bank(b, user, STAKE_ON_B) == balance_of(b, TOKEN, user) == 700
    assert bank(b, other, STAKE_ON_B) == balance_of(b, TOKEN, other) == 300
    approved = evm_block(transfer_pair, b, 2, calldata("approve(address,uint256)", other, 50), checksum_address(TOKEN))
    assert approved.receipt.status == 1, approved.receipt.vm_error
    assert decode(["uint256"], eth_call(b, TOKEN, calldata("allowance(address,address)", user, other)))[0] == 50

    # A second transfer of the denom registers nothing more.
    again = ok(signed_block(transfer_pair, a, [transfer(a, "stake", 5, b32(b))]))
    [(received, ack, _)] = relay(transfer_pair, a, b, again)
    assert ack == SUCCESS and not attrs(received.events, "register_erc20_extension")
    assert keeper.params(b.app.view()) == params

    # The ERC-20-represented coin goes home over IBC (MsgTransfer, as the CLI sends it).
    start = bank(a, address(a), "stake")
    back = ok(signed_block(transfer_pair, b, [transfer(b, STAKE_ON_B, 400, b32(a))]))
    [(_, ack, _)] = relay(transfer_pair, b, a, back)
    assert ack == SUCCESS
    assert bank(a, address(a), "stake") == start + 400
    assert balance_of(b, TOKEN, user) == 305


def test_a_voucher_of_two_hops_or_to_its_own_sender_off_an_evm_channel_registers_nothing(transfer_pair):
    a, b = transfer_pair.a, transfer_pair.b
    (ours, theirs), _ = open_transfer_channel(transfer_pair)
    assert (ours, theirs) == ("channel-1", "channel-1")
    keeper = b.app.keepers["erc20"]
    before = keeper.params(b.app.view())

    # The sender is its own receiver on channel-1, which B's evm params do not list: Evmos' ErrInvalidIBC, an
    # error acknowledgement, and nothing received.
    sent = ok(signed_block(transfer_pair, a, [transfer(a, "stake", 10, b32(b), channel=ours)]))
    [packet] = sent_packets(sent)
    refused = ok(recv_on(transfer_pair, a, b, packet))
    assert written_ack(refused) == b'{"error":"ABCI code: 14: error handling packet: see events for details"}'
    assert bank(b, address(b), ibc_denom(parse_trace("transfer/channel-1/stake"))) == 0

    # A's dev voucher (transfer/channel-0/uatom) over channel-1 arrives with two hops: a bank coin, no token pair.
    other = b.chain.b32(b.chain.keys[3].address)
    sent = ok(signed_block(transfer_pair, a, [transfer(a, DEV_VOUCHER, 25, other, channel=ours)]))
    [(received, ack, _)] = relay(transfer_pair, a, b, sent)
    assert ack == SUCCESS and not attrs(received.events, "register_erc20_extension")
    two_hops = ibc_denom(parse_trace("transfer/channel-1/transfer/channel-0/uatom"))
    assert bank(b, b.chain.keys[3].address, two_hops) == 25
    assert keeper.pair_of(b.app.view(), two_hops) is None
    assert keeper.params(b.app.view()) == before
