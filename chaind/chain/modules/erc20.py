"""erc20: token pairs between bank coins and ERC-20 contracts, kept and converted as Evmos v20's x/erc20 does.

A native coin's pair (OWNER_MODULE) is served by a precompile (erc20_precompile.py); an existing contract's
pair (OWNER_EXTERNAL) moves value with MsgConvertERC20 / MsgConvertCoin through the erc20 module account.
"""

import hashlib
import re

import orjson
from eth.vm.message import Message
from eth_abi import decode as abi_decode
from eth_abi import encode as abi_encode
from eth_abi.exceptions import DecodingError
from eth_utils import keccak
from google.protobuf import json_format

from chaind.chain import errors
from chaind.chain.block import event
from chaind.chain.modules import auth, evm
from chaind.chain.modules.bank import format_coins
from chaind.chain.msgs import MSG_GAS, MsgHandler
from chaind.crypto.addresses import AddressError, checksum_address, module_address, parse
from chaind.pb.evmos.erc20.v1 import erc20_pb2, genesis_pb2, tx_pb2
from chaind.store.keys import compose

CODESPACE = "erc20"
MODULE_ADDRESS = module_address("erc20")
OWNER_MODULE = erc20_pb2.OWNER_MODULE
OWNER_EXTERNAL = erc20_pb2.OWNER_EXTERNAL

# Code placed at a precompile's address so EXTCODESIZE checks (Solidity's before every call) pass, as
# Evmos puts its ERC-20 bytecode there; the precompile answers every call, so this INVALID never runs.
PRECOMPILE_CODE = b"\xfe"

# The gas the module's own EVM calls of one message may use together (an ERC-20's balanceOf, transfer,
# name ...): Evmos estimates each call under a 25M cap; a fixed budget keeps a hostile token's work
# bounded, and the message is charged the whole budget on top of the flat per-message gas.
EVM_CALL_BUDGET = 100_000
EVM_MSG_GAS = MSG_GAS + EVM_CALL_BUDGET

PARAMS_KEY = compose("erc20", "params")
_HEX = re.compile(r"^(0[xX])?[0-9a-fA-F]{40}$")
_DENOM = re.compile(r"^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$")
_APPROVAL_TOPIC = keccak(b"Approval(address,address,uint256)")
_SEL_NAME, _SEL_SYMBOL, _SEL_DECIMALS = (keccak(s)[:4] for s in (b"name()", b"symbol()", b"decimals()"))
_SEL_BALANCE_OF = keccak(b"balanceOf(address)")[:4]
_SEL_TRANSFER = keccak(b"transfer(address,uint256)")[:4]


def _pair_key(pair_id):
    return compose("erc20", "pair", pair_id)


def _by_erc20_key(address):
    return compose("erc20", "by_erc20", address)


def _by_denom_key(denom):
    return compose("erc20", "by_denom", denom)


def _metadata_key(denom):
    # bank's keyspace: Evmos' registration writes the new coin's metadata through the bank keeper.
    return compose("bank", "meta", denom)


# -- errors (x/erc20/types/errors.go) ------------------------------------------------------------

def _error(code, text):
    return lambda detail: errors.TxError(CODESPACE, code, f"{detail}: {text}")


erc20_disabled = _error(2, "erc20 module is disabled")
internal_token_pair = _error(3, "internal ethereum token mapping error")
token_pair_not_found = _error(4, "token pair not found")
token_pair_exists = _error(5, "token pair already exists")
balance_invariance = _error(7, "post transfer balance invariant failed")
unexpected_event = _error(8, "unexpected event")
abi_unpack = _error(10, "contract ABI unpack failed")
pair_disabled = _error(13, "erc20 token pair is disabled")


def native_conversion_disabled():
    return errors.TxError(CODESPACE, 16, "native coins manual conversion is disabled")


def vm_execution(vm_error):
    """x/evm's ErrVMExecution wrapping a failed call's VM error."""
    return errors.TxError(errors.EVM, 10, f"{vm_error}: evm transaction execution failed")


# -- addresses and ids ----------------------------------------------------------------------------

def is_hex_address(text):
    """go-ethereum's common.IsHexAddress: 40 hex digits, the 0x optional."""
    return bool(_HEX.match(text))


def hex_bytes(text):
    return bytes.fromhex(text[2:] if text[:2] in ("0x", "0X") else text)


def is_denom(text):
    return bool(_DENOM.match(text))


def pair_address(denom):
    """The ERC-20 address of a native coin's pair.

    An IBC voucher's is Evmos' (utils.GetIBCDenomAddress): the last 20 bytes of its 32-byte hash.
    Evmos v20 has no rule for other native coins; they get the same rule applied to a denom that is
    its own path: the last 20 bytes of sha256(denom).
    """
    if denom.startswith("ibc/"):
        try:
            digest = bytes.fromhex(denom[4:])
        except ValueError:
            raise ValueError(f"coin {denom} is not a valid IBC voucher hash") from None
        if len(digest) != 32:
            raise ValueError(f"coin {denom} is not a valid IBC voucher hash: expected size to be 32 bytes, "
                             f"got {len(digest)} bytes")
        return digest[-20:]
    return hashlib.sha256(denom.encode()).digest()[-20:]


def pair_id(pair):
    """Evmos' TokenPair.GetID: tmhash(erc20_address + "|" + denom)."""
    return hashlib.sha256(f"{pair.erc20_address}|{pair.denom}".encode()).digest()


def erc20_denom(address):
    """The coin of an external ERC-20 (Evmos' CreateDenom): erc20/<EIP-55 address>."""
    return f"erc20/{checksum_address(address)}"


# -- state ----------------------------------------------------------------------------------------

def params(state):
    raw = state.store.get(PARAMS_KEY)
    found = genesis_pb2.Params()
    if raw:
        found.ParseFromString(raw)
    return found


def precompile_addresses(found_params):
    """The 20-byte addresses of every active ERC-20 precompile (native and dynamic)."""
    return frozenset(hex_bytes(a) for a in (*found_params.native_precompiles, *found_params.dynamic_precompiles))


def pair_by_id(state, found_id):
    raw = state.store.get(_pair_key(found_id)) if found_id else None
    if raw is None:
        return None
    pair = erc20_pb2.TokenPair()
    pair.ParseFromString(raw)
    return pair


def pair_id_of(state, token):
    """Evmos' GetTokenPairID: by contract address when `token` is hex, else by denom."""
    if is_hex_address(token):
        return state.store.get(_by_erc20_key(hex_bytes(token)))
    # No pair has a malformed denom (and no store key may be that long).
    return state.store.get(_by_denom_key(token)) if is_denom(token) else None


def pair_of(state, token):
    """The TokenPair of a hex address or denom, or None."""
    return pair_by_id(state, pair_id_of(state, token))


def pair_at(state, address):
    """The TokenPair whose contract is at 20-byte `address`, or None."""
    return pair_by_id(state, state.store.get(_by_erc20_key(address)))


def all_pairs(state):
    """[(id, TokenPair)] in id order, as Evmos' store iterates them."""
    prefix = compose("erc20", "pair")
    out = []
    for key, raw in state.store.iterate(prefix):
        pair = erc20_pb2.TokenPair()
        pair.ParseFromString(raw)
        out.append((key[len(prefix) + 1:], pair))
    return out


def set_pair(state, pair):
    found_id = pair_id(pair)
    state.store.set(_pair_key(found_id), pair.SerializeToString())
    state.store.set(_by_erc20_key(hex_bytes(pair.erc20_address)), found_id)
    state.store.set(_by_denom_key(pair.denom), found_id)


def delete_pair(state, pair):
    state.store.delete(_pair_key(pair_id(pair)))
    state.store.delete(_by_erc20_key(hex_bytes(pair.erc20_address)))
    state.store.delete(_by_denom_key(pair.denom))


def metadata(state, genesis, denom):
    """A denom's bank metadata as a dict (SDK JSON names): genesis' own, else one registration stored."""
    for found in genesis.denom_metadata:
        if found["base"] == denom:
            return found
    raw = state.store.get(_metadata_key(denom))
    if raw is None:
        return None
    return orjson.loads(raw)


def _set_metadata(state, found):
    state.store.set(_metadata_key(found["base"]), orjson.dumps(found))


def validate_params(found):
    """Evmos' Params.Validate after SetParams sorts the lists: hex addresses, none twice. Raises ValueError."""
    seen = set()
    for name in ("native_precompiles", "dynamic_precompiles"):
        for text in getattr(found, name):
            if not is_hex_address(text):
                raise ValueError(f"invalid precompile {text}")
            address = hex_bytes(text)
            if address in seen:
                raise ValueError(f"duplicate precompile {checksum_address(address)}")
            seen.add(address)


def set_params(state, new):
    """Evmos' SetParams: sort, validate, move the contract code to the precompiles now active, store."""
    new = genesis_pb2.Params(enable_erc20=new.enable_erc20,
                             native_precompiles=sorted(new.native_precompiles),
                             dynamic_precompiles=sorted(new.dynamic_precompiles))
    try:
        validate_params(new)
    except ValueError as e:
        raise errors.TxError(errors.SDK, 18, f"{e}: invalid request") from None
    old = precompile_addresses(params(state))
    active = precompile_addresses(new)
    # Unlike Evmos, which sets the code hash whatever was there, a real contract's code is left alone.
    for address in sorted(old - active):
        if state.accounts.get_code(address) == PRECOMPILE_CODE:
            state.accounts.set_code(address, b"")
    for address in sorted(active - old):
        if not state.accounts.get_code(address):
            state.accounts.set_code(address, PRECOMPILE_CODE)
        auth.ensure_account(state, address)
    state.store.set(PARAMS_KEY, new.SerializeToString())


def init_genesis(app, ctx):
    """Params and token pairs from genesis (Evmos' InitGenesis), and the module account."""
    genesis = app.genesis.erc20
    auth.ensure_account(ctx, MODULE_ADDRESS)
    set_params(ctx, genesis.params)
    for pair in genesis.token_pairs:
        set_pair(ctx, pair)


def parse_genesis(section, prefix):
    """(GenesisState, authority bytes) of app_state.erc20; raises ValueError naming what is wrong.

    The authority (Evmos: the gov module account) defaults to the gov module's address.
    """
    section = dict(section or {})
    authority = section.pop("authority", None)
    state = json_format.ParseDict(section, genesis_pb2.GenesisState())
    if not section.get("params"):
        state.params.enable_erc20 = True
    try:
        validate_params(state.params)
    except ValueError as e:
        raise ValueError(f"erc20 params: {e}") from None
    for name in ("native_precompiles", "dynamic_precompiles"):
        values = list(getattr(state.params, name))
        if values != sorted(values):
            raise ValueError(f"erc20 params: precompiles need to be sorted: {values}")
    seen_ids, seen_denoms, seen_addresses = set(), set(), set()
    for pair in state.token_pairs:
        if not is_denom(pair.denom):
            raise ValueError(f"erc20 token pair: invalid denom: {pair.denom}")
        if not is_hex_address(pair.erc20_address) or not pair.erc20_address.startswith("0x"):
            raise ValueError(f"erc20 token pair: invalid address {pair.erc20_address!r}")
        address = hex_bytes(pair.erc20_address)
        if pair.contract_owner == OWNER_MODULE and address != pair_address(pair.denom):
            raise ValueError(f"erc20 token pair {pair.denom}: a native coin's contract is at "
                             f"{checksum_address(pair_address(pair.denom))}, not {pair.erc20_address}")
        if pair.contract_owner not in (OWNER_MODULE, OWNER_EXTERNAL):
            raise ValueError(f"erc20 token pair {pair.denom}: contract_owner must be OWNER_MODULE or OWNER_EXTERNAL")
        found_id = pair_id(pair)
        if found_id in seen_ids or pair.denom in seen_denoms or address in seen_addresses:
            raise ValueError(f"erc20 token pair {pair.denom}: duplicate token pair")
        seen_ids.add(found_id)
        seen_denoms.add(pair.denom)
        seen_addresses.add(address)
    return state, parse(authority, prefix) if authority else module_address("gov")


# -- the module's own EVM calls (Evmos' CallEVM) ----------------------------------------------

class _CallBudget:
    """The gas one message's EVM calls share (EVM_CALL_BUDGET)."""

    def __init__(self):
        self.left = EVM_CALL_BUDGET


def _call_evm(ctx, budget, sender, contract, data, commit, method):
    """Run one call on the block's EVM state; returns the computation of a successful call.

    commit=False is a query: whatever it changed is undone. A failed call raises x/evm's
    ErrVMExecution, wrapped as Evmos' CallEVM wraps it.
    """
    state = ctx.accounts
    snapshot = state.snapshot()
    message = Message(gas=budget.left, to=contract, sender=sender, value=0, data=data,
                      code=state.get_code(contract))
    context = state.get_transaction_context_class()(gas_price=0, origin=sender)
    try:
        computation = state.computation_class.apply_message(state, message, context)
    except Exception:
        state.revert(snapshot)
        raise
    if commit and not computation.is_error:
        state.commit(snapshot)
    else:
        state.revert(snapshot)
    # Transient storage lives for one EVM tx; each of these calls is one.
    state.clear_transient_storage()
    budget.left = computation.get_gas_remaining()
    if computation.is_error:
        error = vm_execution(evm._vm_error(computation))
        raise errors.TxError(error.codespace, error.code, f"contract call failed: method '{method}', contract "
                             f"'{checksum_address(contract)}': {error.log}")
    return computation


def _balance_of(ctx, budget, contract, account):
    computation = _call_evm(ctx, budget, MODULE_ADDRESS, contract, _SEL_BALANCE_OF + abi_encode(["address"], [account]),
                            False, "balanceOf")
    try:
        return abi_decode(["uint256"], computation.output)[0]
    except DecodingError as e:
        raise errors.TxError(CODESPACE, 12, f"failed to retrieve balance: {e}: EVM call unexpected error") from None


def _transfer(ctx, budget, sender, contract, recipient, amount):
    """ERC-20 transfer(recipient, amount) from `sender`, committed; returns the computation."""
    data = _SEL_TRANSFER + abi_encode(["address", "uint256"], [recipient, amount])
    computation = _call_evm(ctx, budget, sender, contract, data, True, "transfer")
    try:
        ok = abi_decode(["bool"], computation.output)[0]
    except DecodingError as e:
        raise abi_unpack(f"failed to unpack transfer result: {e}") from None
    if not ok:
        raise errors.TxError(errors.SDK, 17, "failed to execute transfer: internal logic error")
    return computation


def _check_no_approval(computation):
    """Evmos' monitorApprovalEvent: a conversion's transfer must not also approve anything."""
    for _, topics, _ in computation.get_log_entries():
        if topics and topics[0].to_bytes(32, "big") == _APPROVAL_TOPIC:
            raise unexpected_event("unexpected Approval event")


def query_erc20(ctx, budget, contract):
    """(name, symbol, decimals) of an ERC-20 contract (Evmos' QueryERC20)."""
    out = []
    for selector, method, kind in ((_SEL_NAME, "name", "string"), (_SEL_SYMBOL, "symbol", "string"),
                                   (_SEL_DECIMALS, "decimals", "uint8")):
        computation = _call_evm(ctx, budget, MODULE_ADDRESS, contract, selector, False, method)
        try:
            out.append(abi_decode([kind], computation.output)[0])
        except (DecodingError, ValueError, OverflowError) as e:
            raise abi_unpack(f"failed to unpack {method}: {e}") from None
    return tuple(out)


# -- messages ---------------------------------------------------------------------------------

def _authority_check(app, authority):
    """Evmos' validateAuthority: the signer must be the module authority set in genesis."""
    try:
        parse(authority, app.genesis.bech32_prefix)
    except AddressError as e:
        raise errors.invalid_address(f"invalid authority address: {e}") from None
    expected = app.bank.bech32(app.genesis.erc20_authority)
    if authority != expected:
        raise errors.TxError("gov", 13, f"invalid authority; expected {expected}, got {authority}: "
                             "expected gov account as only signer for proposal message")


def _require_enabled(ctx, what):
    if not params(ctx).enable_erc20:
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


def _minting_pair(ctx, token):
    """Evmos' MintingEnabled: the module on, the token registered and its pair enabled."""
    if not params(ctx).enable_erc20:
        raise erc20_disabled("module is currently disabled by governance")
    found_id = pair_id_of(ctx, token)
    if not found_id:
        raise token_pair_not_found(f"token '{token}' not registered by id")
    pair = pair_by_id(ctx, found_id)
    if pair is None:
        raise token_pair_not_found(f"token '{token}' not registered")
    if not pair.enabled:
        raise pair_disabled(f"minting token '{token}' is not enabled by governance")
    return pair


def _external_contract(ctx, pair):
    """The pair's contract address, or None (and the pair deleted) when no contract is there any more."""
    contract = hex_bytes(pair.erc20_address)
    if not ctx.accounts.get_code(contract):
        # Evmos removes a pair whose contract self-destructed, and the message succeeds.
        delete_pair(ctx, pair)
        return None
    return contract


def _convert_erc20(app, ctx, msg, signer):
    """ERC-20 tokens of the sender into the pair's coin: tokens escrowed in the module account, coins minted."""
    receiver = _bech32(app, msg.receiver, "receiver")
    sender = hex_bytes(msg.sender)
    amount = _amount(msg.amount)
    pair = _minting_pair(ctx, msg.contract_address)
    if pair.contract_owner == OWNER_MODULE:
        raise native_conversion_disabled()
    if pair.contract_owner != OWNER_EXTERNAL:
        raise errors.TxError(CODESPACE, 6, "undefined owner of contract pair")
    contract = _external_contract(ctx, pair)
    if contract is None:
        return [], tx_pb2.MsgConvertERC20Response()
    bank, budget = app.bank, _CallBudget()
    escrowed = _balance_of(ctx, budget, contract, MODULE_ADDRESS)
    computation = _transfer(ctx, budget, sender, contract, MODULE_ADDRESS, amount)
    escrowed_after = _balance_of(ctx, budget, contract, MODULE_ADDRESS)
    if escrowed_after != escrowed + amount:
        raise balance_invariance(f"invalid token balance - expected: {escrowed + amount}, actual: {escrowed_after}")
    coins = [(pair.denom, amount)]
    module_b32 = bank.bech32(MODULE_ADDRESS)
    bank.mint(ctx, MODULE_ADDRESS, pair.denom, amount)
    events = [event("coin_received", ("receiver", module_b32), ("amount", format_coins(coins))),
              event("coinbase", ("minter", module_b32), ("amount", format_coins(coins)))]
    app.ensure_account(ctx, receiver)
    events += bank.send(ctx, MODULE_ADDRESS, receiver, coins)
    _check_no_approval(computation)
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


def _convert_coin(app, ctx, msg, signer):
    """The pair's coin back into ERC-20 tokens (Evmos v19's MsgConvertCoin, v20's ConvertCoinNativeERC20):
    coins escrowed and burned, the module account's tokens transferred to the receiver."""
    sender = _bech32(app, msg.sender, "sender")
    receiver = hex_bytes(msg.receiver)
    amount = _amount(msg.coin.amount)
    pair = _minting_pair(ctx, msg.coin.denom)
    if pair.contract_owner == OWNER_MODULE:
        raise native_conversion_disabled()
    contract = _external_contract(ctx, pair)
    if contract is None:
        return [], tx_pb2.MsgConvertCoinResponse()
    bank, budget = app.bank, _CallBudget()
    coins = [(pair.denom, amount)]
    held = _balance_of(ctx, budget, contract, receiver)
    events = bank.send(ctx, sender, MODULE_ADDRESS, coins)
    computation = _transfer(ctx, budget, MODULE_ADDRESS, contract, receiver, amount)
    held_after = _balance_of(ctx, budget, contract, receiver)
    if held_after != held + amount:
        raise balance_invariance(f"invalid token balance - expected: {held + amount}, actual: {held_after}")
    events += bank.burn(ctx, MODULE_ADDRESS, coins)
    _check_no_approval(computation)
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
    _require_enabled(ctx, "registration")
    _authority_check(app, msg.authority)
    budget, events = _CallBudget(), []
    for text in msg.erc20addresses:
        contract = hex_bytes(text)
        if pair_at(ctx, contract) is not None:
            raise token_pair_exists(f"token ERC20 contract already registered: {checksum_address(contract)}")
        denom = erc20_denom(contract)
        try:
            name, symbol, decimals = query_erc20(ctx, budget, contract)
            if metadata(ctx, app.genesis, denom) is not None:
                raise internal_token_pair("denom metadata already registered")
            if pair_of(ctx, denom) is not None:
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
        _set_metadata(ctx, found)
        pair = erc20_pb2.TokenPair(erc20_address=checksum_address(contract), denom=denom, enabled=True,
                                   contract_owner=OWNER_EXTERNAL)
        set_pair(ctx, pair)
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
    _require_enabled(ctx, "toggle conversion")
    _authority_check(app, msg.authority)
    found_id = pair_id_of(ctx, msg.token)
    if not found_id:
        raise token_pair_not_found(f"token '{msg.token}' not registered by id")
    pair = pair_by_id(ctx, found_id)
    if pair is None:
        raise token_pair_not_found(f"token '{msg.token}' not registered")
    pair.enabled = not pair.enabled
    ctx.store.set(_pair_key(found_id), pair.SerializeToString())
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
    set_params(ctx, msg.params)
    return [], tx_pb2.MsgUpdateParamsResponse()


MESSAGES = (
    MsgHandler("/evmos.erc20.v1.MsgConvertERC20", tx_pb2.MsgConvertERC20, lambda m: m.sender,
               _validate_convert_erc20, _convert_erc20, gas=EVM_MSG_GAS),
    MsgHandler("/evmos.erc20.v1.MsgConvertCoin", tx_pb2.MsgConvertCoin, lambda m: m.sender,
               _validate_convert_coin, _convert_coin, gas=EVM_MSG_GAS),
    MsgHandler("/evmos.erc20.v1.MsgRegisterERC20", tx_pb2.MsgRegisterERC20, lambda m: m.authority,
               _validate_register, _register_erc20, gas=EVM_MSG_GAS),
    MsgHandler("/evmos.erc20.v1.MsgToggleConversion", tx_pb2.MsgToggleConversion, lambda m: m.authority,
               _validate_authority_msg, _toggle_conversion),
    MsgHandler("/evmos.erc20.v1.MsgUpdateParams", tx_pb2.MsgUpdateParams, lambda m: m.authority,
               _validate_update_params, _update_params),
)
