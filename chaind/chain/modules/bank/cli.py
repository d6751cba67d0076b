"""bank's CLI table: balances, supply and denom metadata; send, and multi-send (hand-written: FROM TO... AMOUNT)."""

import click

from chaind.chain.cli_table import Arg, Flag, Msg, Narrow, Queries, Query, Txs

QUERY = Queries("chaind.pb.cosmos.bank.v1beta1.query_pb2", "Balances, supply and denom metadata.", (
    Query("balances", "AllBalances", "All balances of an account (bech32 or 0x), or one with --denom.",
          args=(Arg("address", "acc"),), narrow=Narrow("denom", "Balance", "Only this denom's balance"),
          flags=(Flag("resolve-denom", "Show denoms by their display name where metadata has one", "bool"),)),
    Query("balance", "Balance", "One denom's balance of an account.", args=(Arg("address", "acc"), Arg("denom"))),
    Query("total", "TotalSupply", "The total supply of coins, or of one denom.",
          narrow=Narrow("denom", "SupplyOf", "Only this denom's supply")),
    Query("denom-metadata", "DenomsMetadata", "Metadata of all denoms, or of one.",
          narrow=Narrow("denom", "DenomMetadata", "Only this denom's metadata")),
    Query("params", "Params", "The bank module's parameters."),
))


def hand_written(kit):
    """multi-send: its recipients are a variable list before AMOUNT, and --split divides AMOUNT among them."""

    @click.command("multi-send")
    @click.argument("from_")
    @click.argument("to_addresses_and_amount", nargs=-1, required=True)
    @click.option("--split", is_flag=True, help="Split AMOUNT evenly between the recipients")
    @kit.tx_options
    def multi_send(from_, to_addresses_and_amount, split, **_):
        """Send AMOUNT from one key to each of several addresses: FROM TO_1 TO_2 ... AMOUNT."""
        ctx = click.get_current_context()
        if len(to_addresses_and_amount) < 3:
            raise click.UsageError("want FROM, at least two recipients and AMOUNT")
        *recipients, amount = to_addresses_and_amount
        coins = kit.parse_coins(amount, what="amount")
        if split:
            coins = [(d, a // len(recipients)) for d, a in coins]
        if any(a == 0 for _, a in coins):
            raise click.ClickException(f"invalid amount {amount!r}: must be positive")
        from chaind.pb.cosmos.bank.v1beta1 import bank_pb2, tx_pb2

        total = [(d, a * len(recipients)) for d, a in coins]
        msg = tx_pb2.MsgMultiSend(
            inputs=[bank_pb2.Input(address=kit.to_bech32(kit.prefix(ctx), kit.sender_address(ctx, from_)),
                                   coins=kit.coin_protos(total))],
            outputs=[bank_pb2.Output(address=kit.bech32_address(ctx, r), coins=kit.coin_protos(coins))
                     for r in recipients])
        kit.generate_or_broadcast(ctx, from_, [("/cosmos.bank.v1beta1.MsgMultiSend", msg)])

    return [multi_send]


TX = Txs("chaind.pb.cosmos.bank.v1beta1.tx_pb2", "Send coins.", (
    Msg("send", "MsgSend", "Send AMOUNT (e.g. 10achain,5stake) from a key (name or address) to an address "
        "(bech32 or 0x).", "from_address", args=(Arg("to_address", "acc"), Arg("amount", "coins")), from_arg=True),
), custom=hand_written, signers={"MsgMultiSend": "inputs"})
