"""erc20's keeper and state: token pairs by id, contract and denom, and params; its errors
(x/erc20/types/errors.go)."""

import hashlib
import importlib.resources
import re

from chaind.chain import errors
from chaind.crypto.addresses import checksum_address, module_address
from chaind.pb.evmos.erc20.v1 import erc20_pb2, genesis_pb2
from chaind.store.keys import compose

CODESPACE = "erc20"
MODULE_ADDRESS = module_address("erc20")
OWNER_MODULE = erc20_pb2.OWNER_MODULE
OWNER_EXTERNAL = erc20_pb2.OWNER_EXTERNAL

# The code at an ERC-20 precompile's address, cosmos/evm's Erc20Bytecode (x/erc20/types/constants.go: the
# ERC-20 contract of an Evmos IBC coin before v19): eth_getCode answers it as cosmos/evm's node does, and
# EXTCODESIZE checks (Solidity's before a call whose result it does not decode) pass; the precompile answers
# every call, so it never runs.
PRECOMPILE_CODE = bytes.fromhex(
    importlib.resources.files(__package__).joinpath("erc20_bytecode.hex").read_text(encoding="ascii"))

PARAMS_KEY = compose("erc20", "params")
_HEX = re.compile(r"^(0[xX])?[0-9a-fA-F]{40}$")
_DENOM = re.compile(r"^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$")


def _pair_key(pair_id):
    return compose("erc20", "pair", pair_id)


def _by_erc20_key(address):
    return compose("erc20", "by_erc20", address)


def _by_denom_key(denom):
    return compose("erc20", "by_denom", denom)


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


def invalid_ibc():
    return errors.TxError(CODESPACE, 14, "invalid IBC transaction")


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


def precompile_addresses(found_params):
    """The 20-byte addresses of every active ERC-20 precompile (native and dynamic)."""
    return frozenset(hex_bytes(a) for a in (*found_params.native_precompiles, *found_params.dynamic_precompiles))


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


# -- the keeper ------------------------------------------------------------------------------------

class Erc20Keeper:
    """x/erc20's keeper, built once from auth's keeper (the precompiles' accounts): token pairs and params. Reads
    take a state (a view, a block's context, or the EVM's native state, whose store sees the running tx's writes),
    writes a block's context."""

    def __init__(self, auth):
        self.auth = auth

    def params(self, state):
        raw = state.store.get(PARAMS_KEY)
        found = genesis_pb2.Params()
        if raw:
            found.ParseFromString(raw)
        return found

    def pair_by_id(self, state, found_id):
        raw = state.store.get(_pair_key(found_id)) if found_id else None
        if raw is None:
            return None
        pair = erc20_pb2.TokenPair()
        pair.ParseFromString(raw)
        return pair

    def pair_id_of(self, state, token):
        """Evmos' GetTokenPairID: by contract address when `token` is hex, else by denom."""
        if is_hex_address(token):
            return state.store.get(_by_erc20_key(hex_bytes(token)))
        # No pair has a malformed denom (and no store key may be that long).
        return state.store.get(_by_denom_key(token)) if is_denom(token) else None

    def pair_of(self, state, token):
        """The TokenPair of a hex address or denom, or None."""
        return self.pair_by_id(state, self.pair_id_of(state, token))

    def pair_at(self, state, address):
        """The TokenPair whose contract is at 20-byte `address`, or None."""
        return self.pair_by_id(state, state.store.get(_by_erc20_key(address)))

    def all_pairs(self, state):
        """[(id, TokenPair)] in id order, as Evmos' store iterates them."""
        prefix = compose("erc20", "pair")
        out = []
        for key, raw in state.store.iterate(prefix):
            pair = erc20_pb2.TokenPair()
            pair.ParseFromString(raw)
            out.append((key[len(prefix) + 1:], pair))
        return out

    def set_pair(self, ctx, pair):
        found_id = pair_id(pair)
        ctx.store.set(_pair_key(found_id), pair.SerializeToString())
        ctx.store.set(_by_erc20_key(hex_bytes(pair.erc20_address)), found_id)
        ctx.store.set(_by_denom_key(pair.denom), found_id)

    def update_pair(self, ctx, found_id, pair):
        """Store a known pair's changed fields (enabled); its id, contract and denom, hence its indexes, stay."""
        ctx.store.set(_pair_key(found_id), pair.SerializeToString())

    def delete_pair(self, ctx, pair):
        ctx.store.delete(_pair_key(pair_id(pair)))
        ctx.store.delete(_by_erc20_key(hex_bytes(pair.erc20_address)))
        ctx.store.delete(_by_denom_key(pair.denom))

    def set_params(self, ctx, new):
        """Evmos' SetParams: sort, validate, move the contract code to the precompiles now active, store."""
        new = genesis_pb2.Params(enable_erc20=new.enable_erc20,
                                 native_precompiles=sorted(new.native_precompiles),
                                 dynamic_precompiles=sorted(new.dynamic_precompiles))
        try:
            validate_params(new)
        except ValueError as e:
            raise errors.TxError(errors.SDK, 18, f"{e}: invalid request") from None
        old = precompile_addresses(self.params(ctx))
        active = precompile_addresses(new)
        # Unlike Evmos, which sets the code hash whatever was there, a real contract's code is left alone.
        for address in sorted(old - active):
            if ctx.accounts.get_code(address) == PRECOMPILE_CODE:
                ctx.accounts.set_code(address, b"")
        for address in sorted(active - old):
            if not ctx.accounts.get_code(address):
                ctx.accounts.set_code(address, PRECOMPILE_CODE)
            self.auth.ensure_account(ctx, address)
        ctx.store.set(PARAMS_KEY, new.SerializeToString())

    def register_erc20_extension(self, ctx, denom):
        """Evmos' RegisterERC20Extension of a coin without a pair (an IBC voucher's): its pair (NewTokenPairSTRv2,
        at the voucher's address) stored and its ERC-20 precompile made an active dynamic precompile; the pair."""
        try:
            address = pair_address(denom)
        except ValueError as e:
            raise errors.TxError("undefined", 1, str(e)) from None
        pair = erc20_pb2.TokenPair(erc20_address=checksum_address(address), denom=denom, enabled=True,
                                   contract_owner=OWNER_MODULE)
        self.set_pair(ctx, pair)
        found = self.params(ctx)
        if pair.erc20_address in found.dynamic_precompiles:
            raise errors.TxError("undefined", 1,
                                 f"attempted to register a duplicate precompile address: {pair.erc20_address}")
        self.set_params(ctx, genesis_pb2.Params(
            enable_erc20=found.enable_erc20, native_precompiles=found.native_precompiles,
            dynamic_precompiles=[*found.dynamic_precompiles, pair.erc20_address]))
        return pair
