"""erc20's CLI table: token pairs; conversions both ways, and the authority's register-erc20 and toggle-conversion
(register-coin, hand-written, says why there is no such message)."""

import click

from chaind.chain.cli_table import Arg, Msg, Queries, Query, Txs

QUERY = Queries("chaind.pb.evmos.erc20.v1.query_pb2", "ERC-20 token pairs.", (
    Query("token-pair", "TokenPair", "The token pair of a denom or an ERC-20 contract address.", args=(Arg("token"),)),
    Query("token-pairs", "TokenPairs", "All registered token pairs."),
    Query("params", "Params", "The erc20 module's parameters."),
))


def hand_written(kit):
    """register-coin: Evmos v20 has no such message; the command says where native coins' pairs come from."""

    @click.command("register-coin", context_settings={"ignore_unknown_options": True})
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def register_coin(args):
        """Not a message on this chain: native coins are paired in genesis (Evmos v20 has no MsgRegisterCoin)."""
        raise click.ClickException(
            "there is no coin registration message: as in Evmos v20, a native coin's token pair comes from "
            "genesis (app_state.erc20.token_pairs with contract_owner OWNER_MODULE); ERC-20 contracts are "
            "registered with `tx erc20 register-erc20`")

    return [register_coin]


_SENDER = "Sender key (name or address)"
_AUTHORITY = "The erc20 module's authority (the node refuses others)"

TX = Txs("chaind.pb.evmos.erc20.v1.tx_pb2", "Convert between ERC-20 tokens and native coins.", (
    Msg("convert-erc20", "MsgConvertERC20",
        "Convert AMOUNT of an ERC-20 token into its native coin (to RECEIVER, default the sender).", "sender",
        args=(Arg("contract_address", "evm"), Arg("amount", "amount"),
              Arg("receiver", "acc", required=False, signer_default=True)), signer_kind="evm", from_help=_SENDER),
    Msg("convert-coin", "MsgConvertCoin", "Convert a native COIN (e.g. 100stake) into its ERC-20 token (to RECEIVER, "
        "0x or bech32; default the sender).", "sender",
        args=(Arg("coin", "coin"), Arg("receiver", "eip55", required=False, signer_default=True)), from_help=_SENDER),
    Msg("register-erc20", "MsgRegisterERC20", "Register ERC-20 contracts as token pairs (authority only).",
        "authority", args=(Arg("erc20addresses", "eip55", "contract_addresses", many=True),), from_help=_AUTHORITY,
        precheck=True),
    Msg("toggle-conversion", "MsgToggleConversion",
        "Enable or disable conversions of a token pair (by denom or contract address; authority only).",
        "authority", args=(Arg("token"),), from_help=_AUTHORITY, precheck=True),
), custom=hand_written)
