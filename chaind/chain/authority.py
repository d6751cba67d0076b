"""Who may change a module's params: the gov module account, as every SDK v0.50 keeper's authority."""

from chaind.chain import errors
from chaind.crypto.addresses import AddressError, module_address, parse

GOV = module_address("gov")


def check(app, authority, extra=b""):
    """The msg servers' check; a mismatch is gov's ErrInvalidSigner (gov/13), with the SDK's wording.

    `extra` is a second authority a dev genesis names (erc20's dev account 0, which the node's banner shows).
    """
    bank = app.keepers["bank"]
    accepted = [bank.bech32(GOV)] + ([bank.bech32(extra)] if extra and extra != GOV else [])
    if authority not in accepted:
        raise errors.TxError("gov", 13, f"invalid authority; expected {' or '.join(accepted)}, got {authority}: "
                             "expected gov account as only signer for proposal message")


def parse_address(app, authority, plain=False):
    """ValidateBasic's parse of the authority's bech32 address. The SDK's modules wrap ErrInvalidAddress
    (sdk/7); Evmos' wrap the bech32 error itself, a plain Go error (`plain`: codespace "undefined", code 1)."""
    try:
        parse(authority, app.genesis.bech32_prefix)
    except AddressError as e:
        text = f"invalid authority address: {e}"
        raise (errors.TxError("undefined", 1, text) if plain else errors.invalid_address(text)) from None


def invalid_params(text):
    """A Params.Validate error: a plain Go error, which ABCI reports as codespace "undefined", code 1."""
    return errors.TxError("undefined", 1, text)
