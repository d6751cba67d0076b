"""erc20's messages: MsgConvertERC20, MsgConvertCoin, MsgRegisterERC20, MsgToggleConversion, MsgUpdateParams."""

import re

from chaind.chain import authority as chain_authority
from chaind.chain import errors
from chaind.chain.amino import Amino
from chaind.chain.block import event
from chaind.chain.modules.bank import keeper as bank_keeper
from chaind.chain.modules.erc20.evm_calls import (
    EVM_MSG_GAS,
    CallBudget,
    balance_of,
    check_no_approval,
    query_erc20,
    transfer,
)
from chaind.chain.modules.erc20.keeper import (
    CODESPACE,
    MODULE_ADDRESS,
    OWNER_EXTERNAL,
    OWNER_MODULE,
    balance_invariance,
    erc20_denom,
    erc20_disabled,
    hex_bytes,
    internal_token_pair,
    is_denom,
    is_hex_address,
    native_conversion_disabled,
    pair_disabled,
    token_pair_exists,
    token_pair_not_found,
    validate_params,
)
from chaind.chain.msgs import MsgHandler
from chaind.crypto.addresses import AddressError, checksum_address, parse
from chaind.pb.evmos.erc20.v1 import erc20_pb2, tx_pb2


def _authority_check(app, authority):
    """Evmos' validateAuthority: the gov module account, or the extra authority a dev genesis names."""
    chain_authority.parse_address(app, authority)
    chain_authority.check(app, authority, extra=app.genesis.erc20_authority)


def _require_enabled(app, ctx, what):
    if not app.keepers["erc20"].params(ctx).enable_erc20:
        raise erc20_disabled(f"{what} is currently disabled by governance")


def _amount(text):
    try:
        value = int(text)
    except ValueError:
        raise errors.invalid_coins(f"invalid amount {text!r}") from None
    if value <= 0:
        raise errors.invalid_coins("cannot mint a non-positive amount")
    if value >= 2**256:
        raise errors.invalid_coins("amount overflows 256 bits")
    return value


def _bech32(app, text, what):
    try:
        return parse(text, app.genesis.bech32_prefix)
    except AddressError as e:
        raise errors.invalid_address(f"invalid {what} address: {e}") from None


def _validate_convert_erc20(app, msg):
    if not is_hex_address(msg.contract_address):
        raise errors.invalid_address(f"invalid contract hex address '{msg.contract_address}'")
    _amount(msg.amount)
    _bech32(app, msg.receiver, "receiver")
    if not is_hex_address(msg.sender):
        raise errors.invalid_address(f"invalid sender hex address {msg.sender}")


def _minting_pair(app, ctx, token):
    """Evmos' MintingEnabled: the module on, the token registered and its pair enabled."""
    keeper = app.keepers["erc20"]
    if not keeper.params(ctx).enable_erc20:
        raise erc20_disabled("module is currently disabled by governance")
    found_id = keeper.pair_id_of(ctx, token)
    if not found_id:
        raise token_pair_not_found(f"token '{token}' not registered by id")
    pair = keeper.pair_by_id(ctx, found_id)
    if pair is None:
        raise token_pair_not_found(f"token '{token}' not registered")
    if not pair.enabled:
        raise pair_disabled(f"minting token '{token}' is not enabled by governance")
    return pair


def _external_contract(app, ctx, pair):
    """The pair's contract address, or None (and the pair deleted) when no contract is there any more."""
    contract = hex_bytes(pair.erc20_address)
    if not ctx.accounts.get_code(contract):
        # Evmos removes a pair whose contract self-destructed, and the message succeeds.
        app.keepers["erc20"].delete_pair(ctx, pair)
        return None
    return contract


def _convert_erc20(app, ctx, msg, signer):
    """ERC-20 tokens of the sender into the pair's coin: tokens escrowed in the module account, coins minted."""
    receiver = _bech32(app, msg.receiver, "receiver")
    sender = hex_bytes(msg.sender)
    amount = _amount(msg.amount)
    pair = _minting_pair(app, ctx, msg.contract_address)
    if pair.contract_owner == OWNER_MODULE:
        raise native_conversion_disabled()
    if pair.contract_owner != OWNER_EXTERNAL:
        raise errors.TxError(CODESPACE, 6, "undefined owner of contract pair")
    contract = _external_contract(app, ctx, pair)
    if contract is None:
        return [], tx_pb2.MsgConvertERC20Response()
    bank, budget = app.keepers["bank"], CallBudget()
    escrowed = balance_of(ctx, budget, contract, MODULE_ADDRESS)
    computation = transfer(ctx, budget, sender, contract, MODULE_ADDRESS, amount)
    escrowed_after = balance_of(ctx, budget, contract, MODULE_ADDRESS)
    if escrowed_after != escrowed + amount:
        raise balance_invariance(f"invalid token balance - expected: {escrowed + amount}, actual: {escrowed_after}")
    coins = [(pair.denom, amount)]
    module_b32 = bank.bech32(MODULE_ADDRESS)
    bank.mint(ctx, MODULE_ADDRESS, pair.denom, amount)
    events = [event("coin_received", ("receiver", module_b32), ("amount", bank_keeper.format_coins(coins))),
              event("coinbase", ("minter", module_b32), ("amount", bank_keeper.format_coins(coins)))]
    app.ensure_account(ctx, receiver)
    events += bank.send(ctx, MODULE_ADDRESS, receiver, coins)
    check_no_approval(computation)
    events.append(event("convert_erc20", ("sender", msg.sender), ("receiver", msg.receiver),
                        ("amount", str(amount)), ("cosmos_coin", pair.denom),
                        ("erc20_token", msg.contract_address)))
    return events, tx_pb2.MsgConvertERC20Response()


def _validate_convert_coin(app, msg):
    denom = msg.coin.denom
    if not (denom.startswith("erc20/") and is_hex_address(denom[6:])) and not denom.startswith("ibc/"):
        raise errors.invalid_coins(f"invalid denom. {denom} denomination should be prefixed with the format 'erc20/")
    _amount(msg.coin.amount)
    _bech32(app, msg.sender, "sender")
    if not is_hex_address(msg.receiver):
        raise errors.invalid_address(f"invalid receiver hex address {msg.receiver}")


def convert_coin(app, ctx, msg, signer):
    """The pair's coin back into ERC-20 tokens (Evmos v19's MsgConvertCoin, v20's ConvertCoinNativeERC20):
    coins escrowed and burned, the module account's tokens transferred to the receiver."""
    sender = _bech32(app, msg.sender, "sender")
    receiver = hex_bytes(msg.receiver)
    amount = _amount(msg.coin.amount)
    pair = _minting_pair(app, ctx, msg.coin.denom)
    if pair.contract_owner == OWNER_MODULE:
        raise native_conversion_disabled()
    contract = _external_contract(app, ctx, pair)
    if contract is None:
        return [], tx_pb2.MsgConvertCoinResponse()
    bank, budget = app.keepers["bank"], CallBudget()
    coins = [(pair.denom, amount)]
    held = balance_of(ctx, budget, contract, receiver)
    events = bank.send(ctx, sender, MODULE_ADDRESS, coins)
    computation = transfer(ctx, budget, MODULE_ADDRESS, contract, receiver, amount)
    held_after = balance_of(ctx, budget, contract, receiver)
    if held_after != held + amount:
        raise balance_invariance(f"invalid token balance - expected: {held + amount}, actual: {held_after}")
    events += bank.burn(ctx, MODULE_ADDRESS, coins)
    check_no_approval(computation)
    events.append(event("convert_coin", ("sender", msg.sender), ("receiver", msg.receiver),
                        ("amount", str(amount)), ("cosmos_coin", pair.denom),
                        ("erc20_token", pair.erc20_address)))
    return events, tx_pb2.MsgConvertCoinResponse()


def _validate_register(app, msg):
    for text in msg.erc20addresses:
        if not is_hex_address(text):
            raise errors.invalid_address(f"invalid ERC20 contract address: {text}")


def _sanitized_name(name):
    """Evmos' SanitizeERC20Name: the display unit made from a token's name."""
    name = re.sub(r"(?m)^(\d+)", "", name)
    name = re.sub(r"^[^A-Za-z]|[^a-zA-Z0-9/-]", "", name)[:128]
    while name.startswith(("ibc/", "erc20/")):
        name = name[4:] if name.startswith("ibc/") else name[6:]
    return name


def _register_erc20(app, ctx, msg, signer):
    _require_enabled(app, ctx, "registration")
    _authority_check(app, msg.authority)
    budget, events = CallBudget(), []
    for text in msg.erc20addresses:
        contract = hex_bytes(text)
        if app.keepers["erc20"].pair_at(ctx, contract) is not None:
            raise token_pair_exists(f"token ERC20 contract already registered: {checksum_address(contract)}")
        denom = erc20_denom(contract)
        try:
            name, symbol, decimals = query_erc20(ctx, budget, contract)
            if app.keepers["bank"].metadata(ctx, denom) is not None:
                raise internal_token_pair("denom metadata already registered")
            if app.keepers["erc20"].pair_of(ctx, denom) is not None:
                raise internal_token_pair(f"coin denomination already registered: {name}")
            found = {"description": f"Cosmos coin token representation of {checksum_address(contract)}",
                     "denom_units": [{"denom": denom, "exponent": 0, "aliases": []}],
                     "base": denom, "display": denom, "name": denom, "symbol": symbol}
            if decimals > 0:
                display = _sanitized_name(name)
                found["denom_units"].append({"denom": display, "exponent": decimals, "aliases": []})
                found["display"] = display
            _validate_metadata(found, checksum_address(contract))
        except errors.TxError as e:
            raise errors.TxError(e.codespace, e.code,
                                 f"failed to create wrapped coin denom metadata for ERC20: {e.log}") from None
        # Evmos' registration writes the new coin's metadata through the bank keeper.
        app.keepers["bank"].set_metadata(ctx, found)
        pair = erc20_pb2.TokenPair(erc20_address=checksum_address(contract), denom=denom, enabled=True,
                                   contract_owner=OWNER_EXTERNAL)
        app.keepers["erc20"].set_pair(ctx, pair)
        events.append(event("register_erc20", ("cosmos_coin", denom), ("erc20_token", pair.erc20_address)))
    return events, tx_pb2.MsgRegisterERC20Response()


def _validate_metadata(found, contract):
    """The parts of the SDK's Metadata.Validate a token's data can break."""
    problem = None
    if not found["name"].strip():
        problem = "name field cannot be blank"
    elif not found["symbol"].strip():
        problem = "symbol field cannot be blank"
    elif len(found["denom_units"]) > 1:
        display = found["denom_units"][1]["denom"]
        if not is_denom(display):
            problem = f"invalid denom: {display}"
        elif display == found["base"]:
            problem = f"duplicate denomination unit {display}"
    if problem:
        raise errors.TxError(errors.SDK, 10, f"ERC20 token data is invalid for contract {contract}: {problem}: "
                             "invalid coins")


def _validate_authority_msg(app, msg):
    _bech32(app, msg.authority, "authority")


def _toggle_conversion(app, ctx, msg, signer):
    _require_enabled(app, ctx, "toggle conversion")
    _authority_check(app, msg.authority)
    keeper = app.keepers["erc20"]
    found_id = keeper.pair_id_of(ctx, msg.token)
    if not found_id:
        raise token_pair_not_found(f"token '{msg.token}' not registered by id")
    pair = keeper.pair_by_id(ctx, found_id)
    if pair is None:
        raise token_pair_not_found(f"token '{msg.token}' not registered")
    pair.enabled = not pair.enabled
    keeper.update_pair(ctx, found_id, pair)
    return ([event("toggle_token_conversion", ("cosmos_coin", pair.denom), ("erc20_token", pair.erc20_address))],
            tx_pb2.MsgToggleConversionResponse())


def _validate_update_params(app, msg):
    _bech32(app, msg.authority, "authority")
    try:
        validate_params(msg.params)
    except ValueError as e:
        raise errors.TxError(errors.SDK, 18, f"{e}: invalid request") from None


def _update_params(app, ctx, msg, signer):
    _authority_check(app, msg.authority)
    app.keepers["erc20"].set_params(ctx, msg.params)
    return [], tx_pb2.MsgUpdateParamsResponse()


MESSAGES = (
    MsgHandler("/evmos.erc20.v1.MsgConvertERC20", tx_pb2.MsgConvertERC20, lambda m: m.sender,
               _validate_convert_erc20, _convert_erc20, gas=EVM_MSG_GAS,
               amino=Amino("evmos/MsgConvertERC20", keep=("amount",))),
    MsgHandler("/evmos.erc20.v1.MsgConvertCoin", tx_pb2.MsgConvertCoin, lambda m: m.sender,
               _validate_convert_coin, convert_coin, gas=EVM_MSG_GAS,
               amino=Amino("evmos/MsgConvertCoin")),
    MsgHandler("/evmos.erc20.v1.MsgRegisterERC20", tx_pb2.MsgRegisterERC20, lambda m: m.authority,
               _validate_register, _register_erc20, gas=EVM_MSG_GAS,
               amino=Amino("evmos/x/erc20/MsgRegisterERC20")),
    MsgHandler("/evmos.erc20.v1.MsgToggleConversion", tx_pb2.MsgToggleConversion, lambda m: m.authority,
               _validate_authority_msg, _toggle_conversion,
               amino=Amino("evmos/x/erc20/MsgToggleConversion")),
    MsgHandler("/evmos.erc20.v1.MsgUpdateParams", tx_pb2.MsgUpdateParams, lambda m: m.authority,
               _validate_update_params, _update_params,
               amino=Amino("evmos/x/erc20/MsgUpdateParams", keep=("params",))),
)

