"""evm's CLI table: accounts, code, storage and parameters; `tx evm raw` (hand-written: a signed EVM tx, no key)."""

import re

import click

from chaind.chain.cli_table import Arg, Queries, Query, Txs


def _storage_key(text):
    """A storage slot written in hex (0x optional), left-padded to 32 bytes."""
    digits = text[2:] if text.startswith(("0x", "0X")) else text
    try:
        slot = bytes.fromhex(digits.rjust(64, "0"))
    except ValueError:
        slot = b""
    if len(slot) != 32:
        raise ValueError(f"{text!r} is not a hex storage key of at most 32 bytes")
    return "0x" + slot.hex()


_ADDRESS = Arg("address", "evm")

QUERY = Queries("chaind.pb.ethermint.evm.v1.query_pb2", "EVM accounts, code, storage and parameters.", (
    Query("account", "Account", "Balance, code hash and nonce of an address (0x or bech32).", args=(_ADDRESS,)),
    Query("code", "Code", "The contract code at an address.", args=(_ADDRESS,)),
    Query("storage", "Storage", "One storage slot (KEY: hex, padded to 32 bytes) of a contract.",
          args=(_ADDRESS, Arg("key", parse=_storage_key))),
    Query("params", "Params", "The evm module's parameters."),
))


def hand_written(kit):
    """raw: the tx is signed already (an EVM tx), so there is no signer, only the wrapping and the broadcast."""

    @click.command()
    @click.argument("tx_hex")
    @click.option("--node", default=None, envvar="CHAIND_NODE", help="<host>:<port> of the node's CometBFT RPC")
    @click.option("--broadcast-mode", type=click.Choice(["sync", "async"]), default=None, help="sync or async")
    @kit.home_option
    @kit.output_option
    def raw(tx_hex, **_):
        """Broadcast a signed EVM tx (RLP or typed, hex) wrapped in a MsgEthereumTx."""
        ctx = click.get_current_context()
        digits = tx_hex[2:] if tx_hex.startswith(("0x", "0X")) else tx_hex
        try:
            evm_raw = bytes.fromhex(digits)
        except ValueError:
            raise click.ClickException("TX_HEX is not hex") from None
        rpc = kit.rpc_client(ctx)
        genesis = rpc.call("genesis")["genesis"]
        match = re.match(r"^[a-z]+_([1-9][0-9]*)-[1-9][0-9]*$", genesis["chain_id"])
        if match is None:
            raise click.ClickException(f"the node's chain id {genesis['chain_id']!r} names no EIP-155 id")
        from chaind.chain import errors, txs

        try:
            wrapped = txs.wrap_evm(evm_raw, int(match.group(1)), genesis["app_state"]["evm"]["params"]["evm_denom"])
        except errors.TxError as e:
            raise click.ClickException(e.log) from None
        # The TxResponse names the native hash; EVM tools look the tx up by this one.
        click.echo(f"evm hash: 0x{wrapped.evm_hash.hex()}", err=True)
        kit.broadcast(ctx, wrapped.raw, rpc)

    return [raw]


TX = Txs("chaind.pb.ethermint.evm.v1.tx_pb2", "EVM transactions.", custom=hand_written)
