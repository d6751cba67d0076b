"""vesting's CLI: balances (locked, unvested, vested); create-vesting-account (--delayed),
create-permanent-locked-account and create-periodic-vesting-account (periods from a JSON file, as the SDK's)."""

import json

import click

from chaind.chain.cli_table import Arg, Queries, Query, Txs

QUERY = Queries("chaind.pb.evmos.vesting.v2.query_pb2", "Vesting accounts' balances.", (
    Query("balances", "Balances", "A vesting account's locked, unvested and vested coins.",
          args=(Arg("address", "acc"),)),
))


def _periods(path):
    """{"start_time": unix seconds, "periods": [{"coins": "10achain", "length_seconds": 60}, ...]}."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise click.ClickException(f"cannot read {path}: {e}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("periods"), list) or \
            not isinstance(doc.get("start_time"), int):
        raise click.ClickException(f"{path}: want {{\"start_time\": unix seconds, \"periods\": [{{\"coins\": "
                                   "\"10achain\", \"length_seconds\": 60}, ...]}")
    return doc


def hand_written(kit):
    def sender(ctx, from_):
        return kit.to_bech32(kit.prefix(ctx), kit.sender_address(ctx, from_))

    def recipient(ctx, text):
        try:
            return kit.bech32_address(ctx, text)
        except Exception:  # noqa: BLE001 (any parse failure is the user's typo)
            raise click.ClickException(f"invalid to address {text!r}") from None

    @click.command("create-vesting-account")
    @click.argument("to_address")
    @click.argument("amount")
    @click.argument("end_time", type=int)
    @click.option("--from", "from_", required=True, help="Funding key (name or address)")
    @click.option("--delayed", is_flag=True, help="Vest everything at END_TIME (default: continuously until then)")
    @kit.tx_options
    def create_vesting_account(to_address, amount, end_time, from_, delayed, **_):
        """Create TO_ADDRESS as a vesting account funded with AMOUNT, vesting until END_TIME (unix seconds)."""
        ctx = click.get_current_context()
        from chaind.pb.cosmos.vesting.v1beta1 import tx_pb2

        msg = tx_pb2.MsgCreateVestingAccount(
            from_address=sender(ctx, from_), to_address=recipient(ctx, to_address),
            amount=kit.coin_protos(kit.parse_coins(amount, what="amount")), end_time=end_time, delayed=delayed)
        kit.generate_or_broadcast(ctx, from_, [("/cosmos.vesting.v1beta1.MsgCreateVestingAccount", msg)])

    @click.command("create-permanent-locked-account")
    @click.argument("to_address")
    @click.argument("amount")
    @click.option("--from", "from_", required=True, help="Funding key (name or address)")
    @kit.tx_options
    def create_permanent_locked_account(to_address, amount, from_, **_):
        """Create TO_ADDRESS as an account whose AMOUNT stays locked (it may still delegate and vote)."""
        ctx = click.get_current_context()
        from chaind.pb.cosmos.vesting.v1beta1 import tx_pb2

        msg = tx_pb2.MsgCreatePermanentLockedAccount(
            from_address=sender(ctx, from_), to_address=recipient(ctx, to_address),
            amount=kit.coin_protos(kit.parse_coins(amount, what="amount")))
        kit.generate_or_broadcast(ctx, from_, [("/cosmos.vesting.v1beta1.MsgCreatePermanentLockedAccount", msg)])

    @click.command("create-periodic-vesting-account")
    @click.argument("to_address")
    @click.argument("periods_file", type=click.Path(dir_okay=False))
    @click.option("--from", "from_", required=True, help="Funding key (name or address)")
    @kit.tx_options
    def create_periodic_vesting_account(to_address, periods_file, from_, **_):
        """Create TO_ADDRESS as a vesting account funded and vesting period by period, from PERIODS_FILE:
        {"start_time": 1625204910, "periods": [{"coins": "10achain", "length_seconds": 2592000}, ...]}."""
        ctx = click.get_current_context()
        doc = _periods(periods_file)
        from chaind.pb.cosmos.vesting.v1beta1 import tx_pb2, vesting_pb2

        periods = []
        for i, p in enumerate(doc["periods"]):
            if not isinstance(p, dict) or not isinstance(p.get("length_seconds"), int) or \
                    not isinstance(p.get("coins"), str):
                raise click.ClickException(f"{periods_file}: period {i} wants coins (text) and length_seconds")
            periods.append(vesting_pb2.Period(length=p["length_seconds"],
                                              amount=kit.coin_protos(kit.parse_coins(p["coins"], what="coins"))))
        msg = tx_pb2.MsgCreatePeriodicVestingAccount(
            from_address=sender(ctx, from_), to_address=recipient(ctx, to_address), start_time=doc["start_time"],
            vesting_periods=periods)
        kit.generate_or_broadcast(ctx, from_, [("/cosmos.vesting.v1beta1.MsgCreatePeriodicVestingAccount", msg)])

    return [create_vesting_account, create_permanent_locked_account, create_periodic_vesting_account]


TX = Txs("chaind.pb.cosmos.vesting.v1beta1.tx_pb2", "Create vesting accounts.", custom=hand_written,
         signers={"MsgCreateVestingAccount": "from_address", "MsgCreatePermanentLockedAccount": "from_address",
                  "MsgCreatePeriodicVestingAccount": "from_address"})
