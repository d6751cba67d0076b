"""Errors a tx can fail with, as codespace and code pairs the Cosmos SDK uses."""

import attrs

SDK = "sdk"
EVM = "evm"


@attrs.frozen
class TxError(Exception):
    """A tx rejected by check_tx or failed in finalize_block.

    `log` follows the SDK's shape "<detail>: <registered error text>"; `evm_message` is the
    geth-style text an EVM JSON-RPC client expects for the same failure.
    """

    codespace: str
    code: int
    log: str
    evm_message: str = None

    def __str__(self):
        return self.log


def decode_error(detail):
    return TxError(SDK, 2, f"{detail}: tx parse error", f"invalid transaction: {detail}")


def unknown_request(detail):
    return TxError(SDK, 6, f"{detail}: unknown request")


def unauthorized(detail):
    return TxError(SDK, 4, f"{detail}: unauthorized", detail)


def invalid_sender(detail, evm_message):
    """An EVM tx whose sender does not recover: Evmos' EthSigVerificationDecorator wraps the signer's error in the
    SDK's ErrorInvalidSigner."""
    return TxError(SDK, 24, f"couldn't retrieve sender address from the ethereum transaction: {detail}: "
                   "tx intended signer does not match the given signer", evm_message)


def insufficient_funds(detail, evm_message=None):
    return TxError(SDK, 5, f"{detail}: insufficient funds", evm_message or detail)


def invalid_address(detail):
    return TxError(SDK, 7, f"{detail}: invalid address")


def invalid_coins(detail):
    return TxError(SDK, 10, f"{detail}: invalid coins")


def out_of_gas(detail):
    return TxError(SDK, 11, f"out of gas in location: {detail}: out of gas", "out of gas")


def insufficient_fee(detail, evm_message=None):
    return TxError(SDK, 13, f"{detail}: insufficient fee", evm_message or detail)


def no_signatures():
    return TxError(SDK, 15, "no signatures supplied")


def invalid_request(detail, evm_message=None):
    return TxError(SDK, 18, f"{detail}: invalid request", evm_message or detail)


def already_known():
    return TxError(SDK, 19, "tx already exists in cache", "already known")


def mempool_full(detail):
    return TxError(SDK, 20, f"{detail}: mempool is full", "txpool is full")


def tx_too_large(detail):
    return TxError(SDK, 21, f"{detail}: tx too large", "oversized data")


def wrong_sequence(expected, got, evm_message):
    return TxError(SDK, 32, f"account sequence mismatch, expected {expected}, got {got}: "
                   "incorrect account sequence", evm_message)


def invalid_gas_limit(detail):
    return TxError(SDK, 41, f"{detail}: invalid gas limit", detail)


def invalid_chain_id(detail):
    return TxError(SDK, 18, f"{detail}: invalid chain-id", detail)
