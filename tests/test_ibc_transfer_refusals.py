"""ICS-20's refusals between two chaind chains without a node: a MsgTransfer ibc-go would refuse fails with its
codespace, code and text (ValidateBasic's already at check_tx) and escrows nothing; a packet the receiving side
cannot take (not ICS-20 JSON, a bad denom or amount, a receiver that is no address) is answered with ibc-go's error
acknowledgement, its events kept under the ibccallbackerror- prefix, and the sender is refunded when it is relayed
back."""

import pytest

from chaind.chain.errors import TxError
from chaind.chain.modules.transfer.denoms import escrow_address
from chaind.pb.ibc.core.channel.v1 import channel_pb2 as pb
from gov_driver import attrs
from ibc_channel_msgs import SEND, connected_pair, ok, send
from ibc_transfer_msgs import (
    ack_on,
    address,
    b32,
    closed_transfer_channel,
    recv_on,
    sent_packets,
    signed_block,
    transfer,
    written_ack,
)

ESCROW = escrow_address("transfer", "channel-0")
FAILED = "failed to execute message; message index: 0: "


def balances(chain):
    bank, view = chain.app.keepers["bank"], chain.app.view()
    return (bank.all_balances(view, address(chain)), bank.all_balances(view, ESCROW),
            chain.app.keepers["transfer"].total_escrowed(view))


def refused(transfer_pair, chain, message, codespace, code, text, at_check=False):
    """The tx fails with ibc-go's error (at check_tx too when `at_check`: ValidateBasic's) and moves no coin."""
    if at_check:
        raw = chain.chain.native(chain.chain.keys[2], [message], gas=1_000_000)
        with pytest.raises(TxError) as refusal:
            chain.app.check_tx(raw)
        assert (refusal.value.codespace, refusal.value.code, refusal.value.log) == (codespace, code, text)
    before = balances(chain)
    r = signed_block(transfer_pair, chain, [message])
    # ValidateBasic's refusals come before any message runs: their text has no message index.
    assert (r.codespace, r.code, r.log) == (codespace, code, text if at_check else FAILED + text)
    after = balances(chain)
    assert (after[1], after[2]) == (before[1], before[2]) and after[0][1:] == before[0][1:]   # fees aside


def test_transfers_ibc_go_refuses_fail_with_its_errors_and_escrow_nothing(transfer_pair):
    a, b = transfer_pair.a, transfer_pair.b
    have = a.app.keepers["bank"].balance(a.app.view(), address(a), "stake")
    refused(transfer_pair, a, transfer(a, "stake", have + 1, b32(b)), "sdk", 5,
            f"spendable balance {have}stake is smaller than {have + 1}stake: insufficient funds")
    refused(transfer_pair, a, transfer(a, "stake", 5, " "), "ibc", 5, "missing recipient address: invalid address",
            at_check=True)
    refused(transfer_pair, a, transfer(a, "stake", 5, "x" * 2049), "ibc", 5,
            "recipient address must not exceed 2048 bytes: invalid address", at_check=True)
    refused(transfer_pair, a, transfer(a, "stake", 5, b32(b), memo="m" * 32769), "transfer", 11,
            "memo must not exceed 32768 bytes: invalid memo", at_check=True)
    refused(transfer_pair, a, transfer(a, "stake", 0, b32(b)), "ibc", 3, "0stake: insufficient funds", at_check=True)
    refused(transfer_pair, a, transfer(a, "stake", 5, b32(b), channel="channel-7"), "channel", 3,
            "port ID (transfer) channel ID (channel-7): channel not found")
    refused(transfer_pair, a, transfer(a, "stake", 5, b32(b), channel="ch"), "host", 2,
            "invalid source channel ID: identifier ch has invalid length: 2, must be between 8-64 characters: "
            "invalid identifier", at_check=True)
    refused(transfer_pair, a, transfer(a, "stake", 5, b32(b), timeout_timestamp=0), "channel", 13,
            "constructed packet failed basic validation: packet timeout height and packet timeout timestamp cannot "
            "both be 0: invalid packet")
    latest = a.app.keepers["ibc_client"].client_state(a.app.view(), "07-tendermint-0").latest_height
    refused(transfer_pair, a, transfer(a, "stake", 5, b32(b), timeout_height=(1, 2), timeout_timestamp=0), "channel",
            40,
            f"invalid packet timeout: current height: 1-{latest.revision_height}, timeout height 1-2: timeout elapsed")
    refused(transfer_pair, a, transfer(a, "ibc/XY", 5, b32(b)), "undefined", 1,
            "invalid denom trace hash XY: encoding/hex: invalid byte: U+0058 'X'", at_check=True)
    unknown = "AB" * 32
    refused(transfer_pair, a, transfer(a, f"ibc/{unknown}", 5, b32(b)), "transfer", 6,
            f"{unknown}: denomination trace not found")
    refused(transfer_pair, a, transfer(a, "ibc", 5, b32(b)), "transfer", 3,
            "denomination should be prefixed with the format 'ibc/{hash(trace + \"/\" + ibc)}': "
            "invalid denomination for cross-chain transfer", at_check=True)
    refused(transfer_pair, a, transfer(a, "stake", 5, b32(b), port="mock"), "channel", 3,
            "port ID (mock) channel ID (channel-0): channel not found")


def test_a_packet_the_receiver_cannot_take_gets_ibc_gos_error_acknowledgement(transfer_pair):
    """B's transfer port sends packets ICS-20 would never write (a test handler commits them as its own)."""
    a, b = transfer_pair.a, transfer_pair.b
    keeper = b.app.keepers["ibc_channel"]
    b.app.handlers[SEND] = transfer_pair.apps[b].send_handler(keeper, b.relayer)
    receiver = b32(a)
    cases = [
        (b"not json", 12, "cannot unmarshal ICS-20 transfer packet data: invalid type"),
        (b'{"amount":"5","denom":"stake","receiver":"%s","sender":"x","extra":1}' % receiver.encode(), 12,
         "cannot unmarshal ICS-20 transfer packet data: invalid type"),
        (b'{"amount":"5","denom":"transfer/channel-3/","receiver":"%s","sender":"x"}' % receiver.encode(), 3,
         "error validating ICS-20 transfer packet data: base denomination cannot be blank: invalid denomination for "
         "cross-chain transfer"),
        (b'{"amount":"0","denom":"stake","receiver":"%s","sender":"x"}' % receiver.encode(), 5,
         "error validating ICS-20 transfer packet data: amount must be strictly positive: got 0: invalid token "
         "amount"),
        (b'{"amount":"5","denom":"stake","receiver":"cosmos1xyz","sender":"x"}', 1,
         "failed to decode receiver address: cosmos1xyz: decoding bech32 failed: invalid bech32 string "
         "'cosmos1xyz'"),
    ]
    for sequence, (data, code, text) in enumerate(cases, start=1):
        sent = ok(transfer_pair.block(b, [send(port="transfer", data=data, timeout_timestamp=4 * 10**18)]))
        [packet] = sent_packets(sent)
        assert packet.sequence == sequence
        received = ok(recv_on(transfer_pair, b, a, packet))
        assert written_ack(received) == (b'{"error":"ABCI code: %d: error handling packet: see events for details"}'
                                         % code)
        [found] = attrs(received.events, "ibccallbackerror-fungible_token_packet")
        assert (found["ibccallbackerror-success"], found["ibccallbackerror-error"]) == ("false", text)
    assert a.app.keepers["transfer"].denom_traces(a.app.view())[-1].base_denom == "uatom"    # the dev trace only


def test_a_refund_on_an_error_acknowledgement_of_a_voucher_mints_it_back(transfer_pair):
    """B's voucher of A's stake goes home to a receiver A cannot credit: A acknowledges an error and B mints the
    burnt voucher back to its sender."""
    a, b = transfer_pair.a, transfer_pair.b
    sent = ok(signed_block(transfer_pair, a, [transfer(a, "stake", 50, b32(b))]))
    [packet] = sent_packets(sent)
    ok(ack_on(transfer_pair, a, b, packet, written_ack(ok(recv_on(transfer_pair, a, b, packet)))))
    voucher = b.app.keepers["bank"].all_balances(b.app.view(), address(b))
    [(denom, _)] = [(d, n) for d, n in voucher if d.startswith("ibc/") and not d.startswith("ibc/27394FB0")]
    home = ok(signed_block(transfer_pair, b, [transfer(b, denom, 20, "chain1notanaddress")]))
    [packet] = sent_packets(home)
    assert b.app.keepers["bank"].supply(b.app.view(), denom) == 30
    received = ok(recv_on(transfer_pair, b, a, packet))
    assert b'"error"' in written_ack(received)
    acked = ok(ack_on(transfer_pair, b, a, packet, written_ack(received)))
    assert attrs(acked.events, "coinbase") and b.app.keepers["bank"].supply(b.app.view(), denom) == 50
    assert b.app.keepers["bank"].balance(b.app.view(), address(b), denom) == 50
    assert a.app.keepers["transfer"].total_escrow(a.app.view(), "stake") == 50



def test_a_transfer_on_a_closed_channel_is_refused_and_escrows_nothing(tmp_path):
    made = connected_pair(tmp_path)
    try:
        closed_transfer_channel(made)
        a, b = made.a, made.b
        assert a.app.keepers["ibc_channel"].channel(a.app.view(), "transfer", "channel-0").state == pb.STATE_CLOSED
        refused(made, a, transfer(a, "stake", 5, b32(b)), "channel", 5,
                "channel is not OPEN (got STATE_CLOSED): invalid channel state")
    finally:
        made.close()
