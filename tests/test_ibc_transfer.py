"""ICS-20 transfers between two chaind chains without a node, over a transfer channel a relayer opened and relayed
with proofs: A's coin escrowed and a voucher minted on B (its denom trace, metadata and events as ibc-go writes
them), the voucher burnt going home and the coin unescrowed, a timeout and an error acknowledgement refunding the
sender, params, and no coin created or lost across all of it (the total escrow equals the vouchers outstanding)."""

import hashlib
import json

from chaind.chain.modules.transfer.denoms import escrow_address, ibc_denom, parse_trace
from chaind.chain.modules.transfer.invariants import total_escrow_per_denom
from chaind.crypto.addresses import module_address
from gov_driver import attrs
from ibc_channel_msgs import ok
from ibc_transfer_msgs import (
    SUCCESS,
    ack_on,
    address,
    b32,
    recv_on,
    relay,
    sent_packets,
    signed_block,
    timeout_on,
    transfer,
    update_params_through_gov,
    written_ack,
)

ESCROW = escrow_address("transfer", "channel-0")
STAKE_ON_B = ibc_denom(parse_trace("transfer/channel-0/stake"))


def balance(chain, owner, denom):
    return chain.app.keepers["bank"].balance(chain.app.view(), owner, denom)


def total_escrow(chain, denom):
    return chain.app.keepers["transfer"].total_escrow(chain.app.view(), denom)


def supply(chain, denom):
    return chain.app.keepers["bank"].supply(chain.app.view(), denom)


def assert_conserved(transfer_pair, denom="stake", voucher=STAKE_ON_B):
    """No coin created or lost: what A holds in escrow is what B has outstanding as vouchers, and both chains'
    invariants (ICS-20's total escrow among them) hold."""
    a, b = transfer_pair.a, transfer_pair.b
    assert balance(a, ESCROW, denom) == total_escrow(a, denom) == supply(b, voucher)
    for chain in (a, b):
        assert total_escrow_per_denom(chain.app, chain.app.view()) is None
        chain.app.keepers["crisis"].assert_invariants(chain.app, chain.app.view())


def test_a_coin_goes_to_b_as_a_voucher_and_comes_home(transfer_pair):
    a, b = transfer_pair.a, transfer_pair.b
    start = balance(a, address(a), "stake")
    sent = ok(signed_block(transfer_pair, a, [transfer(a, "stake", 1000, b32(b))]))
    data = json.dumps({"amount": "1000", "denom": "stake", "receiver": b32(b), "sender": b32(a)},
                      separators=(",", ":")).encode()
    [packet] = sent_packets(sent)
    assert (packet.sequence, packet.data) == (1, data)
    assert attrs(sent.events, "ibc_transfer") == [
        {"sender": b32(a), "receiver": b32(b), "amount": "1000", "denom": "stake", "memo": ""}]
    assert {"module": "transfer"} in attrs(sent.events, "message")
    assert balance(a, address(a), "stake") == start - 1000
    assert balance(a, ESCROW, "stake") == total_escrow(a, "stake") == 1000
    assert supply(b, STAKE_ON_B) == 0       # in flight

    received = ok(recv_on(transfer_pair, a, b, packet))
    assert written_ack(received) == SUCCESS
    digest = hashlib.sha256(b"transfer/channel-0/stake").hexdigest().upper()
    assert STAKE_ON_B == "ibc/" + digest
    assert attrs(received.events, "denomination_trace") == [{"trace_hash": digest, "denom": STAKE_ON_B}]
    assert attrs(received.events, "fungible_token_packet") == [
        {"module": "transfer", "sender": b32(a), "receiver": b32(b), "denom": "stake", "amount": "1000", "memo": "",
         "success": "true"}]
    assert balance(b, address(b), STAKE_ON_B) == supply(b, STAKE_ON_B) == 1000
    view = b.app.view()
    trace = b.app.keepers["transfer"].denom_trace(view, bytes.fromhex(digest))
    assert (trace.path, trace.base_denom) == ("transfer/channel-0", "stake")
    assert b.app.keepers["bank"].metadata(view, STAKE_ON_B) == {
        "description": "IBC token from transfer/channel-0/stake",
        "denom_units": [{"denom": "stake", "exponent": 0, "aliases": []}], "base": STAKE_ON_B,
        "display": "transfer/channel-0/stake", "name": "transfer/channel-0/stake IBC token", "symbol": "STAKE"}

    acked = ok(ack_on(transfer_pair, a, b, packet, SUCCESS))
    assert attrs(acked.events, "fungible_token_packet") == [
        {"module": "transfer", "sender": b32(a), "receiver": b32(b), "denom": "stake", "amount": "1000", "memo": "",
         "acknowledgement": 'result:"\\001" '}, {"success": "\x01"}]
    assert_conserved(transfer_pair)

    # Home: B burns 400 of the voucher, A unescrows 400 stake.
    back = ok(signed_block(transfer_pair, b, [transfer(b, STAKE_ON_B, 400, b32(a))]))
    [home] = sent_packets(back)
    assert json.loads(home.data)["denom"] == "transfer/channel-0/stake"
    assert supply(b, STAKE_ON_B) == 600 and attrs(back.events, "burn")
    [(received, ack, _)] = relay(transfer_pair, b, a, back)
    assert ack == SUCCESS and not attrs(received.events, "denomination_trace")
    assert balance(a, address(a), "stake") == start - 600
    assert balance(a, ESCROW, "stake") == total_escrow(a, "stake") == 600
    assert_conserved(transfer_pair)


def test_a_transfer_that_times_out_is_refunded(transfer_pair):
    a, b = transfer_pair.a, transfer_pair.b
    start = balance(a, address(a), "stake")
    timeout_height = (1, b.height + 3)
    sent = ok(signed_block(transfer_pair, a, [transfer(a, "stake", 70, b32(b), timeout_height=timeout_height,
                                              timeout_timestamp=0, memo="<hi & bye>")]))
    [packet] = sent_packets(sent)
    assert b'"memo":"\\u003chi \\u0026 bye\\u003e"' in packet.data
    while b.height < timeout_height[1]:
        transfer_pair.block(b)
    assert total_escrow(a, "stake") == 70
    refunded = ok(timeout_on(transfer_pair, a, b, packet))
    assert attrs(refunded.events, "timeout") == [
        {"module": "transfer", "refund_receiver": b32(a), "refund_denom": "stake", "refund_amount": "70",
         "memo": "<hi & bye>"}]
    assert balance(a, address(a), "stake") == start
    assert total_escrow(a, "stake") == 0 and balance(a, ESCROW, "stake") == 0
    assert a.app.keepers["transfer"].total_escrowed(a.app.view()) == []
    assert_conserved(transfer_pair)


def test_an_error_acknowledgement_refunds_the_sender_and_b_keeps_nothing(transfer_pair):
    a, b = transfer_pair.a, transfer_pair.b
    start = balance(a, address(a), "stake")
    fee_collector = b.chain.b32(module_address("fee_collector"))
    sent = ok(signed_block(transfer_pair, a, [transfer(a, "stake", 5, fee_collector)]))
    [packet] = sent_packets(sent)
    received = ok(recv_on(transfer_pair, a, b, packet))
    ack = written_ack(received)
    assert ack == b'{"error":"ABCI code: 4: error handling packet: see events for details"}'
    # The callback's events are kept, prefixed, as ibc-go's msg server keeps a failed callback's events.
    [found] = attrs(received.events, "ibccallbackerror-fungible_token_packet")
    assert found["ibccallbackerror-success"] == "false"
    assert found["ibccallbackerror-error"] == (
        f"failed to send coins to receiver {fee_collector}: {fee_collector} is not allowed to receive funds: "
        "unauthorized")
    assert supply(b, STAKE_ON_B) == 0 and b.app.keepers["transfer"].denom_traces(b.app.view())[-1].base_denom \
        == "uatom"      # the dev genesis' trace only: the failed receive's writes are gone
    acked = ok(ack_on(transfer_pair, a, b, packet, ack))
    assert attrs(acked.events, "fungible_token_packet")[1] == {
        "error": "ABCI code: 4: error handling packet: see events for details"}
    assert balance(a, address(a), "stake") == start and total_escrow(a, "stake") == 0
    assert_conserved(transfer_pair)


def test_the_dev_vouchers_sent_over_a_real_channel_0_come_back_refunded(transfer_pair):
    """The dev genesis' ibc/27394FB0… says it came over transfer/channel-0: sent back over a real channel-0, the
    counterparty (which escrowed no uatom) answers an error acknowledgement, and the sender gets it back."""
    a, b = transfer_pair.a, transfer_pair.b
    voucher = ibc_denom(parse_trace("transfer/channel-0/uatom"))
    assert voucher.startswith("ibc/27394FB092D2ECCD")
    start = balance(b, address(b), voucher)
    sent = ok(signed_block(transfer_pair, b, [transfer(b, voucher, 10, b32(a))]))
    assert supply(b, voucher) == b.app.keepers["bank"].supply(b.app.view(), voucher)
    assert balance(b, address(b), voucher) == start - 10
    [packet] = sent_packets(sent)
    assert json.loads(packet.data)["denom"] == "transfer/channel-0/uatom"
    received = ok(recv_on(transfer_pair, b, a, packet))
    assert written_ack(received) == b'{"error":"ABCI code: 5: error handling packet: see events for details"}'
    ok(ack_on(transfer_pair, b, a, packet, written_ack(received)))
    assert balance(b, address(b), voucher) == start


def test_params_turn_sending_and_receiving_off(transfer_pair):
    a, b = transfer_pair.a, transfer_pair.b
    update_params_through_gov(transfer_pair, a, send_enabled=False, receive_enabled=False)
    r = signed_block(transfer_pair, a, [transfer(a, "stake", 1, b32(b))])
    assert (r.codespace, r.code) == ("transfer", 7) and r.log.endswith(
        "fungible token transfers from this chain are disabled")
    assert total_escrow(a, "stake") == 0
    start = balance(b, address(b), "stake")
    sent = ok(signed_block(transfer_pair, b, [transfer(b, "stake", 3, b32(a))]))
    [packet] = sent_packets(sent)
    received = ok(recv_on(transfer_pair, b, a, packet))
    assert written_ack(received) == b'{"error":"ABCI code: 8: error handling packet: see events for details"}'
    ok(ack_on(transfer_pair, b, a, packet, written_ack(received)))
    assert balance(b, address(b), "stake") == start


def test_no_coin_is_created_or_lost_across_sends_receipts_acks_and_timeouts(transfer_pair):
    """Both ways, with a timeout and an error acknowledgement among them: the supplies of each chain's own coin
    never move, and what A holds in escrow is always what B has outstanding as vouchers (and back)."""
    a, b = transfer_pair.a, transfer_pair.b
    stake_on_a = ibc_denom(parse_trace("transfer/channel-0/stake"))        # B's stake on A: the same path
    supplies = {chain: supply(chain, "stake") for chain in (a, b)}
    relay(transfer_pair, a, b, ok(signed_block(transfer_pair, a, [transfer(a, "stake", 300, b32(b))])))
    relay(transfer_pair, b, a, ok(signed_block(transfer_pair, b, [transfer(b, "stake", 80, b32(a))])))
    relay(transfer_pair, b, a, ok(signed_block(transfer_pair, b, [transfer(b, STAKE_ON_B, 120, b32(a))])))     # home
    relay(transfer_pair, a, b, ok(signed_block(transfer_pair, a, [transfer(a, stake_on_a, 30, b32(b))])))      # home
    fee_collector = b.chain.b32(module_address("fee_collector"))
    refused = ok(signed_block(transfer_pair, a, [transfer(a, "stake", 9, fee_collector)]))
    [(_, ack, _)] = relay(transfer_pair, a, b, refused)
    assert b'"error"' in ack
    late = ok(signed_block(transfer_pair, a, [transfer(a, "stake", 11, b32(b), timeout_height=(1, b.height + 2),
                                              timeout_timestamp=0)]))
    while b.height <= sent_packets(late)[0].timeout_height.revision_height:
        transfer_pair.block(b)
    ok(timeout_on(transfer_pair, a, b, sent_packets(late)[0]))
    for chain in (a, b):
        assert supply(chain, "stake") == supplies[chain]
    assert balance(a, ESCROW, "stake") == total_escrow(a, "stake") == supply(b, STAKE_ON_B) == 180
    assert balance(b, ESCROW, "stake") == total_escrow(b, "stake") == supply(a, stake_on_a) == 50
    assert_conserved(transfer_pair)
    assert total_escrow_per_denom(b.app, b.app.view()) is None
