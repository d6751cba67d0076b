"""evm's params (Evmos v20 x/evm Params), from genesis' app_state.evm.params, kept in state by its keeper;
MsgUpdateParams changes them. allow_unprotected_txs gates the ante, active_static_precompiles the precompiles a
call reaches."""

import functools
import re

from google.protobuf import json_format

from chaind.chain.modules.evm import bech32_precompile, p256
from chaind.pb.ethermint.evm.v1 import evm_pb2
from chaind.store.keys import compose

PARAMS_KEY = compose("evm", "params")
# Every fork through Cancun is active from genesis (the EVM is py-evm's Prague), as Evmos' default config has it.
_FORKS = ("homestead_block", "dao_fork_block", "eip150_block", "eip155_block", "eip158_block", "byzantium_block",
          "constantinople_block", "petersburg_block", "istanbul_block", "muir_glacier_block", "berlin_block",
          "london_block", "arrow_glacier_block", "gray_glacier_block", "merge_netsplit_block", "shanghai_block",
          "cancun_block")
CHAIN_CONFIG = evm_pb2.ChainConfig(dao_fork_support=True, eip150_hash="0x" + "00" * 32, **{f: "0" for f in _FORKS})
# Evmos v20's EIP activators (x/evm/core/vm/eips.go), and those py-evm's Prague jump table has already, so that
# activating them changes nothing (as in geth): the others would change Prague's gas costs, which chaind's VM
# does not do, so a param naming them is refused.
ACTIVATEABLE_EIPS = ("ethereum_1344", "ethereum_1884", "ethereum_2200", "ethereum_2929", "ethereum_3198",
                     "ethereum_3529", "ethereum_3855")
IN_PRAGUE_EIPS = ("ethereum_1344", "ethereum_3198", "ethereum_3529", "ethereum_3855")
_DENOM = re.compile(r"^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$")
_HEX_ADDRESS = re.compile(r"^(0x|0X)?[0-9a-fA-F]{40}$")
_CHANNEL_ID = re.compile(r"^[a-zA-Z0-9._+\-#\[\]<>]+$")


def _hex(address):
    return "0x" + address.hex()


def static_precompiles(modules_precompiles):
    """The static precompiles chaind serves, as Params lists them (hex, sorted): P-256, bech32, and the modules'
    (`modules_precompiles`: their addresses, App.precompiles)."""
    return tuple(sorted(_hex(address) for address in (p256.ADDRESS, bech32_precompile.ADDRESS, *modules_precompiles)))


def default_params(evm_denom, modules_precompiles):
    return evm_pb2.Params(evm_denom=evm_denom, chain_config=CHAIN_CONFIG,
                          active_static_precompiles=static_precompiles(modules_precompiles),
                          access_control=evm_pb2.AccessControl(create=evm_pb2.AccessControlType(),
                                                               call=evm_pb2.AccessControlType()))


def parse_params(doc, modules_precompiles):
    """Params from genesis' evm.params (Evmos JSON); the fields it leaves out take chaind's defaults."""
    params = default_params(doc.get("evm_denom", ""), modules_precompiles)
    given = {k: v for k, v in doc.items() if k != "evm_denom"}
    if given.get("chain_config"):
        params.ClearField("chain_config")
    json_format.ParseDict(given, params)
    return params


@functools.lru_cache(maxsize=16)
def decoded(raw):
    """Params of their bytes (do not mutate: shared)."""
    return evm_pb2.Params.FromString(raw)


@functools.lru_cache(maxsize=16)
def inactive_of(raw, modules_precompiles):
    """The static precompiles the params record `raw` leaves inactive; remembered, as every EVM state asks."""
    active = {bytes.fromhex(a[-40:]) for a in decoded(raw).active_static_precompiles}
    return frozenset(bytes.fromhex(a[2:]) for a in static_precompiles(modules_precompiles)) - active


class InvalidParams(ValueError):
    """A Params.Validate error: a plain Go error (codespace "undefined", code 1) unless it wraps a registered one."""

    def __init__(self, text, codespace="undefined", code=1):
        super().__init__(text)
        self.codespace, self.code = codespace, code


def validate(p):  # noqa: C901 (one flat check per param, as the SDK's Validate)
    """Evmos v20 Params.Validate, in its order; InvalidParams with its text and code."""
    if not _DENOM.match(p.evm_denom):
        raise InvalidParams(f"invalid denom: {p.evm_denom}")
    seen = set()
    for eip in p.extra_eips:
        if eip not in ACTIVATEABLE_EIPS:
            raise InvalidParams(f"EIP {eip} is not activateable, valid EIPs are: [{' '.join(ACTIVATEABLE_EIPS)}]")
        if eip in seen:
            raise InvalidParams(f"found duplicate EIP: {eip}")
        seen.add(eip)
    for name in _FORKS:
        # math.Int strings; empty is nil (the fork never comes)
        value = getattr(p.chain_config, name)
        if value and int(value) < 0:
            raise InvalidParams(f"{_GO_NAMES[name]}: block value cannot be negative: {value}: invalid chain "
                                "configuration", "evm", 3)
    if p.chain_config.eip150_hash and not p.chain_config.eip150_hash.strip():
        raise InvalidParams("hash cannot be blank: invalid chain configuration", "evm", 3)
    seen = set()
    for precompile in p.active_static_precompiles:
        if precompile in seen:
            raise InvalidParams(f"duplicate precompile {precompile}")
        if not _HEX_ADDRESS.match(precompile):
            raise InvalidParams(f"invalid precompile {precompile}")
        seen.add(precompile)
    if list(p.active_static_precompiles) != sorted(p.active_static_precompiles):
        raise InvalidParams(f"precompiles need to be sorted: [{' '.join(p.active_static_precompiles)}]")
    for act in (p.access_control.create, p.access_control.call):
        if act.access_type not in (0, 1, 2):
            raise InvalidParams(f"invalid access type: {act.access_type}")
        for address in act.access_control_list:
            if not _HEX_ADDRESS.match(address):
                raise InvalidParams(f"invalid whitelist address: {address}")
    for channel in p.evm_channels:
        problem = _channel_problem(channel)
        if problem:
            raise InvalidParams(f"{problem}: invalid identifier: invalid channel identifier", "channel", 18)


_GO_NAMES = {"homestead_block": "homesteadBlock", "dao_fork_block": "daoForkBlock", "eip150_block": "eip150Block",
             "eip155_block": "eip155Block", "eip158_block": "eip158Block", "byzantium_block": "byzantiumBlock",
             "constantinople_block": "constantinopleBlock", "petersburg_block": "petersburgBlock",
             "istanbul_block": "istanbulBlock", "muir_glacier_block": "muirGlacierBlock",
             "berlin_block": "berlinBlock", "london_block": "londonBlock", "arrow_glacier_block": "arrowGlacierBlock",
             "gray_glacier_block": "GrayGlacierBlock", "merge_netsplit_block": "MergeNetsplitBlock",
             "shanghai_block": "ShanghaiBlock", "cancun_block": "CancunBlock"}


def _channel_problem(channel):
    """ibc-go's ChannelIdentifierValidator (8 to 64 characters of its alphabet, no '/')."""
    if not channel.strip():
        return "identifier cannot be blank"
    if "/" in channel:
        return f"identifier {channel} cannot contain separator '/'"
    if not 8 <= len(channel) <= 64:
        return f"identifier {channel} has invalid length: {len(channel)}, must be between 8-64 characters"
    if not _CHANNEL_ID.match(channel):
        return (f"identifier {channel} must contain only alphanumeric or the following characters: "
                "'.', '_', '+', '-', '#', '[', ']', '<', '>'")
    return None


def unsupported(p, base_denom, modules_precompiles):
    """What chaind cannot run of params that Evmos accepts, or None: the EVM denom is the bank base denom (one
    balance), the chain config is py-evm's Prague from genesis, extra EIPs must already be Prague's, and no
    access control policy is enforced."""
    if p.evm_denom != base_denom:
        return (f"evm_denom cannot change from {base_denom}: on this chain the EVM balance is the bank balance of "
                "the base denom")
    if p.chain_config != CHAIN_CONFIG:
        return "chain_config cannot change: this chain runs every fork through Cancun from genesis (py-evm's Prague)"
    for eip in p.extra_eips:
        if eip not in IN_PRAGUE_EIPS:
            return (f"EIP {eip} cannot be activated here: it would change the gas costs of py-evm's Prague jump "
                    f"table; those this chain accepts are already in it: [{' '.join(IN_PRAGUE_EIPS)}]")
    served = static_precompiles(modules_precompiles)
    unknown = {a.lower()[-40:] for a in p.active_static_precompiles} - {a[-40:] for a in served}
    if unknown:
        return f"no static precompile at 0x{sorted(unknown)[0]} on this chain: it serves [{' '.join(served)}]"
    for act in (p.access_control.create, p.access_control.call):
        if act.access_type != 0 or act.access_control_list:
            return "access_control is not enforced on this chain: only ACCESS_TYPE_PERMISSIONLESS with no list"
    return None
